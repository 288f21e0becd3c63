"""`wfx run --runner stepfunctions` as a user runs it: the CLI in a subprocess on SQLite, Step
Functions on moto's server in this process, reached through boto3's AWS_ENDPOINT_URL_SFN.

Every command runs in the module fixture and the tests read what it captured: under xdist another
test's `mock_aws()` may reset moto's shared backends between two tests of this module.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest

from adapters.aws.stepfunctions import StepFunctionsDeployer
from adapters.sqlite.catalogs import SqliteWorkflowCatalog
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.schema import build_schema
from adapters.tables import ResourceKeys, TableNames
from tests.e2e.cli import FAKE_AWS, GUID, TRIVIAL_WORKFLOW, Outcome, Wfx
from tests.integration.moto_server import moto_server

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("cli-run-on-step-functions")]

ROLE_ARN = "arn:aws:iam::123456789012:role/wfx-state-machine"
LOG_GROUP_ARN = "arn:aws:logs:us-east-1:123456789012:log-group:/wfx/state-machines:*"
UNDEPLOYED_WORKFLOW = TRIVIAL_WORKFLOW.read_text().replace(
    "workflowId: trivial", "workflowId: kept"
)


@dataclass(frozen=True)
class Captured:
    state_machine_arn: str
    run: Outcome
    run_json: Outcome
    shown: Outcome
    described: dict[str, Any]
    main_row: dict[str, Any]
    undeployed: Outcome
    undeployed_list: Outcome
    unknown_runner: Outcome


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with moto_server() as url:
        yield url


def _deploy_trivial(home: Path, endpoint: str) -> str:
    """Stands in for `wfx workflows deploy`: a one-state machine, recorded on version 1."""
    client = boto3.client(
        "stepfunctions",
        endpoint_url=endpoint,
        region_name=FAKE_AWS["AWS_DEFAULT_REGION"],
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    definition = {"StartAt": "Wait", "States": {"Wait": {"Type": "Pass", "End": True}}}
    arn = StepFunctionsDeployer(client).deploy(
        "wfx-demo-trivial-v1", definition, ROLE_ARN, LOG_GROUP_ARN
    )
    database = SqliteDatabase(home / "wfx.db")
    try:
        SqliteWorkflowCatalog(database, TableNames()).record_deployment("demo", "trivial", 1, arn)
    finally:
        database.close()
    return arn


def _main_row(home: Path, execution_id: str) -> dict[str, Any]:
    """The run's main row as stored (VAMS's attributes, raw)."""
    table = build_schema(TableNames()).tables[ResourceKeys.WORKFLOW_EXECUTIONS].name
    with sqlite3.connect(home / "wfx.db") as connection:
        for (text,) in connection.execute(f'SELECT item FROM "{table}"'):
            item: dict[str, Any] = json.loads(text)
            if item["workflowExecutionId"] == execution_id:
                return item
    raise AssertionError(f"no main row for {execution_id}")


@pytest.fixture(scope="module")
def captured(server: str, tmp_path_factory: pytest.TempPathFactory) -> Captured:
    home = tmp_path_factory.mktemp("sfn-home")
    wfx = Wfx(home, AWS_ENDPOINT_URL_SFN=server, WFX_SFN_LOG_GROUP_ARN=LOG_GROUP_ARN, **FAKE_AWS)
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    undeployed_file = home / "kept.yaml"
    undeployed_file.write_text(UNDEPLOYED_WORKFLOW)
    wfx.ok("workflows", "publish", str(undeployed_file))
    state_machine_arn = _deploy_trivial(home, server)

    run = wfx("run", "demo/trivial", "--runner", "stepfunctions")
    execution_id = run.stdout.strip()
    on_aws = wfx.with_environment(WFX_RUNNER="stepfunctions")
    shown = on_aws("executions", "show", execution_id, "--json")
    client = boto3.client(
        "stepfunctions",
        endpoint_url=server,
        region_name=FAKE_AWS["AWS_DEFAULT_REGION"],
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    executions = client.list_executions(stateMachineArn=state_machine_arn)["executions"]
    (mine,) = [e for e in executions if e["name"] == execution_id]
    return Captured(
        state_machine_arn=state_machine_arn,
        run=run,
        run_json=on_aws("run", "demo/trivial", "--json"),
        shown=shown,
        described=client.describe_execution(executionArn=mine["executionArn"]),
        main_row=_main_row(home, execution_id),
        undeployed=wfx("run", "demo/kept", "--runner", "stepfunctions"),
        undeployed_list=wfx("executions", "list", "--workflow", "demo/kept", "--json"),
        unknown_runner=wfx("run", "demo/trivial", "--runner", "lambda"),
    )


def test_run_prints_the_execution_id_and_returns_while_the_run_goes_on(
    captured: Captured,
) -> None:
    run = captured.run
    assert run.code == 0, str(run)
    assert GUID.match(run.stdout.strip()), str(run)
    assert captured.described["status"] == "RUNNING"  # moto never runs it: nobody waited


def test_the_step_functions_execution_is_named_after_the_execution_id(captured: Captured) -> None:
    execution_id = captured.run.stdout.strip()
    arn = captured.described["executionArn"]
    assert captured.described["name"] == execution_id
    assert arn.endswith(f":{execution_id}")
    assert arn in captured.run.stderr, str(captured.run)  # the ARN is shown, apart from the id


def test_the_shown_run_names_its_orchestrator_and_withholds_its_arn(captured: Captured) -> None:
    """As VAMS: the ARN is kept from the caller's documents (describe is where it is read)."""
    assert captured.shown.code == 0, str(captured.shown)
    execution = captured.shown.json()
    assert execution["orchestrator"] == "stepfunctions"
    assert "executionArn" not in execution
    assert captured.described["executionArn"] not in captured.shown.stdout
    assert execution["executionStatus"] == "RUNNING"


def test_the_main_row_names_the_log_group_the_run_logs_to(captured: Captured) -> None:
    """WFX_SFN_LOG_GROUP_ARN, the group the deploy points the state machine's logging at."""
    assert captured.main_row["workflow_execution_arn"] == captured.described["executionArn"]
    assert captured.main_row["executionLogGroupArn"] == LOG_GROUP_ARN


def test_wfx_runner_in_the_environment_sends_a_run_to_step_functions(captured: Captured) -> None:
    assert captured.run_json.code == 0, str(captured.run_json)
    record = captured.run_json.json()
    assert record["orchestrator"] == "stepfunctions"
    assert not {"executionArn", "stateMachineArn"} & record.keys(), record


def test_a_version_never_deployed_is_refused_naming_the_deploy_command(
    captured: Captured,
) -> None:
    outcome = captured.undeployed
    assert outcome.code == 2, str(outcome)
    assert "wfx workflows deploy demo/kept" in outcome.stderr, str(outcome)
    listed = captured.undeployed_list
    assert listed.code == 0 and listed.json()["Items"] == [], str(listed)  # nothing written


def test_an_unknown_runner_is_refused_naming_the_option(captured: Captured) -> None:
    outcome = captured.unknown_runner
    assert outcome.code == 2, str(outcome)
    assert outcome.stderr.startswith("error: --runner: must be one of local, stepfunctions")
