"""Derived stage status of a Step Functions sub-execution (seed 000 "Stage status is derived"):
how it is read; what a details request reports is in domain/stages.py.

Two pure steps over plain JSON data. `stage_frame` walks an ASL definition into an ordered frame
of stages: states in the order they are reachable from StartAt, with the states of a Parallel
state's branches and of a Map state's processor nested under it. `attribute_history` then reads a
GetExecutionHistory event list and gives every stage of the frame a status. Nothing is stored:
the registered sub-execution keeps only its locator.

Statuses (StageStatus):
- NOT_STARTED: the whole history was read and the state was never entered;
- RUNNING: entered and not left while the execution still runs (a retry may be pending);
- SUCCEEDED: left normally, possibly after retries (`retries` counts them);
- CAUGHT: the state failed and its own Catch moved the run on (for a Parallel or Map state:
  a branch or iteration failed it, and its Catch took over; the failed inner state is FAILED);
- FAILED: failed and the failure was not caught, or a Fail state was entered;
- ABORTED / TIMED_OUT: still open when the execution was aborted or timed out (and a state left
  open when another branch failed the execution is ABORTED: Step Functions stopped it);
- UNKNOWN: the history was cut by the page bound before the stage's outcome was seen.
"""

import json
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from domain.errors import InvalidInputError
from domain.stages import StageState, StageStatus

MAX_DEFINITION_BYTES = 256 * 1024
MAX_STAGES = 50
MAX_DEPTH = 3  # top-level states are depth 1


class StageFrameError(InvalidInputError):
    """The definition cannot be walked (too large, not JSON, no States); the message says why."""


class Stage(BaseModel):
    """One state of the definition; `children` are its branches' or processor's states."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str
    state_type: str
    depth: int
    branch: int | None = None  # which Parallel branch (0-based) it belongs to, if any
    children: tuple["Stage", ...] = ()


class StageFrame(BaseModel):
    """The ordered stages of a definition, and what the bounds left out."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    stages: tuple[Stage, ...]
    notes: tuple[str, ...] = ()  # e.g. "stages beyond 50 are not shown"

    def walk(self) -> Iterable[Stage]:
        """Every stage, parents before their children, in frame order."""
        pending = list(reversed(self.stages))
        while pending:
            stage = pending.pop()
            yield stage
            pending.extend(reversed(stage.children))


# -- the frame ---------------------------------------------------------------------------------


def _successors(state: Mapping[str, Any]) -> list[str]:
    names: list[str] = []
    if isinstance(state.get("Next"), str):
        names.append(state["Next"])
    for choice in state.get("Choices") or ():
        if isinstance(choice, Mapping) and isinstance(choice.get("Next"), str):
            names.append(choice["Next"])
    if isinstance(state.get("Default"), str):
        names.append(state["Default"])
    for catcher in state.get("Catch") or ():
        if isinstance(catcher, Mapping) and isinstance(catcher.get("Next"), str):
            names.append(catcher["Next"])
    return names


def _reachable_order(machine: Mapping[str, Any]) -> list[str]:
    """Breadth first from StartAt (Next, then Choices, Default, Catch); unreachable ones last."""
    states = machine.get("States")
    if not isinstance(states, Mapping):
        raise StageFrameError("definition: States must be an object")
    order: list[str] = []
    queue = deque([machine.get("StartAt")])
    while queue:
        name = queue.popleft()
        if not isinstance(name, str) or name in order or name not in states:
            continue
        order.append(name)
        queue.extend(_successors(states[name]))
    return order + [name for name in states if name not in order]


def _sub_machines(state: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    if state.get("Type") == "Parallel":
        return [b for b in state.get("Branches") or () if isinstance(b, Mapping)]
    if state.get("Type") == "Map":
        processor = state.get("ItemProcessor") or state.get("Iterator")
        return [processor] if isinstance(processor, Mapping) else []
    return []


@dataclass
class _Budget:
    left: int = MAX_STAGES
    notes: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)


def _walk(
    machine: Mapping[str, Any], depth: int, branch: int | None, budget: _Budget
) -> list[Stage]:
    states = machine.get("States")
    stages: list[Stage] = []
    for name in _reachable_order(machine):
        if budget.left == 0:
            budget.note(f"stages beyond {MAX_STAGES} are not shown")
            break
        budget.left -= 1
        state = states[name] if isinstance(states, Mapping) else {}
        state_type = str(state.get("Type", "")) if isinstance(state, Mapping) else ""
        children: list[Stage] = []
        subs = _sub_machines(state) if isinstance(state, Mapping) else []
        if subs and depth == MAX_DEPTH:
            budget.note(f"states nested deeper than {MAX_DEPTH} levels are not shown")
        elif subs:
            parallel = state_type == "Parallel"
            for index, sub in enumerate(subs):
                children += _walk(sub, depth + 1, index if parallel else None, budget)
        stages.append(
            Stage(
                name=name,
                state_type=state_type,
                depth=depth,
                branch=branch,
                children=tuple(children),
            )
        )
    return stages


