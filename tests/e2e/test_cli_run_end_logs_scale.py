"""A `wfx run` whose step prints tens of MB, as a real process: the run's end (the steps'
summaries, the run log stored whole in the object store and cut for the row) holds a piece of
the log at a time, not the log, and stores what it stored when it read the log whole."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from adapters.local.object_store import FilesystemObjectStore
from domain.redaction import redact
from tests.e2e.cli import Wfx, tree_peak_kib

pytestmark = pytest.mark.xdist_group("e2e-cli-run-end-logs-scale")

SMALL_LINES, LARGE_LINES = 1_000, 300_000  # lines of 100 bytes: 100 KB against 30 MB
# read whole, 30 MB of log cost ~2-3x its size at the run's end (the step log, the run log, its
# redacted copy and its encoding); streamed, a piece (256 K characters) and the row's tail
MOST_GROWTH_KIB = 16 * 1024
KEY_BODY = ("MIIEowIBAAKCAQEA" * 4, "q83vEjQ4d5pT0z" * 4)
TAIL_CHARACTERS = 4000  # what a step's summary keeps of its log
ROW_TAIL_BYTES = 64 * 1024  # what the run's row keeps of its run log

# a key block in the middle, and one whose first lines fall before the summary's tail
_STEP = """
import sys
write = sys.stdout.write
dashes, label = "-" * 5, "RSA PRIVATE " + "KEY"  # no whole block in the command: it is cut
def block(bodies):
    write(f"{dashes}BEGIN {label}{dashes}\\n" + "".join(b + "\\n" for b in bodies))
    write(f"{dashes}END {label}{dashes}\\n")
for n in range(lines - 30):
    write(f"line {n:09d} {'x' * 84}\\n")
    if n == lines // 2:
        block(key)
block(key * 10)
for n in range(lines - 30, lines):
    write(f"line {n:09d} {'x' * 84}\\n")
"""


def _publish(wfx: Wfx, workflow_id: str, lines: int) -> None:
    wfx.publish_command_step(workflow_id, f"lines, key = {lines}, {KEY_BODY!r}" + _STEP)


def _rows(home: Path, execution_id: str) -> tuple[str, dict[str, object]]:
    """The step's stored summary and the run's row, as the SQLite file holds them."""
    with sqlite3.connect(home / "wfx.db") as db:
        (summary,) = db.execute("SELECT item FROM PipelineExecutionLogsStorageTable").fetchall()
        (run,) = db.execute(
            "SELECT item FROM WorkflowExecutionsStorageTableV2 WHERE workflowExecutionId = ?",
            (execution_id,),
        ).fetchall()
    return json.loads(summary[0])["resultLog"], json.loads(run[0])


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Wfx, int, str]]:
    """A run of a small step log and one of a large: their wfx, peak KiB and run id."""
    done = []
    for lines in (SMALL_LINES, LARGE_LINES):
        wfx = Wfx(tmp_path_factory.mktemp("run-end-logs"))
        _publish(wfx, "big", lines)
        peak, outcome = tree_peak_kib(wfx, "run", "demo/big")
        assert outcome.code == 0, str(outcome)
        done.append((wfx, peak, outcome.stdout.strip()))
    return done


def test_a_run_s_end_holds_a_piece_of_a_huge_step_log_not_the_log(
    runs: list[tuple[Wfx, int, str]],
) -> None:
    (_, small_peak, _), (_, large_peak, _) = runs
    assert large_peak - small_peak < MOST_GROWTH_KIB, (small_peak, large_peak)


def test_the_huge_log_s_summary_row_and_stored_run_log_are_as_the_whole_text_made_them(
    runs: list[tuple[Wfx, int, str]],
) -> None:
    wfx, _, execution_id = runs[1]
    (log_file,) = (wfx.home / "logs" / execution_id).glob("*.log")
    text = log_file.read_text(encoding="utf-8")
    summary, row = _rows(wfx.home, execution_id)

    assert summary == redact(f"step: SUCCEEDED\n{text[-TAIL_CHARACTERS:]}")
    assert "-----END RSA PRIVATE KEY-----" in summary  # the tail starts inside the block
    assert not any(body in summary for body in KEY_BODY)

    whole = redact(f"===== pipeline execution {log_file.stem} =====\n{text}").encode()
    key = row["executionLogObjectKey"]
    assert isinstance(key, str)
    assert FilesystemObjectStore(wfx.home / "objects").read_bytes(key) == whole
    assert row["executionLog"] == whole[-ROW_TAIL_BYTES:].decode()
    assert not any(body.encode() in whole for body in KEY_BODY)
