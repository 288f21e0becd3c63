"""Seed 000: the Lambda handlers resolve the table names at module level, once per cold start;
a later change of the environment or of the deployment's parameters changes nothing."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import boto3
import pytest
from moto import mock_aws

import entrypoints.http as http
import entrypoints.http.aws_lambda as aws_lambda
from adapters.tables import VAMS_TABLES, ResourceKeys
from conftest import AWS_REGION, FAKE_AWS_ENVIRONMENT

EXECUTIONS = ResourceKeys.WORKFLOW_EXECUTIONS
PREFIX = "/vams/prod"


@pytest.fixture
def environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("WFX_STORE", "WFX_DB", "WFX_RUNNER", "WFX_TABLE_PREFIX", "WFX_DYNAMODB_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WFX_HOME", str(tmp_path / "home"))
    return monkeypatch


def _cold_start() -> ModuleType:
    return importlib.reload(importlib.import_module("entrypoints.lambda_handlers"))


def test_the_names_are_resolved_at_import_and_kept(environment: pytest.MonkeyPatch) -> None:
    environment.setenv("WFX_TABLE_PREFIX", "cold-")
    environment.setenv("WFX_TABLE_PIPELINE_LOGS", "ColdLogs")
    handlers = _cold_start()

    environment.setenv("WFX_TABLE_PREFIX", "warm-")
    environment.delenv("WFX_TABLE_PIPELINE_LOGS")

    assert (
        handlers.TABLE_NAMES.get_table_name(EXECUTIONS) == "cold-WorkflowExecutionsStorageTableV2"
    )
    assert handlers.TABLE_NAMES.get_table_name(ResourceKeys.PIPELINE_LOGS) == "ColdLogs"
    assert handlers.container.tables() is handlers.TABLE_NAMES
    handlers.container.sqlite_database().close()


@pytest.fixture
def ssm(environment: pytest.MonkeyPatch) -> Iterator[Any]:
    for name, value in FAKE_AWS_ENVIRONMENT.items():
        environment.setenv(name, value)
    environment.setenv("VAMS_RESOURCE_PARAM_PREFIX", PREFIX)
    with mock_aws():
        client = boto3.client("ssm", region_name=AWS_REGION)
        for key, table in VAMS_TABLES.items():
            client.put_parameter(
                Name=f"{PREFIX}/{table.parameter}", Value=f"cold-{key.value}", Type="String"
            )
        yield client


def _rename_every_table(ssm: Any) -> None:
    for key, table in VAMS_TABLES.items():
        name = f"{PREFIX}/{table.parameter}"
        ssm.put_parameter(Name=name, Value=f"warm-{key.value}", Type="String", Overwrite=True)


def test_a_vams_deployment_is_read_at_import_once(ssm: Any) -> None:
    handlers = _cold_start()
    _rename_every_table(ssm)

    for key in VAMS_TABLES:
        assert handlers.TABLE_NAMES.get_table_name(key) == f"cold-{key.value}"
    assert handlers.container.tables() is handlers.TABLE_NAMES


def test_the_http_function_resolves_the_names_when_it_is_built(
    ssm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(aws_lambda, "_HANDLER", None)
    unverified = {
        "version": "2.0",
        "routeKey": "GET /workflows/executions",
        "rawPath": "/workflows/executions",
        "rawQueryString": "",
        "headers": {"host": "api.example"},
        "requestContext": {
            "http": {"method": "GET", "path": "/workflows/executions", "sourceIp": "127.0.0.1"},
            "stage": "$default",
        },
        "isBase64Encoded": False,
    }
    assert http.lambda_handler(unverified, None)["statusCode"] == 401  # no store read
    _rename_every_table(ssm)

    handler = aws_lambda._HANDLER
    assert handler is not None
    tables = handler.app.state.container.tables()  # type: ignore[attr-defined]
    assert tables.get_table_name(EXECUTIONS) == f"cold-{EXECUTIONS.value}"
