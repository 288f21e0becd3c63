"""Steps of vams_rows.feature: a run VAMS 2.6 wrote (tests/vams_items.py), put in the tables
beside wfx as VAMS's own functions put it, then read and acted on through wfx's use cases."""

from __future__ import annotations

import hashlib
import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dependency_injector import providers
from pytest_bdd import given, parsers, then, when
from tests import vams_items as vams

from adapters.dynamodb.codec import to_wire
from adapters.sqlite.schema import build_schema
from adapters.sqlite.statements import TableSql
from adapters.tables import TABLE_SPECS, ResourceKeys
from application.ports.migration import ArchivedRun
from application.use_cases.abort_execution import AbortExecutionCommand
from application.use_cases.delete_execution import DeleteExecutionCommand
from application.use_cases.describe_execution import DescribeExecutionQuery
from application.use_cases.export_executions import ExportExecutionsCommand
from application.use_cases.get_execution_events import GetExecutionEventsQuery
from application.use_cases.get_execution_logs import GetExecutionLogsQuery
from application.use_cases.get_execution_metadata import GetExecutionMetadataQuery
from application.use_cases.list_executions import AssetListDirection, ListExecutionsQuery
from application.use_cases.redrive_execution import RedriveExecutionCommand
from domain.errors import DomainError, ExecutionNotFoundError
from domain.execution import ExecutionInput, PipelineExecution
from domain.statuses import ExecutionStatus, StepStatus
from entrypoints.container import Container
from features.steps.reading import details_of, step_named
from features.steps.stepfunctions_steps import ROLE_ARN, StepFunctions
from features.steps.stored_rows import StoredRows
from features.steps.world import World, split_list

Items = dict[ResourceKeys, list[dict[str, Any]]]

# What the first step registered, as VAMS stores a registration's logs: one group by ARN with an
# exact stream, one by name only (listed by the ARN derived from the run's log group).
_ACCOUNT_LOGS = "arn:aws:logs:us-east-1:111122223333:log-group:"
_REGISTERED_LOGS = [
    {
        "logGroupArn": f"{_ACCOUNT_LOGS}/aws/batch/job:*",
        "logGroupName": "",
        "logStreamName": "scan-jd/default/abc",
        "logStreamPrefix": "",
        "stageName": "ScanJob",
        "label": "scan container",
        "sourceType": "batch",
    },
    {
        "logGroupArn": "",
        "logGroupName": "/custom/mesh-tools",
        "logStreamName": "",
        "logStreamPrefix": "scan-",
        "stageName": "",
        "label": "",
        "sourceType": "",
    },
]


def _put(container: Container, storage: str, items: Items) -> None:
    """The items exactly as VAMS writes them, past wfx's adapters."""
    tables = container.tables()
    if storage == "dynamodb":
        client = container.dynamodb_client()
        for key, rows in items.items():
            for row in rows:
                client.put_item(TableName=tables.get_table_name(key), Item=to_wire(row))
        return
    schema = build_schema(tables)
    with container.sqlite_database().write() as connection:
        for key, rows in items.items():
            table = TableSql.render(schema.tables[key])
            connection.executemany(table.insert, table.rows(rows))


@given(parsers.parse('VAMS wrote a run that ended SUCCEEDED, as run "{label}"'))
def _(container: Container, storage: str, world: World, label: str) -> None:
    _put(container, storage, vams.vams_run())
    world.runs[label] = vams.EXECUTION_ID


@given(
    parsers.parse(
        'VAMS wrote a run that ended SUCCEEDED, as run "{label}", its first step having '
        "registered logs"
    )
)
def _(container: Container, storage: str, world: World, label: str) -> None:
    items = vams.vams_run()
    items[ResourceKeys.PIPELINE_EXECUTIONS][0]["registeredLogs"] = _REGISTERED_LOGS
    _put(container, storage, items)
    world.runs[label] = vams.EXECUTION_ID


@given(parsers.parse('VAMS wrote a run still RUNNING on Step Functions, as run "{label}"'))
def _(
    container: Container,
    storage: str,
    stepfunctions: StepFunctions,
    world: World,
    label: str,
) -> None:
    client = stepfunctions.client
    waiting = {"StartAt": "Wait", "States": {"Wait": {"Type": "Wait", "Seconds": 600, "End": True}}}
    machine = client.create_state_machine(
        name="vams-wf-vams", definition=json.dumps(waiting), roleArn=ROLE_ARN
    )["stateMachineArn"]
    arn = client.start_execution(stateMachineArn=machine, name=vams.EXECUTION_ID)["executionArn"]
    items = vams.vams_run("RUNNING", ("SUCCEEDED", "RUNNING", "NEW"))
    items[ResourceKeys.WORKFLOW_EXECUTIONS][0] |= {
        "workflow_arn": machine,
        "workflow_execution_arn": arn,
    }
    _put(container, storage, items)
    # the run is on Step Functions: every read and the abort ask moto's
    container.stepfunctions_client.override(providers.Object(client))
    world.runs[label] = vams.EXECUTION_ID


