"""`wfx export` / `wfx import` refuse bad input with one line naming the option and the rule."""

from __future__ import annotations

import gzip
import json
import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.e2e.cli import Wfx, assert_bad_input


def test_a_since_that_is_not_a_date_is_refused_by_name(wfx: Wfx) -> None:
    outcome = wfx("export", "--to", str(wfx.home / "out.jsonl"), "--since", "yesterday")
    assert_bad_input(outcome, "--since", "2024-03-01")
    assert not (wfx.home / "out.jsonl").exists()


def test_importing_a_missing_file_is_refused_by_name(wfx: Wfx) -> None:
    assert_bad_input(wfx("import", str(wfx.home / "nope.jsonl")), "FILE.jsonl", "not a file")


def test_a_file_not_written_by_export_is_refused_at_line_one(wfx: Wfx) -> None:
    file = wfx.home / "other.jsonl"
    file.write_text('{"hello": "world"}\n', encoding="utf-8")
    assert_bad_input(wfx("import", str(file)), "line 1", "wfx export")


def test_an_empty_store_exports_a_file_that_imports_nothing(wfx: Wfx) -> None:
    file = wfx.home / "empty.jsonl"
    assert wfx.json("export", "--to", str(file))["runs"] == 0
    answer = wfx.json("import", str(file), "--verify")
    assert (answer["runs"], answer["itemsWritten"], answer["differences"]) == (0, 0, [])


def test_a_move_between_two_sqlite_homes_draws_progress_only_on_a_terminal(
    wfx: Wfx, tmp_path: Path
) -> None:
    wfx.publish_command_step("noop", "pass")
    run_id = wfx.run_id("demo/noop")
    file = tmp_path / "runs.jsonl"
    assert wfx.ok("export", "--to", str(file)).stderr == ""
    other = Wfx(tmp_path / "other")

    imported = other.on_terminal("import", str(file), "--verify")

    assert imported.code == 0, str(imported)
    assert "importing" in imported.stderr and "verifying" in imported.stderr
    assert "verified: every item of the file is stored" in imported.stdout
    assert [r["workflowExecutionId"] for r in other.json("executions", "list")["Items"]] == [run_id]


def test_a_since_whose_zone_takes_it_out_of_the_calendar_is_refused_by_name(wfx: Wfx) -> None:
    for moment in ("0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"):
        outcome = wfx("export", "--to", str(wfx.home / "out.jsonl"), "--since", moment)
        assert_bad_input(outcome, "--since", moment, "UTC")
    assert not (wfx.home / "out.jsonl").exists()


def test_an_export_line_holding_a_lone_surrogate_rejects_its_run_alone(wfx: Wfx) -> None:
    """`"\\ud800"` is valid JSON but no text: stored, every read of the run would fail."""
    wfx.publish_command_step("fails", "raise SystemExit(3)")
    bad = wfx.run_id("demo/fails", expect_code=1)
    good = wfx.run_id("demo/fails", expect_code=1)
    file = wfx.home / "runs.jsonl"
    wfx.ok("export", "--to", str(file))
    lines = file.read_text(encoding="utf-8").splitlines()
    (number,) = [n for n, line in enumerate(lines, 1) if bad in line and '"executionError"' in line]
    lines[number - 1] = lines[number - 1].replace('"exit code 3"', '"exit \\ud800 code 3"')
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")

    other = wfx.in_home(wfx.home / "other")
    outcome = other("import", str(file))
    assert outcome.code == 1, str(outcome)
    assert "Traceback" not in outcome.stderr, str(outcome)
    (rejected,) = [line for line in outcome.stderr_lines if line.startswith("error: ")]
    assert rejected.startswith(f"error: line {number}: run {bad}: item.executionError: "), rejected
    assert "\\ud800" in rejected, rejected
    assert other.listed_ids() == [good]
    assert other("executions", "show", good).code == 0


def _exported_lines(wfx: Wfx, runs: int) -> tuple[list[str], list[str]]:
    """`runs` runs of demo/noop exported: the file's lines and the run ids, in file order."""
    wfx.publish_command_step("noop", "pass")
    for _ in range(runs):
        wfx.run_id("demo/noop")
    return _export(wfx, wfx.home / "runs.jsonl")


