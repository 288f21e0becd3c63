"""`wfx maintenance backfill-list-partition` on a SQLite home: unlisted runs are listed again."""

from __future__ import annotations

import sqlite3

from tests.e2e.cli import Wfx


def _unstamp(wfx: Wfx, execution_id: str) -> None:
    """What a write path that forgot the attribute leaves: neither the item nor its column."""
    with sqlite3.connect(wfx.home / "wfx.db") as connection:
        connection.execute(
            'UPDATE "WorkflowExecutionsStorageTableV2" SET "allListPartition" = NULL, '
            'item = json_remove(item, \'$."allListPartition"\') WHERE "workflowExecutionId" = ?',
            (execution_id,),
        )


def _listed(wfx: Wfx) -> list[str]:
    return [row["workflowExecutionId"] for row in wfx.json("executions", "list")["Items"]]


def test_the_backfill_lists_again_the_runs_missing_from_the_global_list(wfx: Wfx) -> None:
    wfx.publish_command_step("noop", "pass")
    first, second = (wfx.run_id("demo/noop") for _ in range(2))
    _unstamp(wfx, first)
    assert _listed(wfx) == [second]

    dry = wfx.json("maintenance", "backfill-list-partition", "--dry-run")
    assert dry == {
        "scanned": 2,
        "stamped": 0,
        "alreadyStamped": 1,
        "missing": 1,
        "raced": 0,
        "dryRun": True,
    }
    assert _listed(wfx) == [second]

    done = wfx.ok("maintenance", "backfill-list-partition", "--page-size", "1")
    assert "2 main rows scanned: 1 stamped, 1 already stamped." in done.stdout
    assert _listed(wfx) == [second, first]

    again = wfx.json("maintenance", "backfill-list-partition")
    assert (again["stamped"], again["alreadyStamped"]) == (0, 2)


def test_a_page_size_out_of_bounds_is_refused_by_name(wfx: Wfx) -> None:
    outcome = wfx("maintenance", "backfill-list-partition", "--page-size", "0")
    assert outcome.code != 0
    assert "--page-size" in outcome.stderr and "Traceback" not in outcome.stderr
