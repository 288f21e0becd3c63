"""GetExecutionProgress on every store: the row and its steps in chain order, as stored."""

from __future__ import annotations

from application.ports.executions import ExecutionStore
from application.use_cases.get_execution_progress import (
    GetExecutionProgress,
    GetExecutionProgressQuery,
)
from tests.contract.builders import a_launch, step_id, write_launch


def test_progress_is_the_main_row_and_the_steps_in_chain_order(
    execution_store: ExecutionStore,
) -> None:
    write_launch(execution_store, a_launch("r1", steps=3))

    read = GetExecutionProgress(execution_store).execute(
        GetExecutionProgressQuery(workflow_execution_id="r1")
    )

    assert read.execution.workflow_execution_id == "r1"
    assert [s.pipeline_execution_id for s in read.steps] == [step_id("r1", n) for n in range(3)]