def _export(wfx: Wfx, file: Path) -> tuple[list[str], list[str]]:
    wfx.ok("export", "--to", str(file))
    lines = file.read_text(encoding="utf-8").splitlines()
    run_ids = list(dict.fromkeys(json.loads(line)["run"] for line in lines[1:]))
    return lines, run_ids


@dataclass(frozen=True)
class Exported:
    """An export file, its lines and its runs' ids in file order."""

    file: Path
    lines: list[str]
    run_ids: list[str]


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Exported, Exported]]:
    """demo/noop run once and exported, then run again and exported: files the tests below only
    read (each edits its own copy of the lines and imports into a home of its own)."""
    wfx = Wfx(tmp_path_factory.mktemp("exported") / "home")
    wfx.publish_command_step("noop", "pass")
    made = []
    for runs in (1, 2):
        wfx.run_id("demo/noop")
        file = wfx.home / f"runs-{runs}.jsonl"
        made.append(Exported(file, *_export(wfx, file)))
    yield made[0], made[1]


@pytest.fixture
def one_run(exports: tuple[Exported, Exported]) -> Exported:
    exported = exports[0]
    return Exported(exported.file, list(exported.lines), list(exported.run_ids))


@pytest.fixture
def two_runs(exports: tuple[Exported, Exported]) -> Exported:
    exported = exports[1]
    return Exported(exported.file, list(exported.lines), list(exported.run_ids))


def _step_of(lines: list[str], run_id: str) -> str:
    (step,) = [
        document["item"]["pipelineExecutionId"]
        for document in map(json.loads, lines[1:])
        if document["run"] == run_id and document.get("table") == "PIPELINE_EXECUTIONS"
    ]
    return str(step)


def _log_rows(home: Path, step_id: str) -> list[str]:
    with closing(sqlite3.connect(home / "wfx.db")) as connection:
        rows = connection.execute(
            'SELECT item FROM PipelineExecutionLogsStorageTable WHERE "pipelineExecutionId" = ?',
            (step_id,),
        ).fetchall()
    return [item for (item,) in rows]


def test_a_step_row_naming_another_runs_step_rejects_its_run_and_writes_nothing_there(
    wfx: Wfx,
    two_runs: Exported,
) -> None:
    """A hand-edited line of one run keyed by a step of another: imported, it would show as
    that other run's row, which never had it."""
    lines, (victim, forger) = two_runs.lines, two_runs.run_ids
    victim_step = _step_of(lines, victim)
    other = wfx.in_home(wfx.home / "other")
    whole = wfx.home / "whole.jsonl"
    whole.write_text("\n".join(lines) + "\n", encoding="utf-8")
    other.ok("import", str(whole))
    stored = _log_rows(other.home, victim_step)
    forged = {
        "run": forger,
        "table": "PIPELINE_LOGS",
        "item": {"pipelineExecutionId": victim_step, "logType": "forged", "resultLog": "x"},
    }
    edited = [line for line in lines if json.loads(line).get("run", forger) == forger]
    edited.insert(len(edited) - 1, json.dumps(forged))
    file = wfx.home / "forged.jsonl"
    file.write_text("\n".join(edited) + "\n", encoding="utf-8")

    outcome = other("import", str(file))

    assert outcome.code == 1, str(outcome)
    (rejected,) = [line for line in outcome.stderr_lines if line.startswith("error: ")]
    assert rejected.startswith(
        f"error: line {len(edited) - 1}: run {forger}: item.pipelineExecutionId: "
    ), rejected
    assert _log_rows(other.home, victim_step) == stored