def stage_frame(definition: str | Mapping[str, Any]) -> StageFrame:
    """Walk an ASL definition (the text DescribeStateMachine returns) into an ordered frame.

    Raises StageFrameError for a definition over 256 KiB, one that is not a JSON object, or one
    without States. More than 50 states or nesting deeper than 3 levels is cut, with a note.
    """
    if isinstance(definition, str):
        size = len(definition.encode("utf-8"))
        if size > MAX_DEFINITION_BYTES:
            raise StageFrameError(
                f"definition: {size} bytes is over the {MAX_DEFINITION_BYTES}-byte bound"
            )
        try:
            machine = json.loads(definition)
        except ValueError as error:
            raise StageFrameError(f"definition: not JSON ({error})") from error
    else:
        machine = definition
    if not isinstance(machine, Mapping):
        raise StageFrameError("definition: must be a JSON object")
    budget = _Budget()
    stages = _walk(machine, 1, None, budget)
    return StageFrame(stages=tuple(stages), notes=tuple(budget.notes))


# -- attribution -----------------------------------------------------------------------------

# Events that say the state's work failed; what follows decides if it was retried or caught.
_FAILURE_EVENTS = frozenset(
    {
        "TaskFailed",
        "TaskTimedOut",
        "TaskStartFailed",
        "TaskSubmitFailed",
        "ActivityFailed",
        "ActivityTimedOut",
        "ActivityScheduleFailed",
        "LambdaFunctionFailed",
        "LambdaFunctionTimedOut",
        "LambdaFunctionStartFailed",
        "LambdaFunctionScheduleFailed",
        "ParallelStateFailed",
        "MapStateFailed",
        "MapRunFailed",
    }
)
# Events that start another attempt of the state's work: a failure before one was retried.
_ATTEMPT_EVENTS = frozenset(
    {
        "TaskScheduled",
        "ActivityScheduled",
        "LambdaFunctionScheduled",
        "ParallelStateStarted",
        "MapStateStarted",
    }
)
_EXECUTION_ENDS = {
    "ExecutionSucceeded": "SUCCEEDED",
    "ExecutionFailed": "FAILED",
    "ExecutionAborted": "ABORTED",
    "ExecutionTimedOut": "TIMED_OUT",
}


def _moment(value: Any) -> datetime | None:
    """A history timestamp: a datetime (boto3), epoch seconds (the wire), or ISO-8601 text."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value, tz=UTC)
    if isinstance(value, str) and value:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


def _failure_text(event: Mapping[str, Any]) -> str:
    for key, value in event.items():
        if key.endswith("EventDetails") and isinstance(value, Mapping) and "error" in value:
            return str(value.get("error") or "")
    return ""


@dataclass
class _Entry:
    """One entry into a state: from its StateEntered event to its StateExited (if seen)."""

    name: str
    kind: str  # the entered event's type prefix: Task, Parallel, Map, Pass, ...
    parent: int | None  # the Parallel or Map entry it runs inside
    start: datetime | None
    stop: datetime | None = None
    exited: bool = False
    failed: bool = False  # a failure not yet followed by a retry
    caught: bool = False
    retries: int = 0
    error: str = ""


@dataclass
class _Reading:
    entries: dict[int, _Entry] = field(default_factory=dict)  # by StateEntered event id
    # event id -> the entry it belongs to (None: the execution itself); branches interleave, so
    # an event is attributed through its previousEventId, never by its position
    owner: dict[int, int | None] = field(default_factory=dict)
    execution_end: str | None = None
    last_moment: datetime | None = None

    def container_of(self, entry_id: int | None) -> int | None:
        """The nearest Parallel or Map entry at or above `entry_id`."""
        while entry_id is not None:
            entry = self.entries[entry_id]
            if entry.kind in ("Parallel", "Map"):
                return entry_id
            entry_id = entry.parent
        return None


_CONTAINER_EVENT_PREFIXES = ("ParallelState", "MapState", "MapRun", "MapIteration")


def _read(events: Sequence[Mapping[str, Any]]) -> _Reading:
    reading = _Reading()
    for event in events:
        event_id = int(event.get("id", 0))
        kind = str(event.get("type", ""))
        moment = _moment(event.get("timestamp"))
        reading.last_moment = moment or reading.last_moment
        if kind in _EXECUTION_ENDS:
            reading.execution_end = _EXECUTION_ENDS[kind]
            continue
        owner = reading.owner.get(int(event.get("previousEventId", 0)))
        entered = event.get("stateEnteredEventDetails")
        if isinstance(entered, Mapping) and kind.endswith("StateEntered"):
            reading.entries[event_id] = _Entry(
                name=str(entered.get("name", "")),
                kind=kind.removesuffix("StateEntered"),
                parent=owner,
                start=moment,
                failed=kind == "FailStateEntered",
            )
            reading.owner[event_id] = event_id
            continue
        exited = event.get("stateExitedEventDetails")
        if isinstance(exited, Mapping) and kind.endswith("StateExited"):
            entry_id = _open_entry(reading, str(exited.get("name", "")), owner)
            if entry_id is not None:
                entry = reading.entries[entry_id]
                entry.exited, entry.stop = True, moment
                entry.caught, entry.failed = entry.failed, False
                reading.owner[event_id] = entry.parent  # the next state runs beside it
            continue
        if kind.startswith(_CONTAINER_EVENT_PREFIXES):
            owner = reading.container_of(owner)
        reading.owner[event_id] = owner
        if owner is None:
            continue
        entry = reading.entries[owner]
        if kind in _FAILURE_EVENTS:
            entry.failed, entry.stop = True, moment
            entry.error = _failure_text(event) or entry.error
        elif kind in _ATTEMPT_EVENTS and entry.failed:
            entry.failed, entry.retries = False, entry.retries + 1
    return reading


def _open_entry(reading: _Reading, name: str, owner: int | None) -> int | None:
    """The entry a StateExited closes: the one its predecessor belongs to when that is the named
    state's, else the latest open entry of that name."""
    if owner is not None:
        hint = reading.entries[owner]
        if hint.name == name and not hint.exited:
            return owner
    for entry_id in reversed(list(reading.entries)):
        entry = reading.entries[entry_id]
        if entry.name == name and not entry.exited:
            return entry_id
    return None


