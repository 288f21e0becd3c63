"""Rows another writer (VAMS, a person, an older wfx) left in a shape wfx cannot read, in a real
SQLite file, read by a real `wfx`: one line naming the table, the row's key and what is wrong,
exit 2, never a traceback; the row itself left as it was."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

import pytest

from adapters.sqlite.schema import build_schema
from adapters.sqlite.statements import TableSql
from adapters.tables import ResourceKeys, TableNames
from tests import vams_items as vams
from tests.e2e.cli import Wfx

Items = dict[ResourceKeys, list[dict[str, Any]]]
MAIN = ResourceKeys.WORKFLOW_EXECUTIONS
STEPS = ResourceKeys.PIPELINE_EXECUTIONS


def _plant(wfx: Wfx, edit: Callable[[Items], None]) -> list[tuple[str, ...]]:
    """VAMS's run, edited, written beside wfx; the stored main and step rows as written."""
    wfx.ok("executions", "list")  # the database, as wfx creates it
    items = vams.vams_run()
    edit(items)
    schema = build_schema(TableNames())
    with sqlite3.connect(wfx.home / "wfx.db") as connection:
        for key, rows in items.items():
            table = TableSql.render(schema.tables[key])
            connection.executemany(table.insert, table.rows(rows))
    return _stored(wfx)


def _stored(wfx: Wfx) -> list[tuple[str, ...]]:
    with sqlite3.connect(wfx.home / "wfx.db") as connection:
        return [
            tuple(row)
            for name in ("WorkflowExecutionsStorageTableV2", "PipelineExecutionsStorageTable")
            for row in connection.execute(f'SELECT * FROM "{name}" ORDER BY 1, 2')
        ]


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (
            lambda i: i[MAIN][0].update(executionStatus="CANCELLED"),
            f"WorkflowExecutionsStorageTableV2 row {vams.EXECUTION_ID} cannot be read: "
            "executionStatus holds the text 'CANCELLED'; wfx expects 'NEW', 'RUNNING', "
            "'SUCCEEDED', 'FAILED', 'ABORTED', 'TIMED_OUT' or 'PENDING_REDRIVE'",
        ),
        (
            lambda i: i[MAIN][0].pop("triggerType"),
            f"WorkflowExecutionsStorageTableV2 row {vams.EXECUTION_ID} cannot be read: "
            "triggerType is missing",
        ),
        (
            lambda i: i[MAIN][0].update(executionStartDate=""),
            f"WorkflowExecutionsStorageTableV2 row {vams.EXECUTION_ID} cannot be read: "
            "executionStartDate is not a date (stored: '')",
        ),
    ],
    ids=["unknown status", "no trigger type", "empty start date"],
)
def test_a_main_row_wfx_cannot_read_is_named_in_one_line_and_left_as_it_is(
    wfx: Wfx, edit: Callable[[Items], None], said: str
) -> None:
    before = _plant(wfx, edit)

    for args in (("show", vams.EXECUTION_ID), ("show", vams.EXECUTION_ID, "--json")):
        outcome = wfx("executions", *args)
        assert outcome.code == 2, str(outcome)
        [line] = outcome.stderr_lines
        assert line.startswith(f"error: {said}"), str(outcome)
        assert line.endswith("; mend or delete the row (another writer stored it)"), str(outcome)
    assert _stored(wfx) == before


@pytest.mark.parametrize(
    ("edit", "table", "key", "attribute", "problem"),
    [
        (
            lambda i: i[STEPS][1].update(executionStopDate="yesterday"),
            "PipelineExecutionsStorageTable",
            vams.STEPS[1],
            "executionStopDate",
            "executionStopDate is not a date (stored: 'yesterday')",
        ),
        (
            lambda i: i[STEPS][0].update(registeredLogs='[{"logGroupName": "g"}]'),
            "PipelineExecutionsStorageTable",
            vams.STEPS[0],
            "registeredLogs",
            'registeredLogs holds the text \'[{"logGroupName": "g"}]\'; wfx expects a list of maps',
        ),
        (
            lambda i: i[ResourceKeys.PIPELINE_OUTPUT_FILES][0].update(fileSize="big"),
            "PipelineExecutionOutputFilesStorageTable",
            f"{vams.STEPS[2]} / file:bunny.glb",  # its partition and sort keys
            "fileSize",
            "fileSize holds the text 'big'; wfx expects a whole number",
        ),
        (
            lambda i: i[ResourceKeys.PIPELINE_INPUT_METADATA][0].update(metadata="x"),
            "PipelineExecutionInputMetadataStorageTable",
            f"{vams.STEPS[0]} / vamsdb::/",
            "metadata",
            "metadata holds the text 'x'; wfx expects a map",
        ),
        (
            lambda i: i[ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION][0].pop("executionStartDate"),
            "WorkflowExecutionConfigurationStorageTable",
            vams.EXECUTION_ID,
            "executionStartDate",
            "executionStartDate is missing",
        ),
    ],
    ids=[
        "step date not a date",
        "a list as JSON text",
        "output file size not a number",
        "input metadata not a map",
        "configuration with no date",
    ],
)
def test_show_leaves_out_a_detail_row_it_cannot_read_and_names_it(
    wfx: Wfx,
    edit: Callable[[Items], None],
    table: str,
    key: str,
    attribute: str | None,
    problem: str,
) -> None:
    """The run and its other rows are shown; the row left out is named on stderr, and in
    `--json`'s unreadableRows (table, key, the attribute when one is at fault, the problem)."""
    before = _plant(wfx, edit)
    note = f"warning: {table} row {key} cannot be read: {problem}"
    ending = "; left out of what is shown; mend or delete the row (another writer stored it)"

    shown = wfx("executions", "show", vams.EXECUTION_ID)
    assert shown.code == 0, str(shown)
    assert vams.EXECUTION_ID in shown.stdout and "SUCCEEDED" in shown.stdout, str(shown)
    [line] = shown.stderr_lines
    assert line.startswith(note) and line.endswith(ending), str(shown)

    as_json = wfx("executions", "show", vams.EXECUTION_ID, "--json")
    assert as_json.code == 0, str(as_json)
    [line] = as_json.stderr_lines
    assert line.startswith(note) and line.endswith(ending), str(as_json)
    document = as_json.json()
    [row] = document["unreadableRows"]
    assert (row["table"], row["key"], row.get("attribute")) == (table, key, attribute), row
    assert row["problem"].startswith(problem), row
    assert document["workflowExecutionId"] == vams.EXECUTION_ID
    assert document["executionStatus"] == "SUCCEEDED"
    if table == "PipelineExecutionsStorageTable":  # the step goes, with its rows; the rest stay
        assert key not in {p["pipelineExecutionId"] for p in document["pipelines"]}
        assert len(document["pipelines"]) == len(vams.STEPS) - 1, document["pipelines"]
    else:
        assert len(document["pipelines"]) == len(vams.STEPS), document["pipelines"]
    assert _stored(wfx) == before