def test_a_run_whose_step_id_is_another_stored_runs_step_is_rejected_and_that_run_kept(
    wfx: Wfx,
    two_runs: Exported,
) -> None:
    """Step rows are keyed by the step id alone: imported, the two runs would share them, and
    deleting the imported run would take the stored run's step rows with it."""
    lines, (kept, forger) = two_runs.lines, two_runs.run_ids
    kept_step, forger_step = _step_of(lines, kept), _step_of(lines, forger)
    other = wfx.in_home(wfx.home / "other")
    first = wfx.home / "first.jsonl"
    first.write_text(
        "\n".join(line for line in lines if json.loads(line).get("run", kept) == kept) + "\n",
        encoding="utf-8",
    )
    other.ok("import", str(first))
    stored = _log_rows(other.home, kept_step)
    edited = [
        line.replace(forger_step, kept_step)
        for line in lines
        if json.loads(line).get("run", forger) == forger
    ]
    (number,) = [n for n, line in enumerate(edited, 1) if '"PIPELINE_EXECUTIONS"' in line]
    file = wfx.home / "forged.jsonl"
    file.write_text("\n".join(edited) + "\n", encoding="utf-8")

    outcome = other("import", str(file))

    assert outcome.code == 1, str(outcome)
    (rejected,) = [line for line in outcome.stderr_lines if line.startswith("error: ")]
    assert rejected.startswith(f"error: line {number}: run {forger}: item.pipelineExecutionId: "), (
        rejected
    )
    assert kept in rejected, rejected
    assert other.listed_ids() == [kept]
    assert _log_rows(other.home, kept_step) == stored


HOSTILE_IDS = ("a/b", "..", "a\\b", "x\x00y", "x\x1b[31my", "A" * 10_000, " lead")


def test_a_run_whose_id_no_launch_could_have_made_is_rejected_naming_the_line(
    wfx: Wfx, one_run: Exported
) -> None:
    """Ids name folders, object keys and Step Functions executions: stored, `executions logs`
    ended in a traceback and `executions delete` refused them, with no way to remove them."""
    lines, (good,) = one_run.lines, one_run.run_ids
    step = _step_of(lines, good)
    edited = [lines[0]]
    firsts = []
    for number, hostile in enumerate(HOSTILE_IDS):
        firsts.append(len(edited) + 1)
        edited += [
            line.replace(f'"{good}"', json.dumps(hostile)).replace(step, f"{number:032x}")
            for line in lines[1:]
        ]
    edited += lines[1:]
    file = wfx.home / "hostile.jsonl"
    file.write_text("\n".join(edited) + "\n", encoding="utf-8")
    other = wfx.in_home(wfx.home / "other")

    outcome = other("import", str(file))

    assert outcome.code == 1, str(outcome)
    assert "Traceback" not in outcome.stderr, str(outcome)
    rejected = [line for line in outcome.stderr_lines if line.startswith("error: ")]
    assert [line.split(":")[1] for line in rejected] == [f" line {n}" for n in firsts], str(outcome)
    assert all(" run: " in line and len(line) < 400 for line in rejected), rejected
    assert not any(c in outcome.stderr for c in "\x00\x1b"), outcome.stderr
    assert other.listed_ids() == [good]


UNREADABLE_MAIN_ROWS = {
    "executionStatus": "BOGUS",
    "executionStartDate": "yesterday",
    "workflowVersion": "x",
    "triggerType": None,
    "workflowId": "(absent)",
}


def test_a_main_row_wfx_cannot_read_rejects_its_run_naming_the_line_and_the_attribute(
    wfx: Wfx,
    one_run: Exported,
) -> None:
    """Stored, the run was left out of every list, and `show` and `delete` refused it: there
    was no way to see or remove it but editing the database."""
    lines, (good,) = one_run.lines, one_run.run_ids
    step = _step_of(lines, good)
    edited = [lines[0]]
    mains = []
    for number, (name, value) in enumerate(UNREADABLE_MAIN_ROWS.items()):
        run_id, step_id = f"{number:031x}r", f"{number:031x}s"
        copy = [line.replace(good, run_id).replace(step, step_id) for line in lines[1:]]
        main = json.loads(copy[-1])
        if value == "(absent)":
            del main["item"][name]
        else:
            main["item"][name] = value
        copy[-1] = json.dumps(main)
        edited += copy
        mains.append((len(edited), run_id))
    edited += lines[1:]
    file = wfx.home / "unreadable.jsonl"
    file.write_text("\n".join(edited) + "\n", encoding="utf-8")
    other = wfx.in_home(wfx.home / "other")

    outcome = other("import", str(file))

    assert outcome.code == 1, str(outcome)
    rejected = [line for line in outcome.stderr_lines if line.startswith("error: ")]
    assert [line.split(": item")[0] for line in rejected] == [
        f"error: line {number}: run {run_id}" for number, run_id in mains
    ], str(outcome)
    for line, name in zip(rejected, UNREADABLE_MAIN_ROWS, strict=True):
        assert name in line, line
    assert other.listed_ids() == [good]
    assert other("executions", "show", mains[0][1]).code == 2


