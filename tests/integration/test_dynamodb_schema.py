"""The tables `create_tables` makes under moto match seed 000, key for key and index for index.

The expected layout (tests/integration/table_layout.py) is copied by hand from the seed's table,
not derived from `adapters.tables`: a slip in the specs must fail here.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from adapters.dynamodb.authorization_store import DynamoDbAuthorizationStore
from adapters.dynamodb.schema import create_table_request, create_tables
from adapters.tables import CREATED_TABLES, TABLE_SPECS, ResourceKeys, TableNames
from domain.errors import InvalidInputError
from entrypoints.settings import table_settings
from tests.integration.table_layout import (
    EARLIER_TABLE,
    EARLIER_TABLE_GLOBAL_INDEXES,
    EARLIER_TABLE_KEYS,
    EARLIER_TABLE_LOCAL_INDEXES,
    SEED_000_TABLES,
    indexes_of,
    key_names,
)

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

FAKE_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SECURITY_TOKEN": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}
_prefixes = itertools.count()


@pytest.fixture(scope="module")
def dynamodb() -> Iterator[DynamoDBClient]:
    with pytest.MonkeyPatch.context() as env:
        for name, value in FAKE_CREDENTIALS.items():
            env.setenv(name, value)
        with mock_aws():
            yield boto3.client("dynamodb", region_name="us-east-1")


@pytest.fixture
def tables(dynamodb: DynamoDBClient) -> TableNames:
    """A fresh set of tables for each test, told apart by a prefix."""
    names = TableNames(prefix=f"schema{next(_prefixes)}-")
    create_tables(dynamodb, names)
    return names


@pytest.fixture(scope="module")
def made_tables(dynamodb: DynamoDBClient) -> TableNames:
    """One set of tables for the tests that only read their layout (describe, list): made once
    per module, as `tables` makes a set for each test that changes one."""
    names = TableNames(prefix=f"schema{next(_prefixes)}-")
    create_tables(dynamodb, names)
    return names


def _all_table_names(dynamodb: DynamoDBClient) -> set[str]:
    pages = dynamodb.get_paginator("list_tables").paginate()
    return {name for page in pages for name in page["TableNames"]}


def _describe(dynamodb: DynamoDBClient, name: str) -> Any:
    return dynamodb.describe_table(TableName=name)["Table"]


@pytest.mark.parametrize("seed_name", sorted(SEED_000_TABLES))
def test_every_seed_table_has_the_seed_key_schema(
    dynamodb: DynamoDBClient, made_tables: TableNames, seed_name: str
) -> None:
    (partition, sort), _ = SEED_000_TABLES[seed_name]
    table = _describe(dynamodb, f"{made_tables.prefix}{seed_name}")
    assert key_names(table["KeySchema"]) == (partition, sort)
    assert table["TableStatus"] == "ACTIVE"
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"


@pytest.mark.parametrize("seed_name", sorted(SEED_000_TABLES))
def test_every_seed_table_has_exactly_the_seed_indexes(
    dynamodb: DynamoDBClient, made_tables: TableNames, seed_name: str
) -> None:
    _, indexes = SEED_000_TABLES[seed_name]
    table = _describe(dynamodb, f"{made_tables.prefix}{seed_name}")
    created = indexes_of(table, "GlobalSecondaryIndexes")
    assert created == {name: (keys, "ALL") for name, keys in indexes.items()}
    assert not table.get("LocalSecondaryIndexes")


@pytest.mark.parametrize("seed_name", sorted(SEED_000_TABLES))
def test_every_key_attribute_is_declared_once_as_a_string(
    dynamodb: DynamoDBClient, made_tables: TableNames, seed_name: str
) -> None:
    keys, indexes = SEED_000_TABLES[seed_name]
    expected = set(keys) | {name for index_keys in indexes.values() for name in index_keys}
    definitions = _describe(dynamodb, f"{made_tables.prefix}{seed_name}")["AttributeDefinitions"]
    assert sorted(d["AttributeName"] for d in definitions) == sorted(expected)
    assert {d["AttributeType"] for d in definitions} == {"S"}


def test_the_earlier_table_is_left_to_the_release_that_made_it(
    dynamodb: DynamoDBClient, made_tables: TableNames
) -> None:
    listed = _all_table_names(dynamodb)
    assert f"{made_tables.prefix}{EARLIER_TABLE}" not in listed
    assert f"{made_tables.prefix}WorkflowExecutionsStorageTableV2" in listed


def test_the_earlier_table_is_declared_with_the_layout_of_its_previous_release(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    # declared (not created) for the migration: its spec must still say the real layout
    spec = TABLE_SPECS[ResourceKeys.WORKFLOW_EXECUTIONS_V1]
    name = f"{tables.prefix}{EARLIER_TABLE}"
    dynamodb.create_table(**create_table_request(spec, name))  # type: ignore[arg-type]
    table = _describe(dynamodb, name)
    assert key_names(table["KeySchema"]) == EARLIER_TABLE_KEYS
    assert indexes_of(table, "LocalSecondaryIndexes") == {
        name: (keys, "ALL") for name, keys in EARLIER_TABLE_LOCAL_INDEXES.items()
    }
    assert indexes_of(table, "GlobalSecondaryIndexes") == {
        name: (keys, "ALL") for name, keys in EARLIER_TABLE_GLOBAL_INDEXES.items()
    }


def test_creating_the_tables_again_keeps_their_items(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    name = f"{tables.prefix}PipelineExecutionLogsStorageTable"
    key = {"pipelineExecutionId": {"S": "step-1"}, "logType": {"S": "summary"}}
    dynamodb.put_item(TableName=name, Item=key)
    create_tables(dynamodb, tables)
    assert dynamodb.get_item(TableName=name, Key=key).get("Item") == key


def test_the_prefix_from_the_environment_names_every_table(
    dynamodb: DynamoDBClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WFX_TABLE_PREFIX", "envprefix-")
    create_tables(dynamodb, table_settings(os.environ).names())
    listed = _all_table_names(dynamodb)
    for seed_name in SEED_000_TABLES:
        assert f"envprefix-{seed_name}" in listed
    assert f"envprefix-{EARLIER_TABLE}" not in listed


def test_a_per_table_override_wins_over_the_prefix(
    dynamodb: DynamoDBClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WFX_TABLE_PREFIX", "overridden-")
    monkeypatch.setenv("WFX_TABLE_PIPELINE_LOGS", "TeamLogsTable")
    monkeypatch.setenv("WFX_TABLE_WORKFLOW_EXECUTIONS", "TeamExecutionsTable")
    create_tables(dynamodb, table_settings(os.environ).names())
    listed = _all_table_names(dynamodb)
    assert {"TeamLogsTable", "TeamExecutionsTable"} <= listed
    assert "overridden-PipelineExecutionLogsStorageTable" not in listed
    assert "overridden-WorkflowExecutionsStorageTableV2" not in listed
    assert "overridden-PipelineExecutionsStorageTable" in listed
    executions = _describe(dynamodb, "TeamExecutionsTable")
    seed_keys, seed_indexes = SEED_000_TABLES["WorkflowExecutionsStorageTableV2"]
    assert key_names(executions["KeySchema"]) == seed_keys
    assert {i["IndexName"] for i in executions["GlobalSecondaryIndexes"]} == set(seed_indexes)


def test_the_definitions_table_lists_workflows_and_versions_keep_steps_apart(
    dynamodb: DynamoDBClient, made_tables: TableNames
) -> None:
    definitions = _describe(dynamodb, f"{made_tables.prefix}WfxWorkflowDefinitionsTable")
    assert definitions["KeySchema"] == [
        {"AttributeName": "workflowDatabaseId:workflowId", "KeyType": "HASH"}
    ]
    (index,) = definitions["GlobalSecondaryIndexes"]
    assert index["IndexName"] == "WorkflowDefinitionsByKeyGSI"
    assert key_names(index["KeySchema"]) == ("workflowListPartition", "workflowListSortKey")
    versions = _describe(dynamodb, f"{made_tables.prefix}WfxWorkflowVersionsTable")
    assert key_names(versions["KeySchema"]) == ("workflowDatabaseId:workflowId", "workflowVersion")
    assert not versions.get("GlobalSecondaryIndexes")  # the list moved to the definitions
    steps = _describe(dynamodb, f"{made_tables.prefix}WfxStepDefinitionsTable")
    assert key_names(steps["KeySchema"]) == (
        "workflowDatabaseId:workflowId:workflowVersion",
        "stepIndex",
    )
    attributes = {d["AttributeName"]: d["AttributeType"] for d in steps["AttributeDefinitions"]}
    assert attributes == {"workflowDatabaseId:workflowId:workflowVersion": "S", "stepIndex": "N"}


def _expiry(dynamodb: DynamoDBClient, name: str) -> Any:
    return dynamodb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]


def test_a_revoked_token_expires_on_dynamodb_as_sqlite_prunes_it(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    """DynamoDB deletes the row once its `expiresAt` (a number, epoch seconds) has passed; on
    any other table nothing expires (an approval's `expiresAt` is a date, and stays)."""
    store = DynamoDbAuthorizationStore(dynamodb, tables)
    store.revoke_token("token-1", 1_900_000_000)
    name = tables.get_table_name(ResourceKeys.AUTHORIZATION)
    assert _expiry(dynamodb, name) == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expiresAt"}
    (item,) = [i for i in dynamodb.scan(TableName=name)["Items"] if "expiresAt" in i]
    assert item["expiresAt"] == {"N": "1900000000"}
    others = [
        tables.get_table_name(s.key) for s in CREATED_TABLES if s.key != ResourceKeys.AUTHORIZATION
    ]
    assert {_expiry(dynamodb, n)["TimeToLiveStatus"] for n in others} == {"DISABLED"}


def test_a_store_made_by_an_earlier_wfx_gets_the_expiry_when_its_tables_are_created_again(
    dynamodb: DynamoDBClient,
) -> None:
    names = TableNames(prefix=f"schema{next(_prefixes)}-")
    authorization = TABLE_SPECS[ResourceKeys.AUTHORIZATION]
    name = names.get_table_name(ResourceKeys.AUTHORIZATION)
    dynamodb.create_table(**create_table_request(authorization, name))  # type: ignore[arg-type]
    assert _expiry(dynamodb, name)["TimeToLiveStatus"] == "DISABLED"
    create_tables(dynamodb, names)
    create_tables(dynamodb, names)  # enabled already: nothing to change
    assert _expiry(dynamodb, name) == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expiresAt"}


def test_a_table_name_dynamodb_refuses_is_named_before_any_table_is_made(
    dynamodb: DynamoDBClient,
) -> None:
    """moto takes any name; DynamoDB refuses it, after the tables listed before it were made."""
    names = TableNames(prefix="ok-", overrides={ResourceKeys.APPROVAL_REQUESTS: "Team Approvals"})
    with pytest.raises(InvalidInputError) as refused:
        create_tables(dynamodb, names)
    assert "WFX_TABLE_APPROVAL_REQUESTS" in str(refused.value)
    assert "'Team Approvals'" in str(refused.value) and "3 to 255" in str(refused.value)
    assert not any(name.startswith("ok-") for name in _all_table_names(dynamodb))


class _NoTimeToLiveRights:
    """The client of an operator whose policy predates the TTL (CreateTable, DescribeTable)."""

    def __init__(self, client: DynamoDBClient) -> None:
        self._client = client

    def __getattr__(self, name: str) -> Any:
        if name in ("describe_time_to_live", "update_time_to_live"):
            return self._denied
        return getattr(self._client, name)

    def _denied(self, **_: Any) -> None:
        raise ClientError(
            {
                "Error": {
                    "Code": "AccessDeniedException",
                    "Message": "arn:aws:sts::1:assumed-role/x",
                }
            },
            "DescribeTimeToLive",
        )


def test_tables_are_still_created_without_the_ttl_rights_and_the_warning_says_which(
    dynamodb: DynamoDBClient, caplog: pytest.LogCaptureFixture
) -> None:
    names = TableNames(prefix=f"schema{next(_prefixes)}-")
    create_tables(_NoTimeToLiveRights(dynamodb), names)  # type: ignore[arg-type]
    create_tables(_NoTimeToLiveRights(dynamodb), names)  # type: ignore[arg-type]  # said once
    assert f"{names.prefix}WfxAuthorizationTable" in _all_table_names(dynamodb)
    (record,) = caplog.records
    assert record.levelname == "WARNING"
    message = record.getMessage()
    assert f"{names.prefix}WfxAuthorizationTable" in message
    assert "dynamodb:UpdateTimeToLive" in message and "assumed-role" not in message
