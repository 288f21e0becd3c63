"""A full disk under WFX_HOME, for real: the home on a 4 MiB tmpfs filled to the last byte.
`wfx run` and `wfx executions list` say so in one line naming the home and what to do (exit
3), with no traceback; once space is freed the same home works again. A read that can open the
database (another process, here the test's own, holds it open) but cannot record what it found
still answers, with one warning line. Needs root to mount."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.cli import TRIVIAL_WORKFLOW, Wfx
from tests.e2e.never_taken import launched_and_never_taken
from tests.small_home import fill
from tests.small_home import small_home as mounted_small_home

pytestmark = pytest.mark.integration

EXIT_SERVICE_UNAVAILABLE = 3


@pytest.fixture
def small_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with mounted_small_home(tmp_path_factory) as home:
        yield home


def test_a_full_home_is_one_line_on_run_and_list(small_home: Path) -> None:
    wfx = Wfx(small_home)
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    wfx.run_id("demo/trivial")
    filler = fill(small_home)

    for args in (("run", "demo/trivial"), ("executions", "list")):
        outcome = wfx(*args)
        assert outcome.code == EXIT_SERVICE_UNAVAILABLE, str(outcome)
        assert "Traceback" not in outcome.stderr
        (line,) = outcome.stderr_lines
        assert line.startswith(f"error: WFX_HOME ({small_home})"), line
        assert "full" in line

    filler.unlink()
    assert len(wfx.listed_ids()) == 1


CLI_LEASE_SECONDS = 1.0  # the shortest WFX_RUNNER_LEASE_SECONDS takes


def test_a_read_that_cannot_record_a_lost_runner_shows_the_run_as_stored(
    small_home: Path,
) -> None:
    wfx = Wfx(small_home).with_environment(WFX_RUNNER_LEASE_SECONDS=str(CLI_LEASE_SECONDS))
    # this process keeps the database open (its -wal and -shm stay: a reader needs no space)
    execution_id, _open = launched_and_never_taken(small_home, CLI_LEASE_SECONDS)
    time.sleep(CLI_LEASE_SECONDS * 1.5)
    filler = fill(small_home)

    for args in (("executions", "list"), ("executions", "show", execution_id)):
        outcome = wfx(*args)
        assert outcome.code == 0, str(outcome)
        assert execution_id in outcome.stdout and "RUNNING" in outcome.stdout, str(outcome)
        (line,) = outcome.stderr_lines
        assert line.startswith(f"warning: run {execution_id} shown as stored, may be stale"), line
        assert str(small_home) not in line  # nothing of the store's error

    filler.unlink()
    shown = wfx("executions", "show", execution_id)
    assert shown.code == 0 and not shown.stderr_lines, str(shown)
    assert "FAILED" in shown.stdout and "wfx.RunnerLost" in shown.stdout, str(shown)