# -- lists ---------------------------------------------------------------------------------------


def _listed(container: Container, world: World, **scope: Any) -> list[str]:
    page = container.list_executions().execute(ListExecutionsQuery(limit=100, **scope))
    return world.labels([e.workflow_execution_id for e in page.items])


@then(parsers.parse('the runs that read asset "{asset}" are "{labels}"'))
def _(container: Container, world: World, asset: str, labels: str) -> None:
    listed = _listed(container, world, asset=asset, direction=AssetListDirection.READ)
    assert listed == split_list(labels)


@then(parsers.parse('the runs that wrote to asset "{asset}" are "{labels}"'))
def _(container: Container, world: World, asset: str, labels: str) -> None:
    listed = _listed(container, world, asset=asset, direction=AssetListDirection.WROTE)
    assert listed == split_list(labels)


@then(parsers.re(r'the list of executions with status (?P<status>\w+) is "(?P<labels>[^"]*)"'))
def _(container: Container, world: World, status: str, labels: str) -> None:
    assert _listed(container, world, status=ExecutionStatus(status)) == split_list(labels)


# -- show ----------------------------------------------------------------------------------------


@then(parsers.parse('run "{label}" is shown {status:w}, triggered by {user:w} in group "{group}"'))
def _(container: Container, world: World, label: str, status: str, user: str, group: str) -> None:
    execution = details_of(container, world.run(label)).execution
    assert execution.status is ExecutionStatus(status), execution
    assert (execution.triggered_by_user_id, execution.execution_group_id) == (user, group)


def _steps(container: Container, world: World, label: str) -> list[PipelineExecution]:
    return [entry.step for entry in details_of(container, world.run(label)).steps]


@then(parsers.parse('run "{label}" shows the steps "{names}" in chain order, each {status:w}'))
def _(container: Container, world: World, label: str, names: str, status: str) -> None:
    steps = _steps(container, world, label)
    assert [s.pipeline_id for s in steps] == split_list(names)
    assert [s.pipeline_execution_id for s in steps] == list(vams.STEPS)
    assert {s.status for s in steps} == {StepStatus(status)}


@then(parsers.parse('run "{label}" shows the steps "{names}" as "{statuses}"'))
def _(container: Container, world: World, label: str, names: str, statuses: str) -> None:
    steps = _steps(container, world, label)
    assert [s.pipeline_id for s in steps] == split_list(names)
    assert [s.status.value for s in steps] == split_list(statuses)


def _selection(row: ExecutionInput) -> str:
    version = "at its version" if row.version_id == vams.FILE_VERSION else "at no version"
    assert row.version_id in (vams.FILE_VERSION, ""), row
    return f"{row.input_asset_file_key} {version}"


@then(parsers.parse('run "{label}" shows as its inputs the selections "{selections}"'))
def _(container: Container, world: World, label: str, selections: str) -> None:
    inputs = details_of(container, world.run(label)).inputs
    assert sorted(_selection(row) for row in inputs) == sorted(split_list(selections))
    assert {(row.database_id, row.asset_id) for row in inputs} == {vams.INPUT_ASSET}


@then(parsers.parse('run "{label}" shows the outputs VAMS recorded for the step "{name}"'))
def _(container: Container, world: World, label: str, name: str) -> None:
    outputs = step_named(details_of(container, world.run(label)), name).outputs
    assert {(f.file_type, f.kind_path, f.size) for f in outputs.files} == {
        ("file", "bunny.glb", 52311),
        ("preview", "bunny.png", 9120),
    }
    assert {(m.target_file_path, m.metadata_key) for m in outputs.metadata} == {
        ("/", "polycount"),
        ("/bunny.glb", "format"),
    }
    assert [r.relative_file_path for r in outputs.results] == ["report.txt"]
    [log] = outputs.logs
    assert "converted 1 mesh" in log.message


# -- the command line ----------------------------------------------------------------------------


