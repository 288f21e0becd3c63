"""A SQLite file an earlier wfx made lacks the tables added since: the next command adds them,
and everything stored stays. (A laptop upgraded wfx: `make run` used to fail on such a file
with "the SQLite file has no wfx tables".)"""

from __future__ import annotations

import sqlite3

from tests.e2e.cli import TRIVIAL_WORKFLOW, Wfx

# tables later wfx releases added, which an earlier file lacks (a file of 2026-12-01 10:00 lacked
# these and the definitions' tables, whose upgrade test_sqlite_catalog_upgrade covers)
ADDED_SINCE = (
    "WfxExecutionEventsTable",
    "WfxCostLedgerTable",
    "WfxApprovalRequestsTable",
    "WfxArtifactsTable",
    "WfxResolvedInputFilesTable",
)


def _tables(wfx: Wfx) -> set[str]:
    with sqlite3.connect(wfx.home / "wfx.db") as connection:
        rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {name for (name,) in rows}


def test_a_file_of_an_earlier_wfx_gets_the_new_tables_and_keeps_its_runs(wfx: Wfx) -> None:
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    earlier_run = wfx.ok("run", "demo/trivial").stdout.strip()
    with sqlite3.connect(wfx.home / "wfx.db") as connection:
        for table in ADDED_SINCE:
            connection.execute(f'DROP TABLE "{table}"')
    assert not set(ADDED_SINCE) & _tables(wfx)

    listed = wfx("executions", "list", "--json")

    assert listed.code == 0, str(listed)
    assert set(ADDED_SINCE) <= _tables(wfx)
    assert [run["workflowExecutionId"] for run in listed.json()["Items"]] == [earlier_run]
    shown = wfx.json("executions", "show", earlier_run)
    assert shown["executionStatus"] == "SUCCEEDED"
    # and the upgraded file takes new work
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    assert wfx("run", "demo/trivial").code == 0
