"""A SQLite file an earlier wfx wrote (tests/fixtures/wfx_0_1), upgraded by the first real
process that opens it (adapters/sqlite/item_upgrade.py): killed with SIGKILL half-way it leaves
the file as it was and the next command finishes it; a second process opening the file meanwhile
waits for the first's upgrade, past its own busy timeout, and sees the finished file."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from adapters.item_shapes_version import ITEM_SHAPES_VERSION
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.item_upgrade import upgrade_items
from adapters.sqlite.schema import build_schema
from adapters.tables import TableNames
from tests.e2e.cli import Wfx, start_hooked

pytestmark = pytest.mark.xdist_group("e2e-cli-item-upgrade-processes")

FIXTURE = Path(__file__).parents[1] / "fixtures" / "wfx_0_1" / "wfx.db"
RUNS = 5  # the fixture's
HELD_AFTER = 20  # items rebuilt, of the fixture's 83


def _held(signal: Path, release: Path) -> str:
    """A hook: the upgrade, once it has rebuilt some items inside its write transaction, touches
    `signal` and holds there until `release` is made."""
    return (
        "import pathlib, time\n"
        "import adapters.item_upgrade as shapes\n"
        "rebuild, done = shapes.upgraded_item, []\n"
        "def held(table, item):\n"
        f"    if len(done) == {HELD_AFTER}:\n"
        f"        pathlib.Path({str(signal)!r}).touch()\n"
        f"        while not pathlib.Path({str(release)!r}).exists():\n"
        "            time.sleep(0.01)\n"
        "    done.append(item)\n"
        "    return rebuild(table, item)\n"
        "shapes.upgraded_item = held\n"
    )


def _opening(signal: Path) -> str:
    """A hook: `signal` touched as the process begins the item upgrade, and a busy timeout much
    shorter than the file's upgrade is held (what it would give up after, were it waiting on the
    file's own write lock)."""
    return (
        "import pathlib\n"
        "import adapters.sqlite.database as database\n"
        "import adapters.sqlite.item_upgrade as upgrade\n"
        "database.BUSY_TIMEOUT_MS = 300\n"
        "begin = upgrade.upgrade_items\n"
        "def opening(*args):\n"
        f"    pathlib.Path({str(signal)!r}).touch()\n"
        "    return begin(*args)\n"
        "upgrade.upgrade_items = opening\n"
    )


def _old_home(tmp_path: Path, name: str) -> Wfx:
    wfx = Wfx(tmp_path / name)
    shutil.copy(FIXTURE, wfx.home / "wfx.db")
    return wfx


def _rows(path: Path) -> dict[str, list[str]]:
    """Every table's rows, sorted, as another process reads the file (committed data only); a
    table with none left out."""
    with sqlite3.connect(path) as connection:
        names = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        rows = {
            name: sorted(map(repr, connection.execute(f'SELECT * FROM "{name}"')))
            for (name,) in names.fetchall()
        }
    return {name: found for name, found in rows.items() if found}


def _upgraded_alone(tmp_path: Path) -> dict[str, list[str]]:
    """The rows of the fixture upgraded with nothing in the way (in this process: quicker)."""
    path = tmp_path / "alone.db"
    shutil.copy(FIXTURE, path)
    database = SqliteDatabase(path)
    upgrade_items(database, build_schema(TableNames()))
    database.close()
    return _rows(path)


def _version(path: Path) -> int:
    with sqlite3.connect(path) as connection:
        return int(connection.execute("PRAGMA user_version").fetchone()[0])


def _wait_for(signal: Path, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while not signal.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, f"{signal.name} never came"
        time.sleep(0.01)


def _listed(stdout: str) -> list[str]:
    return [run["workflowExecutionId"] for run in json.loads(stdout)["Items"]]


def test_an_upgrade_killed_half_way_leaves_the_file_as_it_was_and_the_next_open_finishes_it(
    tmp_path: Path,
) -> None:
    wfx = _old_home(tmp_path, "killed")
    database = wfx.home / "wfx.db"
    before = _rows(database)
    held = tmp_path / "held"
    hook = _held(held, release=tmp_path / "never")
    upgrading = start_hooked(wfx, hook, "executions", "list", "--json")
    _wait_for(held, upgrading)
    upgrading.kill()  # SIGKILL, in the write transaction
    upgrading.communicate(timeout=30)

    assert _version(database) == 0
    assert _rows(database) == before  # nothing of the upgrade kept

    listed = wfx("executions", "list", "--json")
    assert listed.code == 0, str(listed)
    assert len(_listed(listed.stdout)) == RUNS
    assert _version(database) == ITEM_SHAPES_VERSION
    assert _rows(database) == _upgraded_alone(tmp_path)  # as an upgrade never cut short
    assert sorted(p.name for p in wfx.home.glob("wfx.db.*")) == ["wfx.db.before-items-3"]


def test_a_second_process_opening_the_file_meanwhile_waits_and_sees_it_upgraded(
    tmp_path: Path,
) -> None:
    wfx = _old_home(tmp_path, "home")
    held, opening, release = tmp_path / "held", tmp_path / "opening", tmp_path / "release"
    first = start_hooked(wfx, _held(held, release), "executions", "list", "--json")
    _wait_for(held, first)
    second = start_hooked(wfx, _opening(opening), "executions", "list", "--json")
    _wait_for(opening, second)
    time.sleep(1)  # the second waits: past its busy timeout, were it on the file's write lock
    release.touch()

    first_out, first_err = first.communicate(timeout=60)
    second_out, second_err = second.communicate(timeout=60)

    assert first.returncode == 0, first_err
    assert second.returncode == 0, second_err
    assert len(_listed(first_out)) == RUNS
    assert _listed(second_out) == _listed(first_out)
    assert _version(wfx.home / "wfx.db") == ITEM_SHAPES_VERSION
    assert _rows(wfx.home / "wfx.db") == _upgraded_alone(tmp_path)  # upgraded once
    # the copy of the file as it was; the lock they took turns on, removed
    assert sorted(p.name for p in wfx.home.glob("wfx.db.*")) == ["wfx.db.before-items-3"]