def _entry_status(entry: _Entry, execution_end: str | None, complete: bool) -> StageStatus:
    if entry.exited:
        return StageStatus.CAUGHT if entry.caught else StageStatus.SUCCEEDED
    if execution_end is None:
        return StageStatus.RUNNING if complete else StageStatus.UNKNOWN
    if entry.failed:
        return StageStatus.FAILED
    if execution_end == "TIMED_OUT":
        return StageStatus.TIMED_OUT
    if execution_end == "SUCCEEDED":
        return StageStatus.SUCCEEDED  # a Map iteration's state after a tolerated failure
    return StageStatus.ABORTED  # stopped from outside, or because another branch failed


# When a stage was entered several times (a loop, a Map's iterations), the worst entry wins.
_PRECEDENCE = (
    StageStatus.FAILED,
    StageStatus.TIMED_OUT,
    StageStatus.ABORTED,
    StageStatus.UNKNOWN,
    StageStatus.RUNNING,
    StageStatus.CAUGHT,
    StageStatus.SUCCEEDED,
)


def attribute_history(
    frame: StageFrame,
    events: Sequence[Mapping[str, Any]],
    complete: bool = True,
    execution_status: str | None = None,
) -> tuple[StageState, ...]:
    """The frame's stages with a status each, from GetExecutionHistory events (oldest first).

    `complete` is False when the page bound cut the history: stages not seen are then UNKNOWN,
    not NOT_STARTED. `execution_status` (DescribeExecution's) stands in for an end event the
    history did not reach.
    """
    reading = _read(events)
    end = reading.execution_end
    if end is None and complete and execution_status not in (None, "RUNNING"):
        end = execution_status
    by_name: dict[str, list[_Entry]] = {}
    for entry in reading.entries.values():
        by_name.setdefault(entry.name, []).append(entry)

    def state_of(stage: Stage) -> StageState:
        entries = by_name.get(stage.name, [])
        children = tuple(state_of(child) for child in stage.children)
        if not entries:
            status = StageStatus.NOT_STARTED if complete else StageStatus.UNKNOWN
            return StageState(
                name=stage.name,
                state_type=stage.state_type,
                status=status,
                branch=stage.branch,
                children=children,
            )
        statuses = {_entry_status(entry, end, complete) for entry in entries}
        status = next(s for s in _PRECEDENCE if s in statuses)
        starts = [e.start for e in entries if e.start is not None]
        stops = [e.stop for e in entries if e.stop is not None]
        finished = status not in (StageStatus.RUNNING, StageStatus.UNKNOWN)
        if finished and not stops and reading.last_moment is not None:
            stops = [reading.last_moment]  # a Fail state, or one the execution's end closed
        return StageState(
            name=stage.name,
            state_type=stage.state_type,
            status=status,
            start_date=min(starts) if starts else None,
            stop_date=max(stops) if finished and stops else None,
            entries=len(entries),
            retries=sum(e.retries for e in entries),
            error=next((e.error for e in reversed(entries) if e.error), ""),
            branch=stage.branch,
            children=children,
        )

    return tuple(state_of(stage) for stage in frame.stages)
