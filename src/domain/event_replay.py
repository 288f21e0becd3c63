"""A run's state recomputed from its event log alone: what the log must be enough to say."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from domain.events import EventType, ExecutionEvent
from domain.statuses import StepStatus

# The step statuses a redrive sends back to NEW (domain.run's rule, seen from the log).
_RERUN = frozenset({StepStatus.FAILED.value, StepStatus.ABORTED.value, StepStatus.TIMED_OUT.value})


@dataclass
class ReplayedRun:
    """The run's status, each step's status and attempts, as the log tells them."""

    status: str | None = None
    step_statuses: dict[str, str] = field(default_factory=dict)
    attempts: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    last_sequence_number: int = 0


def replay(events: Iterable[ExecutionEvent]) -> ReplayedRun:
    """Fold the events, in sequence order; a gap or a repeat is refused (ValueError)."""
    run = ReplayedRun()
    for event in events:
        if event.sequence_number != run.last_sequence_number + 1:
            raise ValueError(
                f"event {event.sequence_number} follows {run.last_sequence_number}: not gap-free"
            )
        run.last_sequence_number = event.sequence_number
        _apply(run, event)
    return run


def _apply(run: ReplayedRun, event: ExecutionEvent) -> None:
    step = event.pipeline_execution_id
    kind = event.event_type
    if step is None:
        if kind is EventType.EXECUTION_REDRIVEN:
            for step_id, status in run.step_statuses.items():
                if status in _RERUN:
                    run.step_statuses[step_id] = StepStatus.NEW.value
        if event.status is not None:
            run.status = event.status
        return
    if kind in (EventType.STEP_STARTED, EventType.STEP_FINISHED) and event.status:
        run.step_statuses[step] = event.status
    attempts = run.attempts.setdefault(step, [])
    if kind in (EventType.ATTEMPT_STARTED, EventType.ATTEMPT_RETRIED) and event.attempt:
        attempts.append((event.attempt, event.status or StepStatus.RUNNING.value))
    elif kind is EventType.ATTEMPT_FINISHED and event.attempt and event.status:
        run.attempts[step] = [
            (number, event.status if number == event.attempt else status)
            for number, status in attempts
        ]
