"""`wfx` on DynamoDB over real HTTP (moto's server in this process, the CLI as subprocesses)
gives the same records as the same flow on SQLite, ids and dates aside.

Every command runs in the module fixtures and the tests read what they captured: under xdist
another test's `mock_aws()` may reset moto's shared backends between two tests of this module,
never in the middle of a fixture.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.cli import (
    FAKE_AWS,
    MESH_ASSETS,
    MESH_WORKFLOW,
    Outcome,
    Wfx,
)
from tests.integration.moto_server import moto_server, served_client

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("cli-on-moto-server")]

# Seed 000: the eleven execution tables (the earlier one is the previous release's, never made).
SEED_TABLES = {
    "WorkflowExecutionsStorageTableV2",
    "PipelineExecutionsStorageTable",
    "PipelineExecutionInputFilesStorageTable",
    "PipelineExecutionInputMetadataStorageTable",
    "PipelineExecutionInputConfigurationStorageTable",
    "PipelineExecutionOutputFilesStorageTable",
    "PipelineExecutionOutputMetadataStorageTable",
    "PipelineExecutionOutputResultsStorageTable",
    "PipelineExecutionLogsStorageTable",
    "WorkflowExecutionInputsStorageTable",
    "WorkflowExecutionConfigurationStorageTable",
}
WFX_TABLES = {
    "WfxWorkflowDefinitionsTable",
    "WfxWorkflowVersionsTable",
    "WfxStepDefinitionsTable",
    "WfxAssetFilesTable",
    "WfxTaskExecutionsTable",
    "WfxAuthorizationTable",
    "WfxCostLedgerTable",
    "WfxExecutionEventsTable",
    "WfxArtifactsTable",
    "WfxApprovalRequestsTable",
    "WfxResolvedInputFilesTable",
}
RUN = (
    "run",
    "demo/mesh-report",
    "--input",
    "demo/meshes",
    "--output",
    "demo/mesh-results",
    "--group",
    "nightly",
    "--json",
)
LISTS = {
    "global": (),
    "workflow": ("--workflow", "demo/mesh-report"),
    "asset read": ("--asset", "demo/meshes"),
    "asset written": ("--asset", "demo/mesh-results"),
}


@dataclass(frozen=True)
class Flow:
    """What one store answered to publish, import, run, the lists and show, as parsed JSON."""

    home: Path
    published: dict[str, Any]
    imported: list[dict[str, Any]]
    run: dict[str, Any]
    lists: dict[str, dict[str, Any]]
    shown: dict[str, Any]
    workflows: dict[str, Any]
    versions: dict[str, Any]

    @property
    def execution_id(self) -> str:
        execution_id: str = self.run["workflowExecutionId"]
        return execution_id


def _flow(wfx: Wfx) -> Flow:
    published = wfx.json("workflows", "publish", str(MESH_WORKFLOW))
    imported = wfx.json("assets", "import", "demo", "meshes", str(MESH_ASSETS), "-m", "source=e2e")
    run = wfx.ok(*RUN).json()
    lists = {kind: wfx.json("executions", "list", *args) for kind, args in LISTS.items()}
    shown = wfx.json("executions", "show", run["workflowExecutionId"])
    workflows = wfx.json("workflows", "list")
    versions = wfx.json("workflows", "versions", "demo/mesh-report")
    return Flow(wfx.home, published, imported, run, lists, shown, workflows, versions)


@dataclass(frozen=True)
class DynamoDbFlow:
    flow: Flow
    before_tables: Outcome
    tables_created: dict[str, Any]
    tables_created_again: Outcome
    table_names: set[str]
    by_date_ids: list[str]


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with moto_server() as url:
        yield url


@pytest.fixture(scope="module")
def on_dynamodb(endpoint: str, tmp_path_factory: pytest.TempPathFactory) -> DynamoDbFlow:
    wfx = Wfx(
        tmp_path_factory.mktemp("dynamodb") / "home",
        WFX_STORE="dynamodb",
        WFX_DYNAMODB_ENDPOINT=endpoint,
        **FAKE_AWS,
    )
    before_tables = wfx("executions", "list")
    tables_created = wfx.json("tables", "create")
    tables_created_again = wfx("tables", "create")
    flow = _flow(wfx)

    client = served_client("dynamodb", endpoint)
    names = {
        n for page in client.get_paginator("list_tables").paginate() for n in page["TableNames"]
    }
    by_date = client.query(
        TableName="WorkflowExecutionsStorageTableV2",
        IndexName="WorkflowExecutionsByDateGSI",
        KeyConditionExpression="allListPartition = :p",
        ExpressionAttributeValues={":p": {"S": "execution"}},
    )
    by_date_ids = [item["workflowExecutionId"]["S"] for item in by_date["Items"]]
    return DynamoDbFlow(
        flow, before_tables, tables_created, tables_created_again, names, by_date_ids
    )


@pytest.fixture(scope="module")
def on_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Flow:
    return _flow(Wfx(tmp_path_factory.mktemp("sqlite") / "home"))


# -- DynamoDB over HTTP -----------------------------------------------------------------------


def test_before_the_tables_exist_the_cli_says_to_create_them(on_dynamodb: DynamoDbFlow) -> None:
    outcome = on_dynamodb.before_tables
    assert outcome.code == 3, str(outcome)
    [line] = outcome.stderr_lines
    assert line.startswith("error: ")
    assert "wfx tables create" in line


def test_tables_create_makes_every_seed_table_and_the_wfx_ones(on_dynamodb: DynamoDbFlow) -> None:
    assert on_dynamodb.tables_created["store"] == "dynamodb"
    assert set(on_dynamodb.tables_created["tables"]) == SEED_TABLES | WFX_TABLES
    assert on_dynamodb.table_names >= SEED_TABLES | WFX_TABLES  # as DynamoDB itself lists them


def test_creating_the_tables_again_changes_nothing(on_dynamodb: DynamoDbFlow) -> None:
    again = on_dynamodb.tables_created_again
    assert again.code == 0, str(again)
    assert again.stdout.startswith(f"{len(SEED_TABLES | WFX_TABLES)} tables ready on dynamodb")


def test_the_run_succeeds_and_reaches_the_global_list_index(on_dynamodb: DynamoDbFlow) -> None:
    flow = on_dynamodb.flow
    assert flow.shown["executionStatus"] == "SUCCEEDED"
    assert on_dynamodb.by_date_ids == [flow.execution_id]


@pytest.mark.parametrize("kind", LISTS)
def test_every_list_finds_the_run(on_dynamodb: DynamoDbFlow, kind: str) -> None:
    page = on_dynamodb.flow.lists[kind]
    assert [e["workflowExecutionId"] for e in page["Items"]] == [on_dynamodb.flow.execution_id]
    assert "NextToken" not in page  # as VAMS: said only when there is more


def test_the_published_workflow_is_listed_from_its_index(on_dynamodb: DynamoDbFlow) -> None:
    flow = on_dynamodb.flow
    assert [v["workflowId"] for v in flow.workflows["Items"]] == ["mesh-report"]
    assert flow.workflows["NextToken"] is None
    assert [v["workflowVersion"] for v in flow.versions["Items"]] == [1]


# -- the same answers as SQLite -----------------------------------------------------------------

_DATE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")
_GUID = re.compile(r"\b[0-9a-f]{32}\b")
_VERSION = re.compile(r"\b\d{20}-[0-9a-f]{8}\b")
# The one output whose bytes embed the execution id (the report names its run): its digest
# differs from run to run; every other digest must match.
_NAMES_ITS_RUN = "statistics.json"


def _comparable(value: Any, flow: Flow) -> Any:
    """The value with what must differ between two runs (ids, dates, versions, the home
    folder) replaced by placeholders; everything else, types included, kept as it is."""
    if isinstance(value, dict):
        names_its_run = value.get("relativeFilePath") == _NAMES_ITS_RUN
        return {
            key: "<varies>"
            if (key == "etag" and names_its_run) or key == "logId"  # a hash of run ids
            else _comparable(item, flow)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_comparable(item, flow) for item in value]
    if isinstance(value, str):
        text = value.replace(str(flow.home), "<home>")
        text = _DATE.sub("<date>", text)
        text = _GUID.sub("<id>", text)
        return _VERSION.sub("<version>", text)
    return value


def _names(value: Any) -> Any:
    """The shape alone: field names, nested, with list items merged."""
    if isinstance(value, dict):
        return {key: _names(item) for key, item in sorted(value.items())}
    if isinstance(value, list):
        merged: dict[str, Any] = {}
        for item in value:
            shape = _names(item)
            if isinstance(shape, dict):
                merged |= shape
        return [merged] if merged else []
    return type(value).__name__


def _answer(flow: Flow, answer: str) -> Any:
    """One command's parsed JSON answer: publish, import, run, list <kind> or show."""
    if answer.startswith("list "):
        return flow.lists[answer.removeprefix("list ")]
    by_command = {
        "publish": flow.published,
        "import": flow.imported,
        "run": flow.run,
        "show": flow.shown,
        "workflows": flow.workflows,
        "versions": flow.versions,
    }
    return by_command[answer]


