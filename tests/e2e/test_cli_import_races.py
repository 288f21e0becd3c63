"""Two real `wfx import` processes on one SQLite file, the first held just after it looked at
what the file stores (the run's main row, its steps' ids) and before it wrote: the second must
not land in between, or the first's writes, allowed by a look that is no longer true, mix the two
runs (an import takes one write transaction for the whole run, its looks with it)."""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
from pathlib import Path

import pytest

from tests.e2e.cli import Wfx, start_hooked
from tests.e2e.test_cli_export_import import (
    _event_types,
    _exported_lines,
    _log_rows,
    _step_of,
    earlier_state,
)

pytestmark = pytest.mark.xdist_group("e2e-cli-import-races")

LANDS_WITHIN = 2.0  # seconds the second import is given to land while the first is held


def _held_after(look: str, signal: Path, release: Path) -> str:
    """A hook: the import, once its `look` has run, touches `signal` and holds until `release`
    is made (30 s at most)."""
    return (
        "import pathlib, time\n"
        "from adapters.run_archive import RunArchiveRows\n"
        f"look = RunArchiveRows.{look}\n"
        "def held(self, *args):\n"
        "    found = look(self, *args)\n"
        f"    pathlib.Path({str(signal)!r}).touch()\n"
        "    deadline = time.monotonic() + 30\n"
        f"    while not pathlib.Path({str(release)!r}).exists() and time.monotonic() < deadline:\n"
        "        time.sleep(0.01)\n"
        "    return found\n"
        f"RunArchiveRows.{look} = held\n"
    )


def _patient(signal: Path) -> str:
    """A hook: `signal` touched as the import of a run begins (on either store), and a busy
    timeout longer than the test holds the first import (on SQLite the second waits for the
    file's write lock, not fails; on DynamoDB it waits for the first's claim on the run)."""
    return (
        "import pathlib\n"
        "import adapters.sqlite.database as database\n"
        "from adapters.dynamodb.run_archive import DynamoDbRunArchive\n"
        "from adapters.sqlite.run_archive import SqliteRunArchive\n"
        "database.BUSY_TIMEOUT_MS = 60_000\n"
        "def signalled(archive):\n"
        "    begin = archive.import_run\n"
        "    def importing(self, run):\n"
        f"        pathlib.Path({str(signal)!r}).touch()\n"
        "        return begin(self, run)\n"
        "    archive.import_run = importing\n"
        "signalled(SqliteRunArchive)\n"
        "signalled(DynamoDbRunArchive)\n"
    )


def _wait_for(path: Path) -> None:
    deadline = time.monotonic() + 60
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never came"
        time.sleep(0.01)


def _race(
    home: Wfx, tmp_path: Path, look: str, first: Path, second: Path
) -> list[tuple[int, str, str]]:
    """`first` imported, held after its `look`; `second` imported meanwhile, given
    LANDS_WITHIN seconds; then the first released. Each one's exit code, stdout and stderr."""
    held, release, begun = tmp_path / "held", tmp_path / "release", tmp_path / "begun"
    assert home("executions", "list").code == 0  # the store made: only the imports race
    first_process = start_hooked(home, _held_after(look, held, release), "import", str(first))
    _wait_for(held)
    second_process = start_hooked(home, _patient(begun), "import", str(second))
    _wait_for(begun)
    # it lands here where nothing guards the look; else it waits for the first's transaction
    with contextlib.suppress(subprocess.TimeoutExpired):
        second_process.wait(timeout=LANDS_WITHIN)
    release.touch()
    processes = (first_process, second_process)
    answers = [process.communicate(timeout=60) for process in processes]
    return [(p.returncode, out, err) for p, (out, err) in zip(processes, answers, strict=True)]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_an_earlier_state_of_a_run_imported_meanwhile_is_kept_whole_with_nothing_mixed_in(
    wfx: Wfx, tmp_path: Path
) -> None:
    """The whole run held after it found no main row; its earlier export (RUNNING, two events)
    imported meanwhile. Before, the whole run's later events were then added under the earlier
    state's RUNNING main row."""
    lines, (run_id,) = _exported_lines(wfx, 1)
    early = earlier_state(lines)
    home = wfx.in_home(tmp_path / "target")
    whole = _write(tmp_path / "whole.jsonl", lines)
    earlier = _write(tmp_path / "early.jsonl", early)

    answers = _race(home, tmp_path, "_stored_otherwise", whole, earlier)

    assert [code for code, _, _ in answers] == [0, 0], answers
    status = home.json("executions", "show", run_id)["executionStatus"]
    events = _event_types(home.home, run_id)
    # one state or the other, whole: the first import's transaction ran first, so the whole run
    assert (status, len(events)) == ("SUCCEEDED", len(_event_types(wfx.home, run_id))), answers
    (warning,) = [line for line in answers[1][2].splitlines() if line.startswith("warning: ")]
    assert f"WORKFLOW_EXECUTIONS workflowExecutionId='{run_id}'" in warning, warning


def test_a_run_sharing_a_step_id_imported_meanwhile_is_refused_and_the_first_run_kept(
    wfx: Wfx, tmp_path: Path
) -> None:
    """One run held after it found its step id in no other run; another run, its step id made
    the same, imported meanwhile. Before, both landed, their step rows (keyed by the step id
    alone) shared: deleting either would take the other's."""
    lines, (kept, forger) = _exported_lines(wfx, 2)
    kept_step, forger_step = _step_of(lines, kept), _step_of(lines, forger)
    first = _write(
        tmp_path / "first.jsonl",
        [line for line in lines if json.loads(line).get("run", kept) == kept],
    )
    forged = [
        line.replace(forger_step, kept_step)
        for line in lines
        if json.loads(line).get("run", forger) == forger
    ]
    second = _write(tmp_path / "forged.jsonl", forged)
    home = wfx.in_home(tmp_path / "target")

    answers = _race(home, tmp_path, "_refuse_steps_of_other_runs", first, second)

    assert [code for code, _, _ in answers] == [0, 1], answers
    (rejected,) = [line for line in answers[1][2].splitlines() if line.startswith("error: ")]
    assert f"run {forger}: item.pipelineExecutionId: '{kept_step}'" in rejected, rejected
    assert kept in rejected.split("item.pipelineExecutionId")[1], rejected
    assert home.listed_ids() == [kept]
    assert _log_rows(home.home, kept_step) == _log_rows(wfx.home, kept_step)