@dataclass
class CliOutcome:
    code: int
    stdout: str
    stderr: str


@when(parsers.parse('alice runs "wfx {command}"'), target_fixture="cli")
def _(storage: str, tmp_path: Path, world: World, command: str) -> CliOutcome:
    """In-process, on the scenario's store; a run's label stands for its id."""
    from tests.cli_in_process import invoke_wfx

    environment = {
        "WFX_STORE": storage,
        "WFX_HOME": str(tmp_path / "home"),
        "WFX_DB": str(tmp_path / "wfx.db"),
        "WFX_USER": "alice",
    }
    arguments = [world.runs.get(word, word) for word in shlex.split(command)]
    outcome = invoke_wfx(arguments, env=environment)
    return CliOutcome(outcome.exit_code, outcome.stdout, outcome.stderr)


@then(parsers.parse('the command succeeds, its JSON listing run "{label}"'))
def _(cli: CliOutcome, world: World, label: str) -> None:
    assert cli.code == 0, cli
    listed = json.loads(cli.stdout)["Items"]
    assert [item["workflowExecutionId"] for item in listed] == [world.run(label)]


@then(
    parsers.parse(
        'the command succeeds, its JSON showing run "{label}" {status:w} with the steps "{names}"'
    )
)
def _(cli: CliOutcome, world: World, label: str, status: str, names: str) -> None:
    assert cli.code == 0, cli
    shown = json.loads(cli.stdout)
    assert shown["workflowExecutionId"] == world.run(label)
    assert shown["executionStatus"] == status
    steps = [entry["pipelineId"] for entry in shown["pipelines"]]
    assert steps == split_list(names)


@then(parsers.parse('the command succeeds, printing no event and saying "{text}"'))
def _(cli: CliOutcome, text: str) -> None:
    assert cli.code == 0, cli
    assert cli.stdout == "" and text in cli.stderr, cli


# -- details metadata ----------------------------------------------------------------------------


def _paged(container: Container, world: World, label: str, collection: str, size: int) -> list[Any]:
    items: list[Any] = []
    token: str | None = None
    for _ in range(50):
        query = GetExecutionMetadataQuery(
            workflow_execution_id=world.run(label),
            collection=collection,
            max_items=size,
            starting_token=token,
        )
        page = container.get_execution_metadata().execute(query)
        items.extend(page.items)
        token = page.next_token
        if token is None:
            return items
    raise AssertionError("the pages never end")


@then(
    parsers.parse(
        'paging the "inputs" of run "{label}" {size:d} at a time gives each of its '
        "{count:d} selections once"
    )
)
def _(container: Container, world: World, label: str, size: int, count: int) -> None:
    keys = [row.input_asset_file_key for row in _paged(container, world, label, "inputs", size)]
    assert sorted(keys) == ["/asset-a/bunny.obj", "/asset-a/meshes/"]
    assert len(keys) == count


@then(
    parsers.parse(
        'paging the "pipelineExecutions" of run "{label}" {size:d} at a time gives "{names}"'
    )
)
def _(container: Container, world: World, label: str, size: int, names: str) -> None:
    steps = _paged(container, world, label, "pipelineExecutions", size)
    assert [step.pipeline_id for step in steps] == split_list(names)


@then(
    parsers.parse(
        'paging the "{collection}" metadata of run "{label}" 1 at a time gives the rows "{keys}"'
    )
)
def _(container: Container, world: World, collection: str, label: str, keys: str) -> None:
    rows = _paged(container, world, label, collection, 1)
    # a metadata page names each row with the step it belongs to
    assert [paged.row.row_key for paged in rows] == split_list(keys)


# -- logs ----------------------------------------------------------------------------------------


def _vams_log_id(kind: str, group_arn: str, stream: str = "", prefix: str = "") -> str:
    """VAMS's logId (availableLogs.py): sha256 of the JSON list [kind, group ARN without its
    ':*', stream, prefix], its first 16 hex digits."""
    group = group_arn.removesuffix(":*")
    payload = json.dumps([kind, group, stream, prefix]).encode("utf-8")
    return hashlib.sha256(payload).hexdigest()[:16]


