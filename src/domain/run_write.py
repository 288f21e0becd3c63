"""One transition of a run as one write: what the run aggregate decided, with its events.

A `RunWrite` is everything a transition changes - the main row (under its guard), steps with
their attempts and cost entries, an approval request, the steps' summary logs at a run's end,
the steps' rows a redrive resets - and the events it is, built here from the decision's own
dates. A `RunWriter`
(application.ports) commits it all or nothing; the store only numbers the events. Whatever guard
fails (the main row's, a step's expected status, the run no longer open, an attempt number taken
or no longer running, a cost entry or approval id already there, an approval no longer pending)
refuses the whole write: nothing is written.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from domain.approvals import ApprovalRequest
from domain.attempts import TaskExecution
from domain.derived import decided_value, derived
from domain.events import (
    NewEvent,
    approval_events,
    change_events,
    launch_events,
    move_events,
    registration_events,
)
from domain.execution import LaunchRecords, PipelineExecution, StepLog
from domain.logs import RegisteredLog, RegisteredSubExecution
from domain.run import Run, RunChange, StepMove
from domain.statuses import StepStatus
from domain.sub_processes import SubExecutionStop


class ApprovalWriteKind(StrEnum):
    OPEN = "open"  # a new request: refused when one of that id exists
    CLOSE = "close"  # its decision: refused unless the stored request is PENDING
    STILL_PENDING = "still_pending"  # nothing written: refused unless it is still PENDING


@decided_value
class ApprovalWrite:
    request: ApprovalRequest
    kind: ApprovalWriteKind
    # also refused unless the run is open with no abort requested: a decision never lands on a
    # run aborted after the decider read it (a close for a run's end or timeout needs no guard)
    while_open: bool = False

    @property
    def events(self) -> tuple[NewEvent, ...]:
        return () if self.kind is ApprovalWriteKind.STILL_PENDING else approval_events(self.request)


@decided_value
class LaunchWrite:
    """A new run's rows as the launch leaves them - its main row and steps with whatever its
    runner decided at once (the lease, the first step's start) - and the attempts that opens;
    `run`, those as the run the launch decided on them (None: a launch alone), which the
    launcher starts from as written."""

    records: LaunchRecords
    attempts: tuple[TaskExecution, ...] = ()
    run: Run | None = None

    @property
    def rerun_of(self) -> str | None:
        """The run a rerun rebuilds: its launch holds only while that run's main row is there,
        so a rerun of a run deleted after it was read launches nothing."""
        return self.records.execution.rerun_of_execution_id


@decided_value
class StepRow:
    """A step's row written as `step` has it (status, dates, error), while its stored status is
    one of `expected`: a redrive's reset of a step to NEW, and that reset's roll back. No event:
    the run's change says what happened."""

    step: PipelineExecution
    expected: frozenset[StepStatus]


@decided_value
class VersionedStep:
    """A step's row as read, with its row version: what a write of its lists is guarded by."""

    step: PipelineExecution
    version: int


class StepListsKind(StrEnum):
    REGISTERED = "registered"  # its registered sub-executions and logs
    STOPS = "stops"  # its sub-execution stop records


@decided_value
class StepLists:
    """A step's lists of one kind written as `step` has them, only while its row is still at
    `version` (the version read): registrations and stop records racing on one step then never
    lose each other, the loser decides again on a fresh read. Each write moves the version on."""

    step: PipelineExecution
    version: int
    kind: StepListsKind
    # how many entries each list had as read (registered: sub-executions, then logs): a store
    # that another system appends to without moving the version (VAMS's registration Lambda)
    # refuses the write on these too
    read_sizes: tuple[int, ...] = ()


@decided_value
class RunWrite:
    """A run's transition, all of it: build it with `of`, which adds its events."""

    workflow_execution_id: str
    change: RunChange | None = None
    moves: tuple[StepMove, ...] = ()
    approval: ApprovalWrite | None = None
    events: tuple[NewEvent, ...] = ()
    # the steps' summary logs a run's end leaves (put as they are: a repeat writes the same rows)
    step_logs: tuple[StepLog, ...] = ()
    step_rows: tuple[StepRow, ...] = ()
    # a new run, written whole: refused (ExecutionAlreadyExistsError) when its id is taken
    launch: LaunchWrite | None = None
    # a step's registered lists or stop records, under its row version (see StepLists)
    step_lists: StepLists | None = None

    @classmethod
    def of(
        cls,
        workflow_execution_id: str,
        *,
        moves: tuple[StepMove, ...] = (),
        change: RunChange | None = None,
        approval: ApprovalWrite | None = None,
        step_logs: tuple[StepLog, ...] = (),
        step_rows: tuple[StepRow, ...] = (),
    ) -> RunWrite:
        """The write with its events, in the order things happened: the steps' moves (each its
        attempt's close, its own move, the attempt it opens), then the run's change, then the
        approval request."""
        # one pass over the moves for both lists of ids (a comprehension is a call of its own)
        ids: list[str] = []
        pipeline_ids: list[str] = []
        for move in moves:
            ids.append(move.workflow_execution_id)
            pipeline_ids.append(move.pipeline_execution_id)
        if change is not None:
            ids.append(change.after.workflow_execution_id)
        if approval is not None:
            ids.append(approval.request.workflow_execution_id)
        if step_logs:
            ids += [log.workflow_execution_id for log in step_logs]
        if step_rows:  # most writes have none: no list of them to make
            ids += [row.step.workflow_execution_id for row in step_rows]
            pipeline_ids += [row.step.pipeline_execution_id for row in step_rows]
        if ids.count(workflow_execution_id) != len(ids):
            raise ValueError(f"a write of run {workflow_execution_id} names another run")
        if len(set(pipeline_ids)) != len(pipeline_ids):
            raise ValueError(f"a write of run {workflow_execution_id} moves a step twice")
        events: list[NewEvent] = []
        for move in moves:
            events += move_events(move)
        if change is not None:
            events += change_events(change)
        if approval is not None:
            events.extend(approval.events)
        return cls(
            workflow_execution_id, change, moves, approval, tuple(events), step_logs, step_rows
        )

    @classmethod
    def launched(cls, records: LaunchRecords) -> RunWrite:
        """A launch alone: the run's rows as the launch made them, for a runner elsewhere (Step
        Functions, a worker process) to claim; refused when its id is taken."""
        run_id = records.execution.workflow_execution_id
        return cls(run_id, events=launch_events(records.execution), launch=LaunchWrite(records))

    @classmethod
    def launching(
        cls, records: LaunchRecords, lease: RunChange, start: StepMove | None
    ) -> RunWrite:
        """A launch with its runner's lease and its first step's start, as one write: the rows
        are written as the two leave them (a new run has nothing to guard), and the events are
        the launch's, the start's, then the lease's, as three writes would have numbered them."""
        run_id = records.execution.workflow_execution_id
        # (the lease is taken on the records' own main row: the same object, not compared
        # field by field)
        if lease.before is not records.execution and lease.before != records.execution:
            raise ValueError(f"a launch of run {run_id} leases another main row")
        run = derived(Run, execution=lease.after, steps=records.steps)  # valid parts
        events = list(launch_events(records.execution))
        if start is not None:
            if start.workflow_execution_id != run_id:
                raise ValueError(f"a write of run {run_id} names another run")
            if start.close_attempt is not None or start.cost_entries:
                raise ValueError(f"a launch of run {run_id} closes an attempt")
            run = run.moved(start)
            events.extend(move_events(start))
        events.extend(change_events(lease))
        launched = records._replace(execution=run.execution, steps=run.steps)
        launch = LaunchWrite(launched, run.attempts, run)
        return cls(run_id, events=tuple(events), launch=launch)

    @classmethod
    def registering(
        cls,
        read: VersionedStep,
        sub_executions: tuple[RegisteredSubExecution, ...],
        logs: tuple[RegisteredLog, ...],
        at: datetime,
    ) -> RunWrite | None:
        """The step's registered lists as `sub_executions` and `logs`, with the event of the
        registration at `at`; None when they are the lists read (a redelivery writes nothing)."""
        step = read.step
        if (sub_executions, logs) == (step.registered_sub_executions, step.registered_logs):
            return None
        registered = step.model_copy(
            update={"registered_sub_executions": sub_executions, "registered_logs": logs}
        )
        run_id, step_id = step.workflow_execution_id, step.pipeline_execution_id
        events = registration_events(run_id, step_id, at, len(sub_executions), len(logs))
        sizes = (len(step.registered_sub_executions), len(step.registered_logs))
        lists = StepLists(registered, read.version, StepListsKind.REGISTERED, sizes)
        return cls(run_id, events=events, step_lists=lists)

    @classmethod
    def recording_stops(
        cls, read: VersionedStep, stops: tuple[SubExecutionStop, ...]
    ) -> RunWrite | None:
        """The step's stop records as `stops` (no event: the abort's own say what happened);
        None when they are the records read."""
        step = read.step
        if stops == step.sub_execution_stops:
            return None
        stopped = step.model_copy(update={"sub_execution_stops": stops})
        lists = StepLists(stopped, read.version, StepListsKind.STOPS)
        return cls(step.workflow_execution_id, step_lists=lists)

    @classmethod
    def opening(cls, request: ApprovalRequest) -> RunWrite:
        return cls.of(
            request.workflow_execution_id, approval=ApprovalWrite(request, ApprovalWriteKind.OPEN)
        )

    @classmethod
    def closing(cls, request: ApprovalRequest, handover: RunChange | None = None) -> RunWrite:
        """A request closed (timed out, cancelled) only while PENDING; with `handover`, the run
        parked at it handed on in the same write (see `deciding`)."""
        closed = ApprovalWrite(request, ApprovalWriteKind.CLOSE)
        return cls.of(request.workflow_execution_id, change=handover, approval=closed)

    @classmethod
    def deciding(cls, request: ApprovalRequest, handover: RunChange | None = None) -> RunWrite:
        """An approver's decision: closed only while the request is PENDING and the run open
        with no abort requested. `handover`: the run parked at the gate handed on, in the same
        write: a decider that died between two writes (an older wfx made them apart) left the
        run parked at a decided gate, which only a read of the run hands on then."""
        decided = ApprovalWrite(request, ApprovalWriteKind.CLOSE, while_open=True)
        return cls.of(request.workflow_execution_id, change=handover, approval=decided)

    @classmethod
    def parking(cls, request: ApprovalRequest, change: RunChange) -> RunWrite:
        """The run's lease parked at a gate, only while the gate's request is still PENDING: a
        decision and a park never miss each other, whichever comes second sees the first."""
        still_pending = ApprovalWrite(request, ApprovalWriteKind.STILL_PENDING)
        return cls.of(request.workflow_execution_id, change=change, approval=still_pending)
