"""MigrateV1 against the earlier table on DynamoDB (moto), made with the layout VAMS 2.5.x gave
it, and Step Functions on moto: executions named by the old ids, one stopped, one unknown."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest
from botocore.config import Config

from adapters.aws.legacy_executions import StepFunctionsLegacyExecutions
from adapters.dynamodb.codec import from_wire, to_wire
from adapters.dynamodb.execution_store import DynamoDbExecutionStore
from adapters.dynamodb.migrated_runs import DynamoDbMigratedRuns
from adapters.dynamodb.v1_items import DynamoDbV1Items
from adapters.records import format_table_date
from adapters.system import SystemClock
from adapters.tables import TableNames
from application.use_cases.list_executions import ListExecutions, ListExecutionsQuery
from application.use_cases.migrate_v1 import MigrateV1, MigrateV1Command
from domain.migration import MigrationOutcome
from domain.statuses import ExecutionStatus
from tests.integration.table_layout import create_earlier_table
from tests.moto_state_machines import ROLE_ARN
from tests.v1_items import (
    DB_MACHINE,
    GLOBAL_MACHINE,
    MIGRATED_AT_ISO,
    OPEN_ROWS,
    ROWS,
    STILL_RUNNING,
    STOPPED,
    UNKNOWN,
    MigrationClock,
    execution_arn,
    expected_rows,
    machine_arn,
    old_items,
)

EARLIER = "vams-2-5-executions"
PASS = json.dumps({"StartAt": "Done", "States": {"Done": {"Type": "Pass", "End": True}}})


@pytest.fixture
def step_functions(moto_dynamodb_client: Any) -> Any:
    """Inside the same mock: the state machines of that release and its open executions."""
    client = boto3.client("stepfunctions", region_name="us-east-1")
    for machine in (GLOBAL_MACHINE, DB_MACHINE):
        client.create_state_machine(name=machine, definition=PASS, roleArn=ROLE_ARN)
    for row in OPEN_ROWS:
        if row[0] != UNKNOWN:  # Step Functions forgot that one (its retention ran out)
            client.start_execution(stateMachineArn=machine_arn(row[8]), name=row[0])
    stopped = next(row for row in OPEN_ROWS if row[0] == STOPPED)
    client.stop_execution(executionArn=execution_arn(stopped[8], STOPPED))
    return client


@pytest.fixture
def earlier_table(moto_dynamodb_client: Any) -> str:
    create_earlier_table(moto_dynamodb_client, EARLIER)
    for item in old_items():
        moto_dynamodb_client.put_item(TableName=EARLIER, Item=to_wire(item))
    return EARLIER


def _main_rows(client: Any, names: TableNames) -> dict[str, dict[str, Any]]:
    from adapters.tables import ResourceKeys

    table = names.get_table_name(ResourceKeys.WORKFLOW_EXECUTIONS)
    items = [from_wire(item) for item in client.scan(TableName=table)["Items"]]
    return {item["workflowExecutionId"]: item for item in items}


def test_the_earlier_table_migrates_with_its_open_runs_reconciled(
    moto_dynamodb_client: Any,
    dynamodb_table_names: TableNames,
    earlier_table: str,
    step_functions: Any,
) -> None:
    client, names = moto_dynamodb_client, dynamodb_table_names
    migrate = MigrateV1(
        DynamoDbV1Items(client, earlier_table, page_size=3),  # several Scan pages
        DynamoDbMigratedRuns(client, names),
        StepFunctionsLegacyExecutions(step_functions),
        clock=MigrationClock(),
    )

    result = migrate.execute(MigrateV1Command())

    outcomes = {item.workflow_execution_id: item.outcome for item in result.items}
    assert len(outcomes) == len(ROWS) + len(OPEN_ROWS)
    assert outcomes[STOPPED] is MigrationOutcome.RECONCILED
    assert outcomes[STILL_RUNNING] is MigrationOutcome.RECONCILED
    assert outcomes[UNKNOWN] is MigrationOutcome.UNKNOWN_EXECUTION
    store = DynamoDbExecutionStore(client, names)
    unknown = next(i for i in result.items if i.workflow_execution_id == UNKNOWN)
    assert unknown.detail is not None and "has no execution" in unknown.detail
    rows = _main_rows(client, names)
    for row in ROWS:
        (expected,) = expected_rows(row)["WorkflowExecutionsStorageTableV2"]
        assert rows[row[0]] == expected
    described = {
        row[0]: step_functions.describe_execution(
            executionArn=rows[row[0]]["workflow_execution_arn"]
        )
        for row in OPEN_ROWS
        if row[0] != UNKNOWN
    }
    stopped = rows[STOPPED]
    assert stopped["executionStatus"] == "ABORTED"
    assert stopped["executionStopDate"] == format_table_date(described[STOPPED]["stopDate"])
    assert stopped["executionStartDate"] == "2024-02-03T08:00:00Z"  # the row's own
    running = rows[STILL_RUNNING]
    assert running["executionStatus"] == "RUNNING" and running["executionStopDate"] == ""
    # the row had no start date: Step Functions' is the run's, recorded, not estimated
    assert running["executionStartDate"] == format_table_date(described[STILL_RUNNING]["startDate"])
    assert "startDateEstimated" not in running
    assert rows[UNKNOWN]["executionStatus"] == "RUNNING"
    for row in (*ROWS, *OPEN_ROWS):  # the run's one step, as the run ended (or runs)
        (step,) = store.list_steps(row[0])
        assert step.status.value == rows[row[0]]["executionStatus"]
        assert step.end_state and step.pipeline_id == "DELETED"

    again = migrate.execute(MigrateV1Command())
    assert again.counts[MigrationOutcome.ALREADY_MIGRATED] == len(ROWS) + len(OPEN_ROWS)
    assert _main_rows(client, names) == rows

    lists = ListExecutions(store, None, clock=SystemClock())
    page = lists.execute(ListExecutionsQuery(limit=100))
    starts = [e.execution_start_date for e in page.items]
    assert len(page.items) == len(rows) and starts == sorted(starts, reverse=True)


def test_open_runs_are_kept_running_when_step_functions_cannot_be_reached(
    moto_dynamodb_client: Any, dynamodb_table_names: TableNames, earlier_table: str
) -> None:
    nowhere = boto3.client(
        "stepfunctions",
        region_name="us-east-1",
        endpoint_url="http://127.0.0.1:9",  # nothing listens there
        config=Config(connect_timeout=1, retries={"max_attempts": 1}),
    )
    migrate = MigrateV1(
        DynamoDbV1Items(moto_dynamodb_client, earlier_table),
        DynamoDbMigratedRuns(moto_dynamodb_client, dynamodb_table_names),
        StepFunctionsLegacyExecutions(nowhere),
        clock=MigrationClock(),
    )

    result = migrate.execute(MigrateV1Command())

    open_ids = {row[0] for row in OPEN_ROWS}
    kept = [i for i in result.items if i.workflow_execution_id in open_ids]
    assert {i.outcome for i in kept} == {MigrationOutcome.UNREACHABLE}
    assert all(i.detail and "not reachable" in i.detail for i in kept)
    rows = _main_rows(moto_dynamodb_client, dynamodb_table_names)
    assert {rows[i]["executionStatus"] for i in open_ids} == {ExecutionStatus.RUNNING.value}
    no_start = rows[next(r[0] for r in OPEN_ROWS if not r[5])]
    # nothing recorded its start, nothing stopped it, its workflow is not known: the migration's
    # time, flagged as estimated (never 1970, never out of the lists)
    assert no_start["executionStartDate"] == MIGRATED_AT_ISO
    assert no_start["startDateEstimated"] is True