@then(parsers.parse('the step "{name}" of run "{label}" offers the logIds VAMS lists for it'))
def _(container: Container, world: World, name: str, label: str) -> None:
    offered = step_named(details_of(container, world.run(label)), name).available_logs
    # VAMS: the Lambda's own group, then the registered entries in order; a group known by name
    # is placed in the account and region of the run's log group
    expected = [
        _vams_log_id("invocation", f"{_ACCOUNT_LOGS}/aws/lambda/vams-{name}"),
        _vams_log_id("registered", f"{_ACCOUNT_LOGS}/aws/batch/job", "scan-jd/default/abc"),
        _vams_log_id("registered", f"{_ACCOUNT_LOGS}/custom/mesh-tools", "", "scan-"),
    ]
    assert [(str(log.kind), log.log_id) for log in offered] == list(
        zip(["invocation", "registered", "registered"], expected, strict=True)
    )


@then(parsers.parse('the logs of run "{label}" are read, its run log as VAMS wrote it'))
def _(container: Container, world: World, label: str) -> None:
    query = GetExecutionLogsQuery(workflow_execution_id=world.run(label))
    logs = container.get_execution_logs().execute(query)
    assert logs.run_log == "run log", logs  # the main row's executionLog, as VAMS wrote it


# -- events and describe -------------------------------------------------------------------------


@then(parsers.parse('the events of run "{label}" are answered: none'))
def _(container: Container, world: World, label: str) -> None:
    query = GetExecutionEventsQuery(workflow_execution_id=world.run(label))
    page = container.get_execution_events().execute(query)
    # wfx's event log holds nothing of a run VAMS ran: an empty answer, not a failure
    assert page.items == () and page.next_token is None, page


@then(
    parsers.parse('the description of run "{label}" names its Step Functions execution, {status:w}')
)
def _(container: Container, world: World, label: str, status: str) -> None:
    query = DescribeExecutionQuery(workflow_execution_id=world.run(label))
    described = container.describe_execution().execute(query)
    assert described.status == status, described
    assert described.execution_arn.endswith(f":execution:vams-wf-vams:{vams.EXECUTION_ID}")
    assert described.name == vams.EXECUTION_ID


@given(
    parsers.parse(
        "VAMS wrote a run that ended SUCCEEDED long ago, which Step Functions no longer holds, "
        'as run "{label}"'
    )
)
def _(
    container: Container, storage: str, stepfunctions: StepFunctions, world: World, label: str
) -> None:
    _put(container, storage, vams.vams_run())
    container.stepfunctions_client.override(providers.Object(stepfunctions.client))
    world.runs[label] = vams.EXECUTION_ID


@then(parsers.parse('the description of run "{label}" is {status:w}, from its rows'))
def _(container: Container, world: World, label: str, status: str) -> None:
    query = DescribeExecutionQuery(workflow_execution_id=world.run(label))
    described = container.describe_execution().execute(query)
    assert described.status == status, described
    assert described.execution_arn == vams.EXECUTION_ARN
    assert described.state_machine_arn == vams.STATE_MACHINE
    assert described.start_date.strftime("%Y-%m-%dT%H:%M:%SZ") == vams.STARTED


# -- abort ---------------------------------------------------------------------------------------


@when(parsers.parse('alice aborts run "{label}"'))
def _(container: Container, world: World, label: str) -> None:
    command = AbortExecutionCommand(workflow_execution_id=world.run(label))
    world.aborted = container.abort_execution().execute(command).execution


@then(parsers.parse('the abort answers run "{label}" {status:w}'))
def _(world: World, label: str, status: str) -> None:
    assert world.aborted is not None
    assert world.aborted.workflow_execution_id == world.run(label)
    assert world.aborted.status is ExecutionStatus(status), world.aborted


@then(parsers.parse('the main row and the step rows of run "{label}" are as VAMS wrote them'))
def _(stored_rows: StoredRows, world: World, label: str) -> None:
    written = vams.vams_run()
    main, steps = ResourceKeys.WORKFLOW_EXECUTIONS, ResourceKeys.PIPELINE_EXECUTIONS
    assert stored_rows.items(main, "workflowExecutionId", world.run(label)) == written[main]
    stored = stored_rows.items(steps, "workflowExecutionId", world.run(label))

    def by_id(item: dict[str, Any]) -> str:
        return str(item["pipelineExecutionId"])

    assert sorted(stored, key=by_id) == sorted(written[steps], key=by_id)


@then(parsers.parse('the command is refused naming "{text}"'))
def _(world: World, text: str) -> None:
    assert world.refusal is not None, "the command was carried out"
    assert text in str(world.refusal), str(world.refusal)
    world.refusal = None


