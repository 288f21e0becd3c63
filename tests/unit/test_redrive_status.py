"""redriveStatus / redriveStatusReason derived by the rules RedriveExecution refuses with (seed
001): every reason, each limit at its boundary, and which runs get a derived value at all."""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import ValidationError

from domain.execution import PipelineExecution, WorkflowExecution
from domain.redrive import (
    NOT_REDRIVABLE,
    REDRIVABLE,
    RedriveStatus,
    local_history_event_count,
    redrive_status,
    with_derived_redrive_status,
)
from domain.statuses import ExecutionStatus, StepStatus
from domain.workflow import ExecutionType, InputFileArity
from tests.unit.test_redrive_rules import NOW, an_execution

OPEN = [ExecutionStatus.NEW, ExecutionStatus.RUNNING, ExecutionStatus.PENDING_REDRIVE]
UNSUCCESSFUL = [ExecutionStatus.FAILED, ExecutionStatus.ABORTED, ExecutionStatus.TIMED_OUT]


def a_run(
    status: ExecutionStatus,
    started: timedelta = timedelta(hours=2),
    stopped: timedelta | None = timedelta(hours=1),
    orchestrator: str = "local",
) -> WorkflowExecution:
    """A run that started `started` before NOW and stopped `stopped` before NOW."""
    return an_execution(status, started, stopped)._evolve(orchestrator=orchestrator)


def refused(reason: str) -> RedriveStatus:
    return RedriveStatus(status=NOT_REDRIVABLE, reason=reason)


REDRIVABLE_STATUS = RedriveStatus(status=REDRIVABLE)


@pytest.mark.parametrize("status", UNSUCCESSFUL)
def test_a_recent_unsuccessful_run_is_redrivable_with_no_reason(status: ExecutionStatus) -> None:
    assert redrive_status(a_run(status), NOW, 10) == REDRIVABLE_STATUS


def test_a_succeeded_run_is_not_redrivable() -> None:
    assert redrive_status(a_run(ExecutionStatus.SUCCEEDED), NOW, 10) == refused(
        "Execution is SUCCEEDED and cannot be redriven."
    )


@pytest.mark.parametrize("status", OPEN)
def test_every_open_run_is_not_redrivable_as_running(status: ExecutionStatus) -> None:
    assert redrive_status(a_run(status, stopped=None), NOW, 10) == refused(
        "Execution is RUNNING and cannot be redriven."
    )


@pytest.mark.parametrize(
    ("stopped", "expected"),
    [
        pytest.param(timedelta(days=14), REDRIVABLE_STATUS, id="exactly 14 days"),
        pytest.param(
            timedelta(days=14, microseconds=1),
            refused("Execution redrivable period exceeded."),
            id="just over 14 days",
        ),
    ],
)
def test_the_redrivable_period_is_fourteen_days_since_the_stop(
    stopped: timedelta, expected: RedriveStatus
) -> None:
    run = a_run(ExecutionStatus.FAILED, started=timedelta(days=20), stopped=stopped)
    assert redrive_status(run, NOW, 10) == expected


@pytest.mark.parametrize(
    ("started", "expected"),
    [
        pytest.param(timedelta(days=365), REDRIVABLE_STATUS, id="exactly 365 days"),
        pytest.param(
            timedelta(days=365, microseconds=1),
            refused("Execution has exceeded the max execution time."),
            id="just over 365 days",
        ),
    ],
)
def test_the_max_execution_time_is_365_days_since_the_start(
    started: timedelta, expected: RedriveStatus
) -> None:
    assert redrive_status(a_run(ExecutionStatus.ABORTED, started=started), NOW, 10) == expected


@pytest.mark.parametrize(
    ("events", "expected"),
    [
        pytest.param(24_998, REDRIVABLE_STATUS, id="24,998 events"),
        pytest.param(24_999, refused("Execution history event limit exceeded."), id="24,999"),
    ],
)
def test_the_history_must_stay_under_24999_events(events: int, expected: RedriveStatus) -> None:
    assert redrive_status(a_run(ExecutionStatus.TIMED_OUT), NOW, events) == expected


def test_a_local_run_carries_the_derived_status_and_reason() -> None:
    run = a_run(ExecutionStatus.SUCCEEDED).model_copy(update={"redrive_status": REDRIVABLE})

    derived = with_derived_redrive_status(run, NOW, 0)

    assert (derived.redrive_status, derived.redrive_status_reason) == (
        NOT_REDRIVABLE,
        "Execution is SUCCEEDED and cannot be redriven.",
    )
    assert derived == run.model_copy(
        update={
            "redrive_status": NOT_REDRIVABLE,
            "redrive_status_reason": "Execution is SUCCEEDED and cannot be redriven.",
        }
    )


def test_the_derived_row_is_a_frozen_copy_as_model_copy_makes_it() -> None:
    run = a_run(ExecutionStatus.SUCCEEDED)
    update = {
        "redrive_status": NOT_REDRIVABLE,
        "redrive_status_reason": "Execution is SUCCEEDED and cannot be redriven.",
    }

    derived = with_derived_redrive_status(run, NOW, 0)

    copied = run.model_copy(update=update)
    assert derived.__dict__ == copied.__dict__
    assert derived.model_fields_set == copied.model_fields_set
    assert derived.model_dump() == copied.model_dump()
    assert run.redrive_status is None  # the row it came from is left as it was
    with pytest.raises(ValidationError):
        derived.redrive_status = None  # type: ignore[misc]


def test_a_step_functions_run_keeps_what_describe_execution_said() -> None:
    described = a_run(ExecutionStatus.FAILED, orchestrator="stepfunctions").model_copy(
        update={
            "redrive_status": NOT_REDRIVABLE,
            "redrive_status_reason": "Execution has been redriven the maximum number of times.",
        }
    )

    assert with_derived_redrive_status(described, NOW, 0) is described
    never_described = a_run(ExecutionStatus.FAILED, orchestrator="stepfunctions")
    assert with_derived_redrive_status(never_described, NOW, 0).redrive_status is None


def a_step(index: int, status: StepStatus, started: bool) -> PipelineExecution:
    return PipelineExecution(
        pipeline_execution_id=f"exec-1-step{index}",
        workflow_execution_id="exec-1",
        pipeline_database_id="db",
        pipeline_id=f"p{index}",
        step_index=index,
        status=status,
        start_date=NOW if started else None,
        execution_type=ExecutionType.PYTHON,
        input_file_arity=InputFileArity.NONE,
        end_state=False,
        input_path="in/",
        output_files_path="out/",
        output_preview_path="preview/",
        output_metadata_path="metadata/",
        auxiliary_path="aux/",
    )


def test_a_local_history_is_one_event_per_step_start_and_one_per_step_end() -> None:
    steps = [
        a_step(0, StepStatus.SUCCEEDED, started=True),  # started and ended: 2
        a_step(1, StepStatus.RUNNING, started=True),  # started: 1
        a_step(2, StepStatus.ABORTED, started=False),  # ended before it started: 1
        a_step(3, StepStatus.NEW, started=False),  # nothing yet: 0
    ]

    assert local_history_event_count(steps) == 4
    assert local_history_event_count([]) == 0
