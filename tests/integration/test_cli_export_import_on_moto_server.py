"""`wfx export` from a SQLite home and `wfx import --verify` into DynamoDB over real HTTP (moto's
server), with another table prefix: the copy lists and shows as the original, a second import
writes nothing, a bad line or a changed item is named. The commands run in the module fixture
(see test_cli_on_moto_server.py: another test's mock_aws() may reset moto between tests)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.cli import FAKE_AWS, MESH_ASSETS, MESH_WORKFLOW, Outcome, Wfx
from tests.integration.moto_server import moto_server

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("cli-export-import-on-moto")]


@dataclass(frozen=True)
class Move:
    run_id: str
    exported: Outcome
    on_terminal: Outcome
    imported: Outcome
    imported_again: Outcome
    listed_before: Any
    listed_after: Any
    shown_before: Any
    shown_after: Any
    bad_import: Outcome
    bad_listed: Any
    changed_import: Outcome
    lines: list[str]


def _dynamodb(endpoint: str, home: Path, prefix: str) -> Wfx:
    return Wfx(
        home,
        WFX_STORE="dynamodb",
        WFX_DYNAMODB_ENDPOINT=endpoint,
        WFX_TABLE_PREFIX=prefix,
        **FAKE_AWS,
    )


@pytest.fixture(scope="module")
def move(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Move]:
    root = tmp_path_factory.mktemp("move")
    sqlite = Wfx(root / "laptop")
    sqlite.ok("workflows", "publish", str(MESH_WORKFLOW))
    sqlite.ok("assets", "import", "demo", "meshes", str(MESH_ASSETS))
    run = sqlite.ok(
        "run", "demo/mesh-report", "--input", "demo/meshes", "--output", "demo/results", "--json"
    ).json()
    run_id = run["workflowExecutionId"]
    file = root / "runs.jsonl"
    exported = sqlite("export", "--to", str(file), "--json")
    on_terminal = sqlite.on_terminal("export", "--to", str(root / "again.jsonl"))
    lines = file.read_text(encoding="utf-8").splitlines()

    with moto_server() as endpoint:
        aws = _dynamodb(endpoint, root / "aws", "copy-")
        aws.ok("tables", "create")
        imported = aws("import", str(file), "--verify", "--json")
        imported_again = aws("import", str(file))

        # a bad line in the run: nothing of it is imported, into a third set of tables
        bad_file = root / "bad.jsonl"
        broken = [*lines]
        index = next(n for n, line in enumerate(broken) if '"table":"PIPELINE_EXECUTIONS"' in line)
        document = json.loads(broken[index])
        document["table"] = "PipelineExecutionsStorageTable"
        broken[index] = json.dumps(document)
        bad_file.write_text("\n".join(broken) + "\n", encoding="utf-8")
        bad = _dynamodb(endpoint, root / "bad", "bad-")
        bad.ok("tables", "create")
        bad_import = bad("import", str(bad_file))
        bad_listed = bad.json("executions", "list")

        # an item the target holds otherwise: kept, warned about, and --verify names it
        changed_file = root / "changed.jsonl"
        changed = [*lines]
        main = json.loads(changed[-1])
        main["item"]["executionStatus"] = "ABORTED"
        changed[-1] = json.dumps(main)
        changed_file.write_text("\n".join(changed) + "\n", encoding="utf-8")
        changed_import = aws("import", str(changed_file), "--verify")

        yield Move(
            run_id=run_id,
            exported=exported,
            on_terminal=on_terminal,
            imported=imported,
            imported_again=imported_again,
            listed_before=sqlite.json("executions", "list"),
            listed_after=aws.json("executions", "list"),
            shown_before=sqlite.json("executions", "show", run_id),
            shown_after=aws.json("executions", "show", run_id),
            bad_import=bad_import,
            bad_listed=bad_listed,
            changed_import=changed_import,
            lines=lines,
        )


def test_the_export_writes_the_header_then_the_run_its_main_row_last(move: Move) -> None:
    assert move.exported.code == 0, str(move.exported)
    assert move.exported.json()["runs"] == 1
    assert move.exported.stderr == ""  # no progress bar when stderr is not a terminal
    assert json.loads(move.lines[0]) == {"format": "wfx-export", "version": 1}
    last = json.loads(move.lines[-1])
    assert (last["run"], last["table"]) == (move.run_id, "WORKFLOW_EXECUTIONS")


def test_on_a_terminal_the_export_draws_a_progress_bar_on_stderr(move: Move) -> None:
    assert move.on_terminal.code == 0, str(move.on_terminal)
    assert "exporting runs" in move.on_terminal.stderr
    assert "exported 1 run: " in move.on_terminal.stdout


def test_the_import_writes_every_item_and_verifies_them(move: Move) -> None:
    assert move.imported.code == 0, str(move.imported)
    answer = move.imported.json()
    assert answer["runs"] == 1
    assert answer["itemsWritten"] == len(move.lines) - 1 - _bodies(move.lines)
    assert answer["differences"] == [] and answer["rejected"] == []


def _bodies(lines: list[str]) -> int:
    return sum(1 for line in lines[1:] if '"object":' in line)


def test_a_second_import_writes_nothing_and_says_so(move: Move) -> None:
    assert move.imported_again.code == 0, str(move.imported_again)
    assert "nothing new written" in move.imported_again.stdout


def test_the_copy_lists_and_shows_as_the_original(move: Move) -> None:
    assert move.listed_after == move.listed_before
    # the export carries the run's records, not its output files: the copy's results rows are
    # there, their text (read from the output files) is not
    before, after = (
        _without_results_texts(move.shown_before),
        _without_results_texts(move.shown_after),
    )
    assert after == before
    assert any(r["resultsContent"] for r in move.shown_before["outputs"]["results"])
    assert {r["resultsContent"] for r in move.shown_after["outputs"]["results"]} == {""}


def _without_results_texts(shown: dict[str, Any]) -> dict[str, Any]:
    results = [
        {k: v for k, v in row.items() if k != "resultsContent"}
        for row in shown["outputs"]["results"]
    ]
    return shown | {"outputs": shown["outputs"] | {"results": results}}


def test_a_bad_line_names_the_line_and_the_rule_and_imports_nothing_of_the_run(
    move: Move,
) -> None:
    outcome = move.bad_import
    assert outcome.code == 1, str(outcome)
    assert "Traceback" not in outcome.stderr
    assert "table: 'PipelineExecutionsStorageTable' is not a table" in outcome.stderr
    assert (
        f"run {move.run_id}" in outcome.stderr and "nothing of this run imported" in outcome.stderr
    )
    assert outcome.stderr.startswith("error: line ")
    assert move.bad_listed["Items"] == []


def test_a_stored_item_held_otherwise_is_kept_and_named_by_verify(move: Move) -> None:
    outcome = move.changed_import
    assert outcome.code == 1, str(outcome)
    assert "stored otherwise, kept" in outcome.stderr
    assert "differs in executionStatus" in outcome.stderr
    assert f"line {len(move.lines)}: WORKFLOW_EXECUTIONS" in outcome.stderr
    # read after this import: the run is as the first import wrote it
    assert move.shown_after["executionStatus"] == "SUCCEEDED"
