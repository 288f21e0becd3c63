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
            f"WorkflowExecutionsStorageTableV2 row {vams.EXECUTION_ID} cannot be read: status: "
            "Input should be 'NEW', 'RUNNING', 'SUCCEEDED', 'FAILED', 'ABORTED', 'TIMED_OUT' or "
            "'PENDING_REDRIVE' (stored: 'CANCELLED')",
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
        (
            lambda i: i[STEPS][1].update(executionStopDate="yesterday"),
            f"PipelineExecutionsStorageTable row {vams.STEPS[1]} cannot be read: "
            "executionStopDate is not a date (stored: 'yesterday')",
        ),
        (
            lambda i: i[STEPS][0].update(registeredLogs='[{"logGroupName": "g"}]'),
            f"PipelineExecutionsStorageTable row {vams.STEPS[0]} cannot be read: ",
        ),
        (
            lambda i: i[ResourceKeys.PIPELINE_OUTPUT_FILES][0].update(fileSize="big"),
            f"PipelineExecutionOutputFilesStorageTable row {vams.STEPS[2]} cannot be read: ",
        ),
        (
            lambda i: i[ResourceKeys.PIPELINE_INPUT_METADATA][0].update(metadata="x"),
            f"PipelineExecutionInputMetadataStorageTable row {vams.STEPS[0]} cannot be read: ",
        ),
        (
            lambda i: i[ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION][0].pop("executionStartDate"),
            f"WorkflowExecutionConfigurationStorageTable row {vams.EXECUTION_ID} cannot be read: "
            "executionStartDate is missing",
        ),
    ],
    ids=[
        "unknown status",
        "no trigger type",
        "empty start date",
        "step date not a date",
        "a list as JSON text",
        "output file size not a number",
        "input metadata not a map",
        "configuration with no date",
    ],
)
def test_a_row_wfx_cannot_read_is_named_in_one_line_and_left_as_it_is(
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
        f"warning: WorkflowExecutionsStorageTableV2 row {OTHER_ID} cannot be read: status: "
        "Input should be"
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