ANSWERS = [
    "publish",
    "import",
    "run",
    *(f"list {kind}" for kind in LISTS),
    "show",
    "workflows",
    "versions",
]


@pytest.mark.parametrize("answer", ANSWERS)
def test_dynamodb_answers_with_the_same_field_names_as_sqlite(
    on_dynamodb: DynamoDbFlow, on_sqlite: Flow, answer: str
) -> None:
    assert _names(_answer(on_dynamodb.flow, answer)) == _names(_answer(on_sqlite, answer))


@pytest.mark.parametrize("answer", ANSWERS)
def test_dynamodb_answers_with_the_same_values_as_sqlite(
    on_dynamodb: DynamoDbFlow, on_sqlite: Flow, answer: str
) -> None:
    dynamodb = _comparable(_answer(on_dynamodb.flow, answer), on_dynamodb.flow)
    sqlite = _comparable(_answer(on_sqlite, answer), on_sqlite)
    assert dynamodb == sqlite


def test_both_stores_agree_on_every_status(on_dynamodb: DynamoDbFlow, on_sqlite: Flow) -> None:
    def statuses(flow: Flow) -> list[str]:
        steps = flow.shown["pipelines"]
        return [flow.shown["executionStatus"]] + [
            f"{s['pipelineId']}={s['executionStatus']}" for s in steps
        ]

    assert statuses(on_dynamodb.flow) == statuses(on_sqlite)
    assert statuses(on_sqlite) == [
        "SUCCEEDED",
        "mesh-statistics=SUCCEEDED",
        "mesh-normalize=SUCCEEDED",
        "mesh-preview=SUCCEEDED",
    ]
