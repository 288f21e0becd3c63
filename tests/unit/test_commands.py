"""Commands refuse what their use case could never do, naming the field."""

import pytest
from pydantic import ValidationError

from application.use_cases.complete_execution import CompleteExecutionCommand
from application.use_cases.step_tracking import FinishStepCommand
from application.validation_messages import describe_validation_error


@pytest.mark.parametrize("status", ["NEW", "RUNNING"])
def test_a_step_cannot_finish_in_an_open_status(status: str) -> None:
    with pytest.raises(ValidationError) as refused:
        FinishStepCommand(workflow_execution_id="e", pipeline_execution_id="p", status=status)
    assert describe_validation_error(refused.value).startswith("status: must be one of ABORTED")


@pytest.mark.parametrize("status", ["RUNNING", "PENDING_REDRIVE"])
def test_a_run_cannot_complete_in_an_open_status(status: str) -> None:
    with pytest.raises(
        ValidationError, match="must be one of ABORTED, FAILED, SUCCEEDED, TIMED_OUT"
    ):
        CompleteExecutionCommand(workflow_execution_id="e", status=status)


def test_every_terminal_status_completes_a_run() -> None:
    for status in ("SUCCEEDED", "FAILED", "ABORTED", "TIMED_OUT"):
        assert CompleteExecutionCommand(workflow_execution_id="e", status=status).status == status
