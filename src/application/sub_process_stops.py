"""Stopping what the in-flight steps of a run registered (seed 000, sub-process registration)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from application.ports.executions import RunLifecycleStore
from application.ports.sub_executions import SubProcessController
from application.run_writes import commit_decided
from domain.execution import PipelineExecution
from domain.logs import RegisteredSubExecution
from domain.redaction import redact
from domain.run_write import RunWrite, VersionedStep
from domain.statuses import StepStatus
from domain.sub_processes import (
    StopAttempt,
    StopOutcome,
    SubExecutionStop,
    left_running_warning,
    merge_stops,
)


def attempt_stop(
    controller: SubProcessController, sub: RegisteredSubExecution, step: PipelineExecution
) -> StopAttempt:
    """controller.stop, with any exception turned into couldNotStop (never raised further)."""
    try:
        return controller.stop(sub, step)
    except Exception as error:  # one stuck sub-process must not block the others
        detail = redact(f"{type(error).__name__}: {error}")
        return StopAttempt(outcome=StopOutcome.COULD_NOT_STOP, detail=detail)


def record_stops(
    store: RunLifecycleStore, step: PipelineExecution, stops: tuple[SubExecutionStop, ...]
) -> str | None:
    """Merge the outcomes into the step row; a warning instead of an error when that fails."""

    def read() -> VersionedStep:
        return store.get_versioned_step(step.workflow_execution_id, step.pipeline_execution_id)

    def decide(read: VersionedStep) -> RunWrite | None:
        return RunWrite.recording_stops(read, merge_stops(read.step.sub_execution_stops, stops))

    try:
        commit_decided(store, read, decide)
    except Exception as error:  # the children were handled: the abort itself goes on
        return redact(f"step {step.pipeline_id}: stop outcomes not recorded: {error}")
    return None


def stop_sub_processes(
    controller: SubProcessController,
    store: RunLifecycleStore,
    steps: Iterable[PipelineExecution],
    now: datetime,
) -> tuple[str, ...]:
    """Stop every sub-process of each RUNNING step, record one outcome per child on its step,
    and return a warning for each child that may be left running.

    A type the controller cannot stop, or a stop that fails, is a warning and never stops the
    caller: the outer execution must still be stopped and recorded.
    """
    warnings: list[str] = []
    for step in steps:
        if step.status is StepStatus.RUNNING:
            warnings += stop_registered(
                controller, store, step, step.registered_sub_executions, now
            )
    return tuple(warnings)


def stop_registered(
    controller: SubProcessController,
    store: RunLifecycleStore,
    step: PipelineExecution,
    sub_executions: Iterable[RegisteredSubExecution],
    now: datetime,
) -> list[str]:
    """Stop these sub-processes of one step (whatever its status: a registration that came
    after an abort read the step), record their outcomes on it; the warnings, as above."""
    children = tuple(sub_executions)
    if not children:
        return []  # no controller asked
    stops = tuple(
        SubExecutionStop.of(sub, attempt, at=now, tries=1)
        for sub, attempt in zip(children, controller.stop_each(children, step), strict=True)
    )
    warnings = [
        warning
        for warning in (left_running_warning(step.pipeline_id, stop) for stop in stops)
        if warning is not None
    ]
    failure = record_stops(store, step, stops)
    return warnings if failure is None else [*warnings, failure]
