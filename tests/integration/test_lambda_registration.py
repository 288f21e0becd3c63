"""The registerPipelineExecution Lambda handler, given the envelopes EventBridge delivers, on
SQLite and on DynamoDB (moto). The module is imported afresh (a cold start) for each test."""

from __future__ import annotations

import importlib
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from dependency_injector import providers

from adapters.tables import ResourceKeys
from application.ports.executions import ExecutionStore
from domain.logs import RegisteredLog, RegisteredSubExecution
from domain.registration import REGISTRATION_DETAIL_TYPE, compose_source
from entrypoints.container import create_all_tables
from tests.contract.builders import a_launch, step_id, write_launch

STEP = step_id("e1", 0)
OTHER_STEP = step_id("e1", 1)
INNER_RUN = "arn:aws:states:us-east-1:123456789012:execution:inner:run-1"


@pytest.fixture(params=["sqlite", "dynamodb"])
def handlers(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[ModuleType]:
    for name in ("WFX_DB", "WFX_RUNNER", "WFX_TABLE_PREFIX", "WFX_EVENT_BUS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WFX_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("WFX_STORE", request.param)
    module = importlib.reload(importlib.import_module("entrypoints.lambda_handlers"))
    if request.param == "dynamodb":
        # every table there and empty (the session's, copied): create_all_tables makes none
        client = request.getfixturevalue("moto_dynamodb_tables")
        module.container.dynamodb_client.override(providers.Object(client))
    create_all_tables(module.container)
    write_launch(module.container.execution_store(), a_launch("e1", steps=2))
    write_launch(module.container.execution_store(), a_launch("e2"))
    yield module
    if request.param == "sqlite":
        module.container.sqlite_database().close()


def _store(handlers: ModuleType) -> ExecutionStore:
    store: ExecutionStore = handlers.container.execution_store()
    return store


def an_envelope(source: str | None = None, **detail: Any) -> dict[str, Any]:
    """The envelope EventBridge hands a Lambda target (detail as an object, not a string)."""
    return {
        "version": "0",
        "id": "6a7e8feb-b491-4cf7-a9f1-bf3703467718",
        "detail-type": REGISTRATION_DETAIL_TYPE,
        "source": source or compose_source("wfx", "e1", STEP),
        "account": "123456789012",
        "time": "2026-11-29T12:00:00Z",
        "region": "us-east-1",
        "resources": [],
        "detail": {"pipelineExecutionId": STEP, **detail},
    }


def test_an_accepted_event_registers_on_the_step(handlers: ModuleType) -> None:
    answer = handlers.register_pipeline_execution(
        an_envelope(
            subExecutions=[{"resourceType": "stepFunctions", "resourceId": INNER_RUN}],
            logs=[{"logGroupName": "/wfx/inner", "logStreamPrefix": "states/"}],
        ),
        None,
    )

    assert answer == {"accepted": True, "pipelineExecutionId": STEP}
    step = _store(handlers).get_step(STEP)
    assert step.registered_sub_executions == (
        RegisteredSubExecution(resource_type="stepFunctionsExecution", execution_arn=INNER_RUN),
    )
    assert step.registered_logs == (
        RegisteredLog(log_group_name="/wfx/inner", log_stream_prefix="states/"),
    )


def test_a_redelivered_event_adds_nothing(handlers: ModuleType) -> None:
    event = an_envelope(logs=[{"logGroupName": "/wfx/inner"}])
    handlers.register_pipeline_execution(event, None)

    handlers.register_pipeline_execution(event, None)

    assert len(_store(handlers).get_step(STEP).registered_logs) == 1


@pytest.mark.parametrize(
    "event",
    [
        pytest.param(
            an_envelope(compose_source("wfx", "e1", OTHER_STEP), logs=[{"logGroupName": "/a"}]),
            id="another step's source",
        ),
        pytest.param(
            an_envelope(compose_source("wfx", "e2", STEP), logs=[{"logGroupName": "/a"}]),
            id="another execution's source",
        ),
        pytest.param({"source": "wfx.x"}, id="no detail"),
    ],
)
def test_a_refused_event_is_logged_answered_and_writes_nothing(
    handlers: ModuleType, event: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    before = _store(handlers).list_steps("e1") + _store(handlers).list_steps("e2")

    with caplog.at_level(logging.WARNING, logger="entrypoints.lambda_handlers"):
        answer = handlers.register_pipeline_execution(event, None)

    assert answer["accepted"] is False
    assert answer["reason"]
    assert answer["reason"] in caplog.text
    assert _store(handlers).list_steps("e1") + _store(handlers).list_steps("e2") == before


def test_a_vams_event_with_its_detail_as_json_is_recorded(handlers: ModuleType) -> None:
    """As a VAMS pipeline's PutEvents sends it: one subExecution, the logs with all seven keys."""
    detail = {
        "pipelineExecutionId": STEP,
        "subExecution": {
            "resourceType": "batchJob",
            "jobId": "4c2a6f0e-5b7d-4a09-8f7e-2d1f0c3b9a11",
            "jobArn": "arn:aws:batch:us-east-1:123456789012:job/4c2a6f0e",
            "stageName": "Render",
        },
        "logs": [
            {
                "logGroupArn": "",
                "logGroupName": "/aws/batch/job",
                "logStreamName": "",
                "logStreamPrefix": "render/default/",
                "stageName": "Render",
                "label": "",
                "sourceType": "batch",
            }
        ],
    }
    envelope = an_envelope() | {"detail": json.dumps(detail)}

    answer = handlers.register_pipeline_execution(envelope, None)

    assert answer == {"accepted": True, "pipelineExecutionId": STEP}
    step = _store(handlers).get_step(STEP)
    assert step.registered_sub_executions == (
        RegisteredSubExecution(
            resource_type="batchJob",
            job_id="4c2a6f0e-5b7d-4a09-8f7e-2d1f0c3b9a11",
            job_arn="arn:aws:batch:us-east-1:123456789012:job/4c2a6f0e",
            stage_name="Render",
        ),
    )
    assert step.registered_logs == (
        RegisteredLog(
            log_group_name="/aws/batch/job",
            log_stream_prefix="render/default/",
            stage_name="Render",
            source_type="batch",
        ),
    )


@pytest.mark.parametrize(
    ("log", "named", "kept"),
    [
        (
            {"logGroupName": "/a", "sourceType": "lamda"},
            "logs[0].sourceType: must be one of",
            RegisteredLog(log_group_name="/a", source_type="custom"),
        ),
        ({"logStreamName": "s"}, "logs[0]: no valid logGroupArn or logGroupName", None),
        ({"logGroupName": "g" * 513}, "logs[0].logGroupName: must be 1 to 512", None),
        (
            {"logGroupName": "/a", "label": "x" * 257},
            "logs[0].label: must be 1 to 256 characters",
            RegisteredLog(log_group_name="/a"),
        ),
    ],
)
def test_a_log_field_breaking_its_rule_is_dropped_naming_it_and_the_rest_kept(
    handlers: ModuleType,
    log: dict[str, str],
    named: str,
    kept: RegisteredLog | None,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="entrypoints.lambda_handlers"):
        answer = handlers.register_pipeline_execution(an_envelope(logs=[log]), None)

    assert answer["accepted"] is True
    assert any(named in problem for problem in answer["dropped"])
    assert named in caplog.text
    assert _store(handlers).get_step(STEP).registered_logs == (() if kept is None else (kept,))


def test_a_sub_execution_id_longer_than_any_real_one_is_dropped_naming_the_field(
    handlers: ModuleType,
) -> None:
    child = {"resourceType": "batch", "resourceId": "j" * 1025}

    answer = handlers.register_pipeline_execution(an_envelope(subExecutions=[child]), None)

    assert answer["accepted"] is True
    assert answer["dropped"][0].startswith("subExecutions[0].jobId: must be 3 to 63")
    assert _store(handlers).get_step(STEP).registered_sub_executions == ()


def test_a_secret_in_a_refused_event_never_reaches_the_log(
    handlers: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "AKIAABCDEFGHIJKLMNOP"
    event = an_envelope(f"wfx.execution.e1.pipeline.{secret}", logs=[{"logGroupName": "/a"}])

    with caplog.at_level(logging.WARNING, logger="entrypoints.lambda_handlers"):
        answer = handlers.register_pipeline_execution(event, None)

    assert answer["accepted"] is False
    assert "refused" in caplog.text
    assert secret not in caplog.text
    assert secret not in answer["reason"]


def test_a_store_error_escapes_so_that_eventbridge_retries(handlers: ModuleType) -> None:
    container = handlers.container
    table = container.tables().get_table_name(ResourceKeys.PIPELINE_EXECUTIONS)
    if container.config.store() == "dynamodb":
        container.dynamodb_client().delete_table(TableName=table)
    else:
        with container.sqlite_database().write() as connection:
            connection.execute(f'DROP TABLE "{table}"')

    with pytest.raises(Exception) as failed:
        handlers.register_pipeline_execution(an_envelope(logs=[{"logGroupName": "/a"}]), None)

    assert type(failed.value).__name__ in ("ResourceNotFoundException", "OperationalError")


LONG = "x" * 300_000  # an event of a direct invoke; EventBridge's own stop at 256 KB


@pytest.mark.parametrize(
    ("event", "field"),
    [
        (an_envelope(f"wfx.execution.e1.pipeline.{LONG}"), "source"),
        (an_envelope(pipelineExecutionId=LONG), "detail.pipelineExecutionId"),
        (an_envelope(workflowExecutionId=LONG), "detail.workflowExecutionId"),
        ({**an_envelope(), "detail-type": LONG}, "detail-type"),
    ],
    ids=["source", "pipelineExecutionId", "workflowExecutionId", "detail-type"],
)
def test_an_id_longer_than_any_is_refused_by_name_and_not_quoted(
    handlers: ModuleType,
    event: dict[str, Any],
    field: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The reason is answered and logged: the 300,000 characters are in neither."""
    with caplog.at_level(logging.WARNING, logger="entrypoints.lambda_handlers"):
        answer = handlers.register_pipeline_execution(event, None)

    assert answer["accepted"] is False
    assert answer["reason"].startswith(f"{field}: "), answer["reason"][:300]
    assert len(answer["reason"]) < 300 and len(caplog.text) < 1000, len(caplog.text)
    assert _store(handlers).get_step(STEP).registered_logs == ()


@pytest.fixture
def stack_reach(monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment the stack gives its functions: its prefix and its SubProcess* values."""
    monkeypatch.setenv("WFX_STATE_MACHINE_PREFIX", "wfx_0a1b2c3d-")
    monkeypatch.setenv(
        "WFX_SUB_PROCESSES",
        "stateMachines=render-*,;batchJobs=none;deadlineFarms=;region=us-east-1;"
        "account=123456789012",
    )


@pytest.mark.usefixtures("stack_reach")
def test_a_sub_process_the_stack_may_not_stop_is_dropped_by_name_and_the_rest_recorded(
    handlers: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    render = "arn:aws:states:us-east-1:123456789012:execution:render-v2:run-3"
    children = [{"executionArn": INNER_RUN}, {"executionArn": render}]

    with caplog.at_level(logging.WARNING, logger="entrypoints.lambda_handlers"):
        answer = handlers.register_pipeline_execution(
            an_envelope(subExecutions=children, logs=[{"logGroupName": "/wfx/a"}]), None
        )

    refusal = (
        "subExecutions[0].executionArn: a run of state machine inner, which this deployment's "
        "roles may not stop (they stop runs of wfx_0a1b2c3d-* and of "
        "SubProcessStateMachinePattern: render-*); entry dropped"
    )
    assert answer == {"accepted": True, "pipelineExecutionId": STEP, "dropped": [refusal]}
    assert refusal in caplog.text
    step = _store(handlers).get_step(STEP)
    assert [sub.execution_arn for sub in step.registered_sub_executions] == [render]
    assert [log.log_group_name for log in step.registered_logs] == ["/wfx/a"]
