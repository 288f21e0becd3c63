"""RegisterPipelineExecution on the SQLite file store and on DynamoDB (moto): whose event is
accepted, what is refused without a write, and how redeliveries merge."""

from __future__ import annotations

from typing import Any

import pytest

from application.ports import ExecutionStore
from application.use_cases.register_pipeline_execution import (
    RegisterPipelineExecution,
    RegisterPipelineExecutionCommand,
)
from domain.logs import RegisteredLog, RegisteredSubExecution
from tests.contract.builders import a_launch, step_id

STEP = step_id("e1", 0)
SOURCE = f"wfx.execution.e1.pipeline.{STEP}"
GROUP_ARN = "arn:aws:logs:us-east-1:123456789012:log-group:/wfx/inner"
STATE_MACHINE_RUN = "arn:aws:states:us-east-1:123456789012:execution:inner:run-1"


@pytest.fixture(params=["sqlite_file", "dynamodb"])
def store(request: pytest.FixtureRequest) -> ExecutionStore:
    store: ExecutionStore = request.getfixturevalue(f"{request.param}_execution_store")
    store.add_launch(a_launch("e1"))
    store.add_launch(a_launch("e2"))
    return store


def an_event(source: str = SOURCE, **detail: Any) -> RegisterPipelineExecutionCommand:
    return RegisterPipelineExecutionCommand.model_validate(
        {
            "version": "0",
            "source": source,
            "detail-type": "pipeline.execution.register",
            "detail": {"pipelineExecutionId": STEP, **detail},
        }
    )


def test_a_step_registers_its_state_machine_and_log(store: ExecutionStore) -> None:
    result = RegisterPipelineExecution(store).execute(
        an_event(
            subExecutions=[
                {"resourceType": "stepFunctions", "resourceId": STATE_MACHINE_RUN, "label": "mesh"}
            ],
            logs=[{"logGroupArn": GROUP_ARN + ":*", "logStreamPrefix": "states/"}],
        )
    )

    assert result.accepted
    stored = store.get_step(STEP)
    assert result.step == stored
    assert stored.registered_sub_executions == (
        RegisteredSubExecution(
            resource_type="stepFunctions", resource_id=STATE_MACHINE_RUN, label="mesh"
        ),
    )
    assert stored.registered_logs == (
        RegisteredLog(log_group_arn=GROUP_ARN + ":*", log_stream_prefix="states/"),
    )


def test_a_redelivery_adds_no_duplicate_and_fills_in_what_was_missing(
    store: ExecutionStore,
) -> None:
    register = RegisterPipelineExecution(store)
    register.execute(an_event(logs=[{"logGroupName": "/wfx/a", "logStreamName": "s1"}]))

    register.execute(
        an_event(
            logs=[
                {"logGroupName": "/wfx/a", "logStreamName": "s1", "label": "main"},
                {"logGroupName": "/wfx/b"},
            ]
        )
    )

    assert store.get_step(STEP).registered_logs == (
        RegisteredLog(log_group_name="/wfx/a", log_stream_name="s1", label="main"),
        RegisteredLog(log_group_name="/wfx/b"),
    )


@pytest.mark.parametrize(
    ("source", "detail"),
    [
        pytest.param(f"wfx.execution.e1.pipeline.{step_id('e1', 1)}", {}, id="another step"),
        pytest.param(f"wfx.execution.e1.pipeline.{STEP}x", {}, id="a longer id"),
        pytest.param(f"{STEP}", {}, id="no execution in the source"),
        pytest.param(f"wfx.execution.e2.pipeline.{STEP}", {}, id="another execution's step"),
        pytest.param(SOURCE, {"workflowExecutionId": "e2"}, id="detail names another run"),
        pytest.param("wfx.execution.e1.pipeline.nope", {"pipelineExecutionId": "nope"}, id="none"),
    ],
)
def test_a_spoofed_or_foreign_event_is_refused_with_a_reason_and_nothing_is_written(
    store: ExecutionStore, source: str, detail: dict[str, Any]
) -> None:
    before = store.get_step(STEP)

    result = RegisterPipelineExecution(store).execute(
        an_event(source, logs=[{"logGroupName": "/wfx/a"}], **detail)
    )

    assert not result.accepted
    assert result.reason
    assert result.step is None
    assert store.get_step(STEP) == before
    assert all(not step.registered_logs for step in store.list_steps("e2"))


def test_an_event_of_another_detail_type_is_refused(store: ExecutionStore) -> None:
    command = an_event(logs=[{"logGroupName": "/wfx/a"}]).model_copy(
        update={"detail_type": "something.else"}
    )

    result = RegisterPipelineExecution(store).execute(command)

    assert not result.accepted
    assert store.get_step(STEP).registered_logs == ()