def test_a_line_that_is_not_utf8_rejects_its_run_alone_and_a_gzip_file_is_refused(
    wfx: Wfx,
    two_runs: Exported,
) -> None:
    """Before, either ended in a UnicodeDecodeError traceback, the first half-way through the
    file, after the runs before it were imported."""
    lines, (first, second) = two_runs.lines, two_runs.run_ids
    encoded = [line.encode() for line in lines]
    (number,) = [n for n, line in enumerate(lines, 1) if second in line and "resultLog" in line]
    encoded[number - 1] = encoded[number - 1].replace(
        b"step: SUCCEEDED", b"step: \xff\xfeSUCCEEDED"
    )
    file = wfx.home / "latin.jsonl"
    file.write_bytes(b"\n".join(encoded) + b"\n")
    other = wfx.in_home(wfx.home / "other")

    outcome = other("import", str(file))

    assert outcome.code == 1, str(outcome)
    assert "Traceback" not in outcome.stderr, str(outcome)
    (rejected,) = [line for line in outcome.stderr_lines if line.startswith("error: ")]
    assert rejected.startswith(f"error: line {number}: run {second}: not UTF-8 text"), rejected
    assert "0xff" in rejected, rejected
    assert other.listed_ids() == [first]

    packed = wfx.home / "runs.jsonl.gz"
    packed.write_bytes(gzip.compress(b"\n".join(encoded) + b"\n"))
    assert_bad_input(other("import", str(packed)), "line 1", "wfx export")


def test_a_line_past_the_bound_rejects_its_run_without_being_held_whole(
    wfx: Wfx, two_runs: Exported
) -> None:
    """Before, a line was read and parsed whole: 200 MB of one line took 800 MB of memory, and
    a 1 GB one four times that, whatever it held."""
    lines, (first, second) = two_runs.lines, two_runs.run_ids
    (last,) = [
        n for n, line in enumerate(lines) if second in line and "WORKFLOW_EXECUTIONS" in line
    ]
    file = wfx.home / "long.jsonl"
    with file.open("w", encoding="utf-8") as stream:
        stream.write("\n".join(lines[:last]) + "\n")
        body = {"run": second, "object": f"executions/{second}/bodies/log/resultLog/0"}
        stream.write(json.dumps(body)[:-1] + ', "base64": "')
        for _ in range(260):
            stream.write("A" * 2**20)
        stream.write('"}\n' + "\n".join(lines[last:]) + "\n")
    other = wfx.in_home(wfx.home / "other")

    outcome = other("import", str(file))

    assert outcome.code == 1, str(outcome)
    (rejected,) = [line for line in outcome.stderr_lines if line.startswith("error: ")]
    assert rejected.startswith(f"error: line {last + 1}: run {second}: "), rejected
    assert "256 MiB" in rejected, rejected
    assert other.listed_ids() == [first]


def earlier_state(lines: list[str]) -> list[str]:
    """The file's one run as an export taken while it ran would hold it: its first two events,
    its main row RUNNING with no stop date, started just now. The module's run may be older
    than the 30 s after which a RUNNING local run that no runner leased is read as lost
    (FAILED) and no longer as stored."""
    started = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    early = []
    for line in lines:
        document = json.loads(line)
        item = document.get("item", {})
        if document.get("table") == "EXECUTION_EVENTS" and item["sequenceNumber"] > 2:
            continue
        if document.get("table") == "WORKFLOW_EXECUTIONS":
            item["executionStatus"] = "RUNNING"
            item["executionStartDate"] = started
            item.pop("executionStopDate", None)
        early.append(json.dumps(document) if item else line)
    return early


def _event_types(home: Path, run_id: str) -> list[str]:
    with closing(sqlite3.connect(home / "wfx.db")) as connection:
        rows = connection.execute(
            'SELECT item FROM WfxExecutionEventsTable WHERE "workflowExecutionId" = ? '
            'ORDER BY "sequenceNumber"',
            (run_id,),
        ).fetchall()
    return [json.loads(item)["eventType"] for (item,) in rows]


