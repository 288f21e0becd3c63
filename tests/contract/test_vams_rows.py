"""Rows exactly as VAMS 2.6 writes them (tests/vams_items.py: none of wfx's attributes) are read by
every store: the run is listed by every index, shows its status, steps in chain order, inputs and
outputs, answers authorization's questions, can be aborted and is deleted whole."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, cast

import pytest

from adapters.dynamodb.codec import to_wire
from adapters.sqlite.schema import build_schema
from adapters.sqlite.statements import TableSql
from adapters.tables import ResourceKeys, TableNames
from application.ports.executions import AssetDirection, ListScope, RowCollection
from application.ports.files import HeadRequest, ObjectStore
from application.result_texts import ResultTextReader
from application.run_writes import end_run
from application.use_cases.get_execution_metadata import (
    GetExecutionMetadata,
    GetExecutionMetadataQuery,
)
from domain.authorization import AssetKey
from domain.errors import UnreadableRowError
from domain.statuses import ExecutionStatus, StepStatus
from entrypoints.vams_details import VamsDetailsAnswer
from tests import vams_items as vams
from tests.contract.builders import write_change
from tests.contract.conftest import BACKENDS

Items = dict[ResourceKeys, list[dict[str, Any]]]


def _put(request: pytest.FixtureRequest, backend: str, items: Items) -> None:
    """The items written as they are, beside the store (as VAMS's own functions would)."""
    names = TableNames()
    if backend == "dynamodb":
        client = request.getfixturevalue("moto_dynamodb_client")
        for key, rows in items.items():
            for row in rows:
                client.put_item(TableName=names.get_table_name(key), Item=to_wire(row))
        return
    database = request.getfixturevalue(f"{backend}_database")
    schema = build_schema(names)
    with database.write() as connection:
        for key, rows in items.items():
            table = TableSql.render(schema.tables[key])
            connection.executemany(table.insert, table.rows(rows))


def _store_with(request: pytest.FixtureRequest, items: Items) -> Any:
    backend = request.param
    store = request.getfixturevalue(f"{backend}_execution_store")
    _put(request, backend, items)
    return store


@pytest.fixture(params=BACKENDS)
def finished(request: pytest.FixtureRequest) -> Any:
    return _store_with(request, vams.vams_run())


@pytest.fixture(params=BACKENDS)
def running(request: pytest.FixtureRequest) -> Any:
    return _store_with(request, vams.vams_run("RUNNING", ("SUCCEEDED", "RUNNING", "NEW")))


def test_a_vams_run_is_listed_by_every_index(finished: Any) -> None:
    for scope, partition in (
        (ListScope.ALL, None),
        (ListScope.WORKFLOW, ":".join(vams.WORKFLOW)),
        (ListScope.GROUP, "nightly"),
    ):
        page = finished.list_executions(scope, partition, 10, None)
        assert [e.workflow_execution_id for e in page.items] == [vams.EXECUTION_ID]
    for asset, direction in (
        (vams.INPUT_ASSET, AssetDirection.INPUT),
        (vams.OUTPUT_ASSET, AssetDirection.OUTPUT),
    ):
        refs = finished.asset_execution_refs(":".join(asset), direction, None, 10)
        assert [ref.workflow_execution_id for ref in refs] == [vams.EXECUTION_ID]


def test_a_vams_run_reads_as_the_step_functions_run_it_is(finished: Any) -> None:
    [execution] = finished.get_executions(
        finished.asset_execution_refs(":".join(vams.INPUT_ASSET), AssetDirection.INPUT, None, 1)
    )
    assert execution.status is ExecutionStatus.SUCCEEDED
    assert execution.orchestrator == "stepfunctions" and execution.workflow_version == 0
    assert execution.execution_arn == vams.EXECUTION_ARN
    assert execution.state_machine_arn == vams.STATE_MACHINE
    assert execution.execution_log_group_arn == vams.LOG_GROUP
    assert execution.execution_error is None and execution.execution_log == "run log"
    assert execution.execution_group_id == "nightly"


def test_a_vams_run_has_its_steps_in_chain_order_with_their_statuses(finished: Any) -> None:
    steps = finished.list_steps(vams.EXECUTION_ID)

    assert [s.pipeline_execution_id for s in steps] == list(vams.STEPS)
    assert [s.step_index for s in steps] == [0, 1, 2]
    assert all(s.status is StepStatus.SUCCEEDED for s in steps)
    assert [s.end_state for s in steps] == [False, False, True]
    assert steps[1].start_date is not None and steps[1].start_date.isoformat().startswith(
        "2026-11-30T10:01:01"
    )
    assert steps[2].wait_for_callback and steps[2].pipeline_resource_arn.endswith("mesh-report")


def test_a_vams_run_shows_its_inputs_configuration_and_outputs(finished: Any) -> None:
    details = finished.get_details(vams.EXECUTION_ID)

    keys = sorted(row.input_asset_file_key for row in details.inputs)
    assert keys == ["/asset-a/bunny.obj", "/asset-a/meshes/"]
    versions = {row.input_asset_file_key: row.version_id for row in details.inputs}
    assert (
        versions["/asset-a/meshes/"] == "" and versions["/asset-a/bunny.obj"] == vams.FILE_VERSION
    )
    assert details.configuration is not None
    assert details.configuration.output_asset_key == ":".join(vams.OUTPUT_ASSET)
    # paged too: wfx's resolved files' table holds none of the run's rows, its selections are read
    first = finished.list_rows(RowCollection.INPUTS, vams.EXECUTION_ID, None, 1)
    rest = finished.list_rows(RowCollection.INPUTS, vams.EXECUTION_ID, first[0].row_key, 5)
    assert [row.input_asset_file_key for row in first + rest] == keys
    assert finished.list_rows(RowCollection.INPUTS, vams.EXECUTION_ID, rest[-1].row_key, 5) == []
    assert details.configuration.specified_pipelines == tuple(
        ("vamsdb", pipeline) for pipeline in vams.PIPELINES
    )
    by_step = {step.step.pipeline_execution_id: step for step in details.steps}
    first, last = by_step[vams.STEPS[0]], by_step[vams.STEPS[2]]
    assert first.configuration is not None
    assert first.configuration.input_file_arity.value == "many"
    assert "databaseMetadata" in first.configuration.metadata_inputs
    assert {(m.asset_id, m.file_path) for m in first.input_metadata} == {
        ("", "/"),
        ("asset-a", "/"),
        ("asset-a", "/bunny.obj"),
    }
    assert dict(next(m for m in first.input_metadata if m.file_path == "/bunny.obj").metadata) == {
        "scale": "2",
        "tags": '["scan"]',
    }
    outputs = last.outputs
    # a path relative to its kind's folder, as VAMS records it; wfx's own shows a preview in
    # its folder of the outputs, and pages by the row's key
    assert {(f.file_type, f.kind_path, f.size, f.bucket) for f in outputs.files} == {
        ("file", "bunny.glb", 52311, vams.BUCKET),
        ("preview", "bunny.png", 9120, vams.BUCKET),
    }
    assert {f.relative_file_path for f in outputs.files} == {"bunny.glb", "preview/bunny.png"}
    assert {f.row_key for f in outputs.files} == {"file:bunny.glb", "preview:bunny.png"}
    assert {(m.target_file_path, m.metadata_key) for m in outputs.metadata} == {
        ("/", "polycount"),
        ("/bunny.glb", "format"),
    }
    assert [r.relative_file_path for r in outputs.results] == ["report.txt"]
    [log] = outputs.logs
    assert log.status == "SUCCEEDED" and "converted 1 mesh" in log.message


class _NoObjects:
    """An object store that holds nothing: what is asked of it is noted."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def read_heads(self, requests: Sequence[HeadRequest]) -> list[bytes | None]:
        self.asked.extend(request.key for request in requests)
        return [None for _ in requests]


def test_a_vams_run_serves_the_results_text_vams_stored_on_its_row(finished: Any) -> None:
    details = finished.get_details(vams.EXECUTION_ID)
    [result] = (r for step in details.steps for r in step.outputs.results)
    assert result.stored_text is not None and result.stored_text.content == "69451 faces"

    objects = _NoObjects()
    read = ResultTextReader(cast(ObjectStore, objects)).attach(details)
    for shown in (VamsDetailsAnswer.of(read), VamsDetailsAnswer.of(details)):  # read, or not
        [row] = shown.dump()["message"]["outputs"]["results"]
        assert (row["resultsContent"], row["resultsContentTruncated"]) == ("69451 faces", False)
    assert objects.asked == []  # the row holds the text: no object is read for it

    # held to the bound like a text read from an object, and said to be cut
    cut = ResultTextReader(cast(ObjectStore, objects), limit=5).attach(details)
    [row] = VamsDetailsAnswer.of(cut).dump()["message"]["outputs"]["results"]
    assert (row["resultsContent"], row["resultsContentTruncated"]) == ("69451", True)


def test_a_vams_run_answers_what_authorization_asks(finished: Any) -> None:
    facts = finished.access_facts([vams.EXECUTION_ID])[vams.EXECUTION_ID]

    assert facts.read_assets == (AssetKey(database_id="vamsdb", asset_id="asset-a"),)
    assert facts.written_asset == AssetKey(database_id="vamsdb", asset_id="asset-out")
    assert facts.metadata_databases == ("vamsdb",)


def test_an_open_vams_run_is_aborted_and_a_finished_step_left_alone(running: Any) -> None:
    run = running.get_run(vams.EXECUTION_ID)
    assert [s.status for s in run.steps] == [
        StepStatus.SUCCEEDED,
        StepStatus.RUNNING,
        StepStatus.NEW,
    ]
    now = datetime(2026, 11, 30, 10, 2, tzinfo=UTC)
    change = run.request_abort(now, "asked")
    assert change is not None and write_change(running, change) is not None
    end_run(running, vams.EXECUTION_ID, lambda run: run.abort(now, "", None))

    after = running.get_run(vams.EXECUTION_ID)
    assert after.execution.status is ExecutionStatus.ABORTED
    assert [s.status for s in after.steps] == [
        StepStatus.SUCCEEDED,  # VAMS's terminal rule: a finished step is never changed
        StepStatus.ABORTED,
        StepStatus.ABORTED,
    ]


def test_a_vams_run_is_deleted_from_every_table(finished: Any) -> None:
    assert finished.delete_execution(vams.EXECUTION_ID) is True
    assert finished.list_executions(ListScope.ALL, None, 10, None).items == ()
    assert finished.list_steps(vams.EXECUTION_ID) == []
    assert finished.delete_execution(vams.EXECUTION_ID) is False


def test_a_vams_run_pages_a_databases_metadata_apart_from_its_assets(finished: Any) -> None:
    read = GetExecutionMetadata(finished)

    def keys(collection: str) -> list[str]:
        query = GetExecutionMetadataQuery(
            workflow_execution_id=vams.EXECUTION_ID, collection=collection, max_items=1
        )
        found: list[str] = []
        while True:
            page = read.execute(query)
            found += [item.row.row_key for item in page.items]  # type: ignore[union-attr]
            if page.next_token is None:
                return found
            query = query.model_copy(update={"starting_token": page.next_token})

    assert keys("input") == ["vamsdb:asset-a:/", "vamsdb:asset-a:/bunny.obj"]
    assert keys("inputDatabase") == ["vamsdb::/"]


def _hand_edited() -> Items:
    """The run as a person or a script left it: statuses in lower case, dates as epoch seconds
    and without their `Z` (UTC, whatever the reader's time zone)."""
    items = vams.vams_run()
    main = items[ResourceKeys.WORKFLOW_EXECUTIONS][0]
    main.update(
        executionStatus="succeeded",
        executionStartDate=1796032800,  # 2026-11-30T10:00:00Z
        executionStopDate="2026-11-30T10:05:00.250000",  # kept to the second, as VAMS's
    )
    first, second, _ = items[ResourceKeys.PIPELINE_EXECUTIONS]
    first["executionStatus"] = "Succeeded"
    second["executionStartDate"] = 1796032861  # 2026-11-30T10:01:01Z
    return items


@pytest.fixture(params=BACKENDS)
def hand_edited(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield _store_with(request, _hand_edited())
    monkeypatch.undo()
    time.tzset()


def test_a_run_whose_statuses_and_dates_were_written_by_hand_reads_as_what_they_say(
    hand_edited: Any,
) -> None:
    [listed] = hand_edited.list_executions(ListScope.ALL, None, 10, None).items
    run = hand_edited.get_run(vams.EXECUTION_ID)

    for execution in (listed, run.execution):
        assert execution.status is ExecutionStatus.SUCCEEDED
        assert execution.execution_start_date == datetime(2026, 11, 30, 10, tzinfo=UTC)
        assert execution.execution_stop_date == datetime(2026, 11, 30, 10, 5, tzinfo=UTC)
    steps = hand_edited.list_steps(vams.EXECUTION_ID)
    assert [s.status for s in steps] == [StepStatus.SUCCEEDED] * 3
    assert steps[1].start_date == datetime(2026, 11, 30, 10, 1, 1, tzinfo=UTC)


@pytest.fixture(params=BACKENDS)
def cancelled(request: pytest.FixtureRequest) -> Any:
    items = vams.vams_run()
    items[ResourceKeys.WORKFLOW_EXECUTIONS][0]["executionStatus"] = "CANCELLED"
    items[ResourceKeys.PIPELINE_EXECUTIONS][2]["executionStartDate"] = "30/11/2026"
    return _store_with(request, items)


def test_a_row_no_wfx_status_or_date_reads_as_is_refused_naming_its_table_key_and_attribute(
    cancelled: Any, caplog: pytest.LogCaptureFixture
) -> None:
    assert cancelled.list_executions(ListScope.ALL, None, 10, None).items == ()
    [warning] = caplog.messages
    assert re.match(rf"warning: \S+V2 row {vams.EXECUTION_ID} .*'CANCELLED'.*left out", warning)
    with pytest.raises(UnreadableRowError, match=rf"row {vams.STEPS[2]} .*executionStartDate"):
        cancelled.list_steps(vams.EXECUTION_ID)


@pytest.fixture(params=BACKENDS)
def partly_unreadable(request: pytest.FixtureRequest) -> Any:
    """VAMS's run with its last step's row, an output file row of it, an input row and an
    input-metadata row of its first step each in a shape wfx cannot read."""
    items = vams.vams_run()
    items[ResourceKeys.PIPELINE_EXECUTIONS][1]["executionStopDate"] = "later"
    items[ResourceKeys.PIPELINE_OUTPUT_FILES][1]["fileSize"] = "big"
    items[ResourceKeys.WORKFLOW_EXECUTION_INPUTS][0].pop("databaseId")
    items[ResourceKeys.PIPELINE_INPUT_METADATA][2]["metadata"] = "x"
    return _store_with(request, items)


def test_details_that_leave_out_what_cannot_be_read_name_each_row_and_keep_the_rest(
    partly_unreadable: Any,
) -> None:
    store = partly_unreadable
    with pytest.raises(UnreadableRowError):
        store.get_details(vams.EXECUTION_ID)  # what a write or the runner reads

    details = store.get_details(vams.EXECUTION_ID, leave_out_unreadable=True)

    named = [(row.table, row.key, row.attribute) for row in details.unreadable_rows]
    assert len(named) == 4, named  # each once, though a run VAMS launched reads its inputs twice
    assert set(named) == {
        ("PipelineExecutionsStorageTable", vams.STEPS[1], "executionStopDate"),
        (
            "PipelineExecutionOutputFilesStorageTable",
            f"{vams.STEPS[2]} / preview:bunny.png",
            "fileSize",
        ),
        (
            "WorkflowExecutionInputsStorageTable",
            f"{vams.EXECUTION_ID} / vamsdb:asset-a:/asset-a/meshes/",
            "databaseId",
        ),
        (
            "PipelineExecutionInputMetadataStorageTable",
            f"{vams.STEPS[0]} / vamsdb:asset-a:/bunny.obj",
            "metadata",
        ),
    }
    assert details.execution.status is ExecutionStatus.SUCCEEDED
    steps = {entry.step.pipeline_execution_id: entry for entry in details.steps}
    assert set(steps) == {vams.STEPS[0], vams.STEPS[2]}
    assert [f.relative_file_path for f in steps[vams.STEPS[2]].outputs.files] == ["bunny.glb"]
    assert len(steps[vams.STEPS[0]].input_metadata) == 2
    assert len(details.selections) == 1
    steps_read, left_out = store.list_readable_steps(vams.EXECUTION_ID)
    assert [s.pipeline_execution_id for s in steps_read] == [vams.STEPS[0], vams.STEPS[2]]
    assert [row.key for row in left_out] == [vams.STEPS[1]]
