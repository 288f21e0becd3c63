"""The export file: runs written and read back, and each rule a bad line breaks named."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from adapters.archive_file import bounded_lines, read_runs, write_header, write_run
from adapters.run_records import build_execution_record
from application.ports.migration import ArchivedBody, ArchivedItem, ArchivedRun, RejectedRun
from domain.errors import InvalidInputError
from tests.contract.builders import an_execution

HEADER = '{"format":"wfx-export","version":1}'
STEP = "pipelineExecutionId"


def _run(run_id: str) -> ArchivedRun:
    main = build_execution_record(an_execution(run_id))
    event = {"workflowExecutionId": run_id, "sequenceNumber": 1, "type": "launched"}
    body = ArchivedBody(f"executions/{run_id}/bodies/configuration/x/abc", b"\x00\xffbody")
    return ArchivedRun(
        run_id,
        (ArchivedItem("EXECUTION_EVENTS", event), ArchivedItem("WORKFLOW_EXECUTIONS", main)),
        (body,),
    )


def _file(*runs: ArchivedRun) -> list[str]:
    stream = io.StringIO()
    write_header(stream)
    for run in runs:
        write_run(stream, run)
    return stream.getvalue().splitlines(keepends=True)


def _strip_lines(run: ArchivedRun | RejectedRun) -> Any:
    assert isinstance(run, ArchivedRun)
    return (
        run.workflow_execution_id,
        [(i.table, dict(i.item)) for i in run.items],
        [(b.key, b.data) for b in run.bodies],
    )


def test_runs_come_back_as_they_were_written_with_their_line_numbers() -> None:
    lines = _file(_run("r1"), _run("r2"))
    assert lines[0].strip() == HEADER

    read = list(read_runs(lines))

    assert [_strip_lines(run) for run in read] == [
        _strip_lines(_run("r1")),
        _strip_lines(_run("r2")),
    ]
    first = read[0]
    assert isinstance(first, ArchivedRun)
    assert (first.bodies[0].line, first.items[0].line, first.items[1].line) == (2, 3, 4)


def _replace_line(lines: list[str], number: int, document: Any) -> list[str]:
    text = document if isinstance(document, str) else json.dumps(document)
    return [*lines[: number - 1], text + "\n", *lines[number:]]


MAIN = build_execution_record(an_execution("r1"))
BAD_LINES = {
    "not json": ("{nope", "line 3: not JSON"),
    "not an object": ("[1]", "a line is one JSON object"),
    "no run": ({"table": "EXECUTION_EVENTS", "item": {}}, "run: a non-empty string"),
    "unknown table": (
        {"run": "r1", "table": "AUTHORIZATION", "item": {}},
        "table: 'AUTHORIZATION' is not a table",
    ),
    "physical table name": (
        {"run": "r1", "table": "WfxExecutionEventsTable", "item": {}},
        "table: 'WfxExecutionEventsTable'",
    ),
    "missing key": (
        {"run": "r1", "table": "EXECUTION_EVENTS", "item": {"workflowExecutionId": "r1"}},
        "no key attribute 'sequenceNumber'",
    ),
    "key of the wrong type": (
        {
            "run": "r1",
            "table": "EXECUTION_EVENTS",
            "item": {"workflowExecutionId": "r1", "sequenceNumber": "1"},
        },
        "'sequenceNumber' must be a number",
    ),
    "another run's item": (
        {
            "run": "r1",
            "table": "EXECUTION_EVENTS",
            "item": {"workflowExecutionId": "r9", "sequenceNumber": 1},
        },
        "item.workflowExecutionId: must be the line's run 'r1'",
    ),
    "not a number": (
        '{"run":"r1","table":"EXECUTION_EVENTS","item":'
        '{"workflowExecutionId":"r1","sequenceNumber":1,"x":NaN}}',
        "NaN is not a JSON number",
    ),
    "an empty index key": (
        {
            "run": "r1",
            "table": "WORKFLOW_EXECUTIONS",
            "item": MAIN | {"executionGroupId": ""},
        },
        "'executionGroupId' must not be an empty string",
    ),
    "a body outside the run": (
        {"run": "r1", "object": "executions/r2/bodies/x", "base64": ""},
        "object: a body's key starts with 'executions/r1/bodies/'",
    ),
    "bad base64": (
        {"run": "r1", "object": "executions/r1/bodies/x", "base64": "***"},
        "base64: not valid base64",
    ),
    "a step row of no step of the run": (
        {"run": "r1", "table": "PIPELINE_LOGS", "item": {STEP: "p9", "logType": "summary"}},
        "item.pipelineExecutionId: names no step of this run",
    ),
    "a step row naming another run": (
        {
            "run": "r1",
            "table": "TASK_EXECUTIONS",
            "item": {STEP: "p1", "attempt": 1, "workflowExecutionId": "r2"},
        },
        "item.workflowExecutionId: must be the line's run 'r1'",
    ),
    "stray field": (
        {"run": "r1", "table": "EXECUTION_EVENTS", "item": {}, "extra": 1},
        "extra: not a field of an item line",
    ),
}


@pytest.mark.parametrize(("document", "rule"), BAD_LINES.values(), ids=BAD_LINES.keys())
def test_a_bad_line_rejects_its_run_naming_the_line_and_the_rule_and_no_other(
    document: Any, rule: str
) -> None:
    lines = _replace_line(_file(_run("r1"), _run("r2")), 3, document)

    first, second = list(read_runs(lines))

    assert isinstance(first, RejectedRun) and first.workflow_execution_id == "r1"
    assert first.line == 3 and rule in f"line {first.line}: {first.message}"
    assert isinstance(second, ArchivedRun) and second.workflow_execution_id == "r2"


def test_a_run_without_its_main_row_last_is_rejected() -> None:
    lines = _file(_run("r1"))
    del lines[3]  # the main row

    (rejected,) = read_runs(lines)

    assert isinstance(rejected, RejectedRun)
    assert "end with its one WORKFLOW_EXECUTIONS item" in rejected.message


@pytest.mark.parametrize("first", ["", "{}", '{"format":"wfx-export","version":2}', "nope"])
def test_a_file_not_written_by_export_is_refused_at_line_one(first: str) -> None:
    with pytest.raises(InvalidInputError, match="line 1: the first line must be"):
        list(read_runs([first + "\n"] if first else []))


def test_a_step_claimed_by_two_runs_of_the_file_rejects_the_second() -> None:
    """Rows keyed by the step alone would belong to both."""

    def with_step(run_id: str) -> ArchivedRun:
        run = _run(run_id)
        step = {STEP: "p1", "workflowExecutionId": run_id}
        return ArchivedRun(run_id, (ArchivedItem("PIPELINE_EXECUTIONS", step), *run.items))

    first, second = read_runs(_file(with_step("r1"), with_step("r2")))

    assert isinstance(first, ArchivedRun)
    assert isinstance(second, RejectedRun) and second.workflow_execution_id == "r2"
    assert second.line == 5
    assert second.message == "item.pipelineExecutionId: already a step of run 'r1'"


def test_lines_past_the_bound_are_skipped_to_their_end_keeping_their_start() -> None:
    stream = io.BytesIO(b"abcd\nabcde\nabcdefghij\nxy\nabcd")

    lines = list(bounded_lines(stream, limit=4))

    assert [line if isinstance(line, bytes) else ("long", line.head) for line in lines] == [
        b"abcd\n",
        ("long", b"abcde"),
        ("long", b"abcde"),
        b"xy\n",
        b"abcd",
    ]


def test_a_line_past_the_bound_rejects_the_run_it_starts_with() -> None:
    lines = _file(_run("r1"), _run("r2"))
    encoded = [line.encode() for line in lines]
    limit = max(len(line) for line in encoded)
    long = b'{"run":"r2","object":"executions/r2/bodies/x/y/z","base64":"' + b"A" * limit + b'"}\n'
    encoded.insert(5, long)

    first, second = read_runs(bounded_lines(io.BytesIO(b"".join(encoded)), limit=limit))

    assert isinstance(first, ArchivedRun)
    assert isinstance(second, RejectedRun) and second.workflow_execution_id == "r2"
    assert second.line == 6 and second.message.startswith("longer than 256 MiB")