def test_a_run_stored_otherwise_is_kept_whole_none_of_the_files_rows_added_to_it(
    wfx: Wfx,
    one_run: Exported,
) -> None:
    """An earlier export of a run, taken while it ran, then the whole run: before, the second
    import kept the stored main row (RUNNING) but added the file's later events and rows to it,
    so its event log said SUCCEEDED under a main row that said RUNNING."""
    lines, (run_id,) = one_run.lines, one_run.run_ids
    early = earlier_state(lines)
    first = wfx.home / "early.jsonl"
    first.write_text("\n".join(early) + "\n", encoding="utf-8")
    whole = wfx.home / "whole.jsonl"
    whole.write_text("\n".join(lines) + "\n", encoding="utf-8")
    other = wfx.in_home(wfx.home / "other")
    other.ok("import", str(first))
    stored = _event_types(other.home, run_id)
    assert len(stored) == 2

    outcome = other("import", str(whole))

    assert outcome.code == 0, str(outcome)
    warnings = [line for line in outcome.stderr_lines if line.startswith("warning: ")]
    assert len(warnings) == 1, str(outcome)
    assert f"WORKFLOW_EXECUTIONS workflowExecutionId='{run_id}'" in warnings[0], warnings
    # the count agrees with its noun, as every CLI line's (entrypoints/cli/counts.py)
    assert re.search(r"none of the run's \d+ items written$", warnings[0]), warnings
    assert "(s)" not in outcome.stderr, warnings
    assert _event_types(other.home, run_id) == stored
    assert other.json("executions", "show", run_id)["executionStatus"] == "RUNNING"


def test_a_workflow_version_the_run_does_not_name_rejects_it_and_publishing_still_works(
    wfx: Wfx,
    one_run: Exported,
) -> None:
    """A version 2 carried in by hand under a run of version 1: before, it was stored beside the
    definition that says the latest is 1, and every later publish of the workflow failed
    (`could not claim a version number`)."""
    lines, (run_id,) = one_run.lines, one_run.run_ids
    edited = []
    for line in lines:
        edited.append(line)
        document = json.loads(line)
        if document.get("table") == "WORKFLOW_VERSIONS":
            document["item"] |= {"workflowVersion": 2, "digest": "0" * 64}
            edited.append(json.dumps(document))
            forged = len(edited)
    file = wfx.home / "forged.jsonl"
    file.write_text("\n".join(edited) + "\n", encoding="utf-8")
    other = wfx.in_home(wfx.home / "other")
    other.ok("import", str(one_run.file))

    outcome = other("import", str(file))

    assert outcome.code == 1, str(outcome)
    (rejected,) = [line for line in outcome.stderr_lines if line.startswith("error: ")]
    assert rejected.startswith(f"error: line {forged}: run {run_id}: "), rejected
    assert "WORKFLOW_VERSIONS" in rejected and "demo:noop version 1" in rejected, rejected
    other.publish_command_step("noop", "print(2)")
    assert other.json("workflows", "show", "demo/noop")["latestVersion"] == 2


def test_a_version_past_the_target_workflows_latest_is_not_imported_so_publishing_goes_on(
    wfx: Wfx,
) -> None:
    """Two homes each publish demo/noop; a run of the first's version 2 moved into the second,
    whose latest is 1. Before, version 2 was stored under the second's definition (kept, as it
    differs), and every later publish there failed: `could not claim a version number`."""
    wfx.publish_command_step("noop", "print(1)")
    wfx.publish_command_step("noop", "print(2)")
    run_id = wfx.run_id("demo/noop")
    file = wfx.home / "runs.jsonl"
    wfx.ok("export", "--to", str(file))
    other = wfx.in_home(wfx.home / "other")
    other.publish_command_step("noop", "print('mine')")

    outcome = other("import", str(file))

    assert outcome.code == 0, str(outcome)
    warnings = [line for line in outcome.stderr_lines if line.startswith("warning: ")]
    past = [line for line in warnings if "past" in line]
    assert any("WORKFLOW_VERSIONS" in line for line in past), str(outcome)
    assert any("STEP_DEFINITIONS" in line for line in past), str(outcome)
    assert other.listed_ids() == [run_id]
    other.publish_command_step("noop", "print('mine again')")
    assert other.json("workflows", "show", "demo/noop")["latestVersion"] == 2
