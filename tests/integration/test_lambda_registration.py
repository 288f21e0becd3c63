"""The registerPipelineExecution Lambda handler, given the envelopes EventBridge delivers, on
SQLite and on DynamoDB (moto). The module is imported afresh (a cold start) for each test."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from dependency_injector import providers

from adapters.tables import ResourceKeys
from application.ports import ExecutionStore
from domain.logs import RegisteredLog, RegisteredSubExecution
from domain.registration import REGISTRATION_DETAIL_TYPE, compose_source
from entrypoints.container import create_all_tables
from tests.contract.builders import a_launch, step_id

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
        client = request.getfixturevalue("moto_dynamodb_client")
        module.container.dynamodb_client.override(providers.Object(client))
    create_all_tables(module.container)
    module.container.execution_store().add_launch(a_launch("e1", steps=2))
    module.container.execution_store().add_launch(a_launch("e2"))
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
        RegisteredSubExecution(resource_type="stepFunctions", resource_id=INNER_RUN),
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
        pytest.param(
            an_envelope(subExecutions=[{"resourceType": "batch", "resourceId": ""}]),
            id="an empty resource id",
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


@pytest.mark.parametrize(
    ("log", "named"),
    [
        ({"logGroupName": "/a", "sourceType": "lamda"}, "detail.logs[0].sourceType: must be one"),
        ({"logStreamName": "s"}, "detail.logs[0]: logGroupArn or logGroupName"),
        ({"logGroupName": "g" * 513}, "detail.logs[0].logGroupName: String should have at most"),
        ({"logGroupName": "/a", "label": "x" * 257}, "detail.logs[0].label: String should"),
    ],
)
def test_a_log_entry_breaking_a_seed_rule_is_refused_naming_the_field(
    handlers: ModuleType, log: dict[str, str], named: str
) -> None:
    answer = handlers.register_pipeline_execution(an_envelope(logs=[log]), None)

    assert answer["accepted"] is False
    assert named in answer["reason"]
    assert _store(handlers).get_step(STEP).registered_logs == ()


def test_a_sub_execution_id_longer_than_any_real_one_is_refused_naming_the_field(
    handlers: ModuleType,
) -> None:
    child = {"resourceType": "batch", "resourceId": "j" * 1025}

    answer = handlers.register_pipeline_execution(an_envelope(subExecutions=[child]), None)

    assert answer["accepted"] is False
    assert "detail.subExecutions[0].resourceId: String should have at most 1024" in answer["reason"]
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
