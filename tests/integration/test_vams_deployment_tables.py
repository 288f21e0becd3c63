"""`VAMS_RESOURCE_PARAM_PREFIX=/vams/prod wfx executions list` on moto: the table names come from
the deployment's SSM parameters, and a table or a parameter that is not there is one line.

The CLI runs in this process (its `main`, as the console script calls it), inside `mock_aws()`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from adapters.dynamodb.execution_store import DynamoDbExecutionStore
from adapters.dynamodb.missing_tables import name_missing_tables
from adapters.dynamodb.schema import create_table_request, create_tables
from adapters.local.object_store import FilesystemObjectStore
from adapters.tables import TABLE_SPECS, VAMS_TABLES, ResourceKeys, TableNames
from conftest import AWS_REGION, FAKE_AWS_ENVIRONMENT
from entrypoints.cli.errors import exit_for
from entrypoints.cli.main import main
from tests.contract.builders import a_launch, write_launch

pytestmark = pytest.mark.integration

PREFIX = "/vams/prod"
EXECUTION_ID = "0123456789abcdef0123456789abcdef"
# as a VAMS stack names its tables: generated, nothing like wfx's defaults
VAMS_NAMES = {key: f"vams-prod-{key.value.lower()}-1A2B3C" for key in VAMS_TABLES}
EARLIER = ResourceKeys.WORKFLOW_EXECUTIONS_V1


@dataclass(frozen=True)
class Outcome:
    code: int
    stdout: str
    stderr: str


@dataclass
class Deployment:
    dynamodb: Any
    ssm: Any
    capsys: pytest.CaptureFixture[str]

    def wfx(self, *args: str) -> Outcome:
        self.capsys.readouterr()
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(sys, "argv", ["wfx", *args])
            patch.setattr(sys, "excepthook", sys.excepthook)
            with pytest.raises(SystemExit) as ended:
                main()
        captured = self.capsys.readouterr()
        return Outcome(int(ended.value.code or 0), captured.out, captured.err)


@pytest.fixture
def deployment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Iterator[Deployment]:
    """A VAMS deployment: its execution tables under its own names, each named by an SSM
    parameter under /vams/prod, one run stored there; wfx's own tables beside them, as
    `wfx tables create` makes them."""
    for name in ("WFX_STORE", "WFX_DB", "WFX_RUNNER", "WFX_TABLE_PREFIX", "WFX_DYNAMODB_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in FAKE_AWS_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("WFX_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("VAMS_RESOURCE_PARAM_PREFIX", PREFIX)
    with mock_aws():
        dynamodb = boto3.client("dynamodb", region_name=AWS_REGION)
        ssm = boto3.client("ssm", region_name=AWS_REGION)
        for key, name in VAMS_NAMES.items():
            parameter = f"{PREFIX}/{VAMS_TABLES[key].parameter}"
            ssm.put_parameter(Name=parameter, Value=name, Type="String")
        names = TableNames(deployment=VAMS_NAMES)
        create_tables(dynamodb, names)
        dynamodb.create_table(**create_table_request(TABLE_SPECS[EARLIER], VAMS_NAMES[EARLIER]))
        store = DynamoDbExecutionStore(
            dynamodb, names, objects=FilesystemObjectStore(tmp_path / "objects")
        )
        write_launch(store, a_launch(EXECUTION_ID))
        yield Deployment(dynamodb, ssm, capsys)


def test_one_setting_lists_the_runs_of_a_vams_deployment(deployment: Deployment) -> None:
    listed = deployment.wfx("executions", "list", "--json")

    assert listed.code == 0, listed.stderr
    ids = [row["workflowExecutionId"] for row in json.loads(listed.stdout)["Items"]]
    assert ids == [EXECUTION_ID]


def test_a_missing_parameter_is_one_line_naming_it(deployment: Deployment) -> None:
    deployment.ssm.delete_parameter(Name=f"{PREFIX}/dynamoTables/workflowExecutionsStorageV2")

    listed = deployment.wfx("executions", "list")

    assert listed.code == 3
    assert listed.stderr.startswith("error: VAMS_RESOURCE_PARAM_PREFIX (/vams/prod): ")
    assert f"{PREFIX}/dynamoTables/workflowExecutionsStorageV2 does not exist" in listed.stderr
    assert "WORKFLOW_EXECUTION_STORAGE_TABLE_V2_NAME or WFX_TABLE_WORKFLOW_EXECUTIONS" in (
        listed.stderr
    )
    assert len(listed.stderr.splitlines()) == 1 and "Traceback" not in listed.stderr


def test_a_missing_wfx_table_is_one_line_naming_it_and_how_to_create_it(
    deployment: Deployment,
) -> None:
    own = _drop_wfx_own_tables(deployment)

    listed = deployment.wfx("executions", "list")

    assert listed.code == 3
    assert len(listed.stderr.splitlines()) == 1 and "Traceback" not in listed.stderr
    assert listed.stderr.startswith("error: table Wfx"), listed.stderr
    (name,) = (name for name in own if f"table {name} " in listed.stderr)
    key = next(spec.key.value for spec in TABLE_SPECS.values() if spec.default_name == name)
    assert "the VAMS deployment /vams/prod has none of wfx's own tables" in listed.stderr
    assert f"`wfx tables create`, or name an existing table with WFX_TABLE_{key}" in (listed.stderr)


def _drop_wfx_own_tables(deployment: Deployment) -> set[str]:
    own = {spec.default_name for spec in TABLE_SPECS.values() if spec.key not in VAMS_TABLES}
    for name in own:
        deployment.dynamodb.delete_table(TableName=name)
    return own


def test_wfx_tables_create_adds_only_wfx_own_tables_beside_vams(deployment: Deployment) -> None:
    _drop_wfx_own_tables(deployment)

    created = deployment.wfx("tables", "create", "--json")

    assert created.code == 0, created.stderr
    listed = set(deployment.dynamodb.list_tables()["TableNames"])
    own = {spec.default_name for spec in TABLE_SPECS.values() if not spec.from_seed}
    assert listed == own | set(VAMS_NAMES.values())


def test_a_transaction_on_missing_tables_names_them_all(
    moto_dynamodb_client: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("VAMS_RESOURCE_PARAM_PREFIX", PREFIX)
    monkeypatch.delenv("WFX_TABLE_PREFIX", raising=False)
    # a client of its own: the fixture's is shared by the session
    client = name_missing_tables(boto3.client("dynamodb", region_name=AWS_REGION))
    events, costs = "WfxExecutionEventsTable", "WfxCostLedgerTable"
    item = {"workflowExecutionId": {"S": EXECUTION_ID}}
    with pytest.raises(ClientError) as refused:
        client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": events, "Item": item | {"sequenceNumber": {"N": "1"}}}},
                {"Put": {"TableName": costs, "Item": item | {"entryKey": {"S": "1"}}}},
            ]
        )
    assert refused.value.response["Error"]["Code"] == "ResourceNotFoundException"

    with pytest.raises(SystemExit) as ended:
        exit_for(refused.value)

    assert ended.value.code == 3
    stderr = capsys.readouterr().err
    assert stderr.startswith(
        f"error: one of the tables {events} (WFX_TABLE_EXECUTION_EVENTS), {costs} "
        "(WFX_TABLE_COST_LEDGER) does not exist: the VAMS deployment /vams/prod has none"
    ), stderr
    assert len(stderr.splitlines()) == 1
