"""Create the DynamoDB tables from the one declaration in `adapters.tables`.

The shape helpers here are shared with the infrastructure template, so a table created by
`create_tables` and one deployed from the template cannot drift apart.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from adapters.tables import (
    CREATED_TABLES,
    TABLE_OVERRIDE_PREFIX,
    TABLE_PREFIX_VARIABLE,
    IndexSpec,
    KeyAttribute,
    TableNames,
    TableSpec,
)
from domain.errors import InvalidInputError

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import TimeToLiveSpecificationTypeDef, WaiterConfigTypeDef

BILLING_MODE = "PAY_PER_REQUEST"
_LOG = logging.getLogger("wfx.tables")
_DENIED_EXPIRY: set[str] = set()  # tables whose TTL this process was denied, warned of
# DynamoDB's naming rule for tables (CreateTable's TableName; CloudFormation's too).
_TABLE_NAME = re.compile(r"[A-Za-z0-9_.-]+")
TABLE_NAME_LENGTHS = (3, 255)
# Real tables take seconds to become ACTIVE; the waiter's default 20 s poll is needlessly slow.
_WAITER_CONFIG: WaiterConfigTypeDef = {"Delay": 2, "MaxAttempts": 150}


def table_name_problem(name: str) -> str | None:
    """Why DynamoDB would refuse `name` for a table, or None when it takes it."""
    shortest, longest = TABLE_NAME_LENGTHS
    rule = f"must be {shortest} to {longest} characters, each a letter, digit, '_', '-' or '.'"
    if not shortest <= len(name) <= longest:
        return f"{rule} (DynamoDB's table names), got {len(name)} characters"
    if not _TABLE_NAME.fullmatch(name):
        return f"{rule} (DynamoDB's table names), got {name!r}"
    return None


def key_schema(partition: KeyAttribute, sort: KeyAttribute | None) -> list[dict[str, str]]:
    schema = [{"AttributeName": partition.name, "KeyType": "HASH"}]
    if sort is not None:
        schema.append({"AttributeName": sort.name, "KeyType": "RANGE"})
    return schema


def attribute_definitions(spec: TableSpec) -> list[dict[str, str]]:
    """Every attribute used as a table or index key, each once (DynamoDB refuses extras)."""
    return [
        {"AttributeName": attribute.name, "AttributeType": attribute.type}
        for attribute in spec.all_key_attributes
    ]


def _index(index: IndexSpec) -> dict[str, Any]:
    return {
        "IndexName": index.name,
        "KeySchema": key_schema(index.partition, index.sort),
        "Projection": {"ProjectionType": "ALL"},
    }


def global_secondary_indexes(spec: TableSpec) -> list[dict[str, Any]]:
    return [_index(index) for index in spec.global_indexes]


def local_secondary_indexes(spec: TableSpec) -> list[dict[str, Any]]:
    return [_index(index) for index in spec.local_indexes]


def secondary_indexes(spec: TableSpec) -> dict[str, list[dict[str, Any]]]:
    """The GlobalSecondaryIndexes / LocalSecondaryIndexes members of a table, each only when it
    has one: the same in CreateTable and in an AWS::DynamoDB::Table (DynamoDB refuses an empty
    list)."""
    members = {
        "GlobalSecondaryIndexes": global_secondary_indexes(spec),
        "LocalSecondaryIndexes": local_secondary_indexes(spec),
    }
    return {name: indexes for name, indexes in members.items() if indexes}


def time_to_live(attribute: str) -> TimeToLiveSpecificationTypeDef:
    """The TimeToLiveSpecification of UpdateTimeToLive and of an AWS::DynamoDB::Table."""
    return {"AttributeName": attribute, "Enabled": True}


def create_table_request(spec: TableSpec, table_name: str) -> dict[str, Any]:
    request: dict[str, Any] = {
        "TableName": table_name,
        "KeySchema": key_schema(spec.partition, spec.sort),
        "AttributeDefinitions": attribute_definitions(spec),
        "BillingMode": BILLING_MODE,
    }
    return request | secondary_indexes(spec)


def create_tables(client: DynamoDBClient, tables: TableNames) -> None:
    """Create every table that does not exist yet, then wait until those are ACTIVE, and give
    each table with an expiring attribute its TTL (one made by an earlier wfx too). Every store
    port calls this for the one shared schema: a table already listed costs no request but the
    look at its TTL, where it has one."""
    names = {spec.key: tables.get_table_name(spec.key) for spec in CREATED_TABLES}
    for spec in CREATED_TABLES:
        # DynamoDB would refuse it after making the tables before it; moto takes any name
        problem = table_name_problem(names[spec.key])
        if problem is not None:
            raise InvalidInputError(
                f"{TABLE_OVERRIDE_PREFIX}{spec.key.value} or {TABLE_PREFIX_VARIABLE}: "
                f"the {spec.default_name} table's name {problem}"
            )
    existing = _table_names(client)
    waiting = []
    for spec in CREATED_TABLES:
        name = names[spec.key]
        if name in existing:
            continue
        try:
            client.create_table(**create_table_request(spec, name))
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ResourceInUseException":
                raise
        waiting.append(name)  # created here or by another process just now: ACTIVE soon
    waiter = client.get_waiter("table_exists")
    for name in waiting:
        waiter.wait(TableName=name, WaiterConfig=_WAITER_CONFIG)
    for spec in CREATED_TABLES:
        if spec.expiry_attribute is not None:
            _expire_on(client, names[spec.key], spec.expiry_attribute)


def _expire_on(client: DynamoDBClient, table_name: str, attribute: str) -> None:
    """TTL on `attribute`, unless the table has one already (on it, or on the operator's own
    choice of attribute, which is theirs to keep). Without the rights to it (a policy written
    before wfx asked for them) the tables are still made, and a warning says what is missing."""
    try:
        if _time_to_live_status(client, table_name) != "DISABLED":
            return
        try:
            client.update_time_to_live(
                TableName=table_name, TimeToLiveSpecification=time_to_live(attribute)
            )
        except ClientError as exc:
            # another process enabling it just now: DynamoDB refuses a second change in a row
            if exc.response["Error"]["Code"] != "ValidationException":
                raise
            if _time_to_live_status(client, table_name) == "DISABLED":
                raise
    except ClientError as exc:
        if exc.response["Error"]["Code"] != "AccessDeniedException":
            raise
        if table_name in _DENIED_EXPIRY:
            return  # every store port creates the one schema: said once a process
        _DENIED_EXPIRY.add(table_name)
        # AWS's message names the caller's role: not repeated
        _LOG.warning(
            "warning: %s keeps its expired rows: enabling its TTL on %s was denied; grant "
            "dynamodb:DescribeTimeToLive and dynamodb:UpdateTimeToLive on it and run "
            "`wfx tables create` again",
            table_name,
            attribute,
        )


def _time_to_live_status(client: DynamoDBClient, table_name: str) -> str:
    described = client.describe_time_to_live(TableName=table_name)["TimeToLiveDescription"]
    return described.get("TimeToLiveStatus", "DISABLED")


def _table_names(client: DynamoDBClient) -> set[str]:
    names: set[str] = set()
    for page in client.get_paginator("list_tables").paginate():
        names.update(page.get("TableNames", []))
    return names