@then(parsers.parse('the step "{name}" of run "{label}" kept the dates VAMS wrote'))
def _(container: Container, world: World, name: str, label: str) -> None:
    step = step_named(details_of(container, world.run(label)), name).step
    index = vams.PIPELINES.index(name)
    started, stopped = vams.STEP_DATES[index]
    assert step.start_date is not None and step.stop_date is not None, step
    written = (
        step.start_date.strftime("%Y-%m-%dT%H:%M:%SZ"),
        step.stop_date.strftime("%Y-%m-%dT%H:%M:%SZ"),
    )
    assert written == (started, stopped)


@then(parsers.parse('the Step Functions execution of run "{label}" is {status:w}'))
def _(stepfunctions: StepFunctions, world: World, label: str, status: str) -> None:
    # asked of Step Functions itself: the run's rows may be gone
    client = stepfunctions.client
    [machine] = client.list_state_machines()["stateMachines"]
    executions = client.list_executions(stateMachineArn=machine["stateMachineArn"])
    [execution] = [e for e in executions["executions"] if e["name"] == world.run(label)]
    assert execution["status"] == status, execution


@when(parsers.parse('alice redrives run "{label}"'))
def _(container: Container, world: World, label: str) -> None:
    command = RedriveExecutionCommand(workflow_execution_id=world.run(label))
    try:
        container.redrive_execution().execute(command)
    except DomainError as refused:
        world.refusal = refused


# -- rerun ---------------------------------------------------------------------------------------


@then(parsers.parse('the execution selected "{selections}" and writes to "{output}"'))
def _(container: Container, world: World, selections: str, output: str) -> None:
    configuration = details_of(container, world.execution_id).configuration
    assert configuration is not None
    assert sorted(configuration.input_selections) == sorted(split_list(selections))
    assert configuration.output_asset_key == output.replace("/", ":")


# -- export --------------------------------------------------------------------------------------


@when("every run is exported", target_fixture="exported")
def _(container: Container) -> list[ArchivedRun]:
    return list(container.export_executions().execute(ExportExecutionsCommand()))


@then(parsers.parse('the export holds run "{label}" with every item VAMS wrote'))
def _(exported: list[ArchivedRun], world: World, label: str) -> None:
    [run] = [run for run in exported if run.workflow_execution_id == world.run(label)]
    written = vams.vams_run()
    by_table: dict[str, list[dict[str, Any]]] = {}
    for archived in run.items:
        by_table.setdefault(archived.table, []).append(dict(archived.item))
    for key, rows in written.items():
        held = by_table.get(key.value, [])
        for row in rows:
            assert any(row.items() <= item.items() for item in held), (key.value, row, held)


@when("the export is imported")
def _(container: Container, exported: list[ArchivedRun]) -> None:
    result = container.import_executions().execute(exported)
    assert result.conflicts == (), result


@then(parsers.parse('every item VAMS wrote of run "{label}" is back as it was'))
def _(stored_rows: StoredRows, world: World, label: str) -> None:
    for key, rows in vams.vams_run().items():
        attribute = TABLE_SPECS[key].partition.name
        for value in {str(row[attribute]) for row in rows}:
            stored = stored_rows.items(key, attribute, value)
            expected = [row for row in rows if row[attribute] == value]
            assert len(stored) == len(expected), (key.value, stored)
            for row in expected:
                assert row in stored, (key.value, row, stored)


# -- delete --------------------------------------------------------------------------------------


@when(parsers.re(r'alice deletes run "(?P<label>[^"]+)"(?P<forced>, forced)?$'))
def _(container: Container, world: World, label: str, forced: str | None) -> None:
    command = DeleteExecutionCommand(workflow_execution_id=world.run(label), force=bool(forced))
    try:
        deleted = container.delete_execution().execute(command)
    except DomainError as refused:
        world.refusal = refused
        return
    assert deleted.deleted and deleted.aborted == bool(forced), deleted


@then(parsers.parse('run "{label}" is not found'))
def _(container: Container, world: World, label: str) -> None:
    try:
        details_of(container, world.run(label))
    except ExecutionNotFoundError:
        return
    except DomainError as other:
        raise AssertionError(f"not a not-found: {other!r}") from other
    raise AssertionError("the run is still there")


@then(parsers.parse('no table holds an item of run "{label}"'))
def _(stored_rows: StoredRows, world: World, label: str) -> None:
    for key, rows in vams.vams_run().items():
        # each table by its partition: the run's id, or each of its steps' ids
        attribute = TABLE_SPECS[key].partition.name
        values = {str(row[attribute]) for row in rows}
        for value in values:
            assert stored_rows.items(key, attribute, value) == [], (key.name, value)