OTHER_ID = "6b2e9f1d4c8a4b3f8d7e1c2a3b4c5d6f"


def _with_a_second_run_unreadable(items: Items) -> None:
    """Beside VAMS's run, a copy of its main row under another id, with a status wfx has no
    name for."""
    broken = dict(items[MAIN][0], workflowExecutionId=OTHER_ID, executionStatus="CANCELLED")
    items[MAIN].append(broken)


def test_a_list_leaves_out_a_run_it_cannot_read_with_a_warning_naming_it_and_pages_on(
    wfx: Wfx,
) -> None:
    before = _plant(wfx, _with_a_second_run_unreadable)
    warning = (
        f"warning: WorkflowExecutionsStorageTableV2 row {OTHER_ID} cannot be read: "
        "executionStatus holds the text 'CANCELLED'; wfx expects"
    )

    whole = wfx("executions", "list", "--json")
    assert whole.code == 0, str(whole)
    assert [e["workflowExecutionId"] for e in whole.json()["Items"]] == [vams.EXECUTION_ID]
    assert any(line.startswith(warning) for line in whole.stderr_lines), str(whole)
    for filters in (("--asset", "/".join(vams.INPUT_ASSET)), ("--group", "nightly")):
        filtered = wfx("executions", "list", *filters, "--json")
        assert [e["workflowExecutionId"] for e in filtered.json()["Items"]] == [vams.EXECUTION_ID]
    seen: list[str] = []
    token: list[str] = []
    for _ in range(3):  # one run a page: the readable one, then the end
        page = wfx("executions", "list", "--limit", "1", *token, "--json")
        assert page.code == 0, str(page)
        seen += [e["workflowExecutionId"] for e in page.json()["Items"]]
        if not page.json().get("NextToken"):
            break
        token = ["--starting-token", page.json()["NextToken"]]
    assert seen == [vams.EXECUTION_ID]
    assert _stored(wfx) == before


def test_logs_and_events_of_a_run_with_a_step_row_wfx_cannot_read_say_it_and_read_the_rest(
    wfx: Wfx,
) -> None:
    """`logs` reads the run's steps: the one it cannot read is named on stderr (and in
    `--json`'s warnings), the other steps' logs listed; `events` reads no step row."""
    before = _plant(wfx, lambda i: i[STEPS][1].update(executionStopDate="yesterday"))
    note = (
        f"warning: PipelineExecutionsStorageTable row {vams.STEPS[1]} cannot be read: "
        "executionStopDate is not a date (stored: 'yesterday'); left out of what is shown"
    )

    logs = wfx("executions", "logs", vams.EXECUTION_ID)
    assert logs.code == 0, str(logs)
    assert any(line.startswith(note) for line in logs.stderr_lines), str(logs)
    as_json = wfx("executions", "logs", vams.EXECUTION_ID, "--json")
    assert as_json.code == 0, str(as_json)
    warnings = as_json.json()["warnings"]
    assert any(w.startswith(note.removeprefix("warning: ")) for w in warnings), warnings
    steps = {source["pipelineExecutionId"] for source in as_json.json()["logSources"]}
    assert steps == {vams.STEPS[0], vams.STEPS[2]}, as_json.json()["logSources"]
    events = wfx("executions", "events", vams.EXECUTION_ID)
    assert events.code == 0, str(events)
    assert _stored(wfx) == before
