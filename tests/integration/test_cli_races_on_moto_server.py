"""Two real `wfx` processes racing on one run, on one moto server: an abort and a forced
delete, a redrive and a delete, an approval and an abort (two decisions of one gate: on a
SQLite file, its docstring says why). Each pair starts together (forked from
the warm wfx at once); whichever wins, the stored items must say one story afterwards: one
decision and the run where it leads, or no item of a deleted run left in any table, and the
loser told in one line why, never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from adapters.dynamodb.codec import from_wire
from conftest import restore_dynamodb_tables
from tests.e2e.cli import FAILING_WORKFLOW, FAKE_AWS, Outcome, Wfx
from tests.e2e.test_cli_approvals import _publish_gated
from tests.integration.moto_server import moto_server, served_client

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("cli-races-on-moto")]


@pytest.fixture
def endpoint(_pristine_dynamodb_tables: dict[str, Any]) -> Iterator[str]:
    # the tables taken first: made the first time in a mock_aws(), which empties the server's
    # backends
    with moto_server(one_request_at_a_time=True) as url:
        # every table, empty, as `wfx tables create` makes them (test_cli_on_moto_server's
        # subject; not these races')
        restore_dynamodb_tables(_pristine_dynamodb_tables)
        yield url


@pytest.fixture
def wfx(tmp_path: Path, endpoint: str) -> Wfx:
    return Wfx(tmp_path / "home", WFX_STORE="dynamodb", WFX_DYNAMODB_ENDPOINT=endpoint, **FAKE_AWS)


def _together(*calls: tuple[Wfx, tuple[str, ...]]) -> list[Outcome]:
    with ThreadPoolExecutor(len(calls)) as pool:
        started = [pool.submit(wfx, *args) for wfx, args in calls]
        return [future.result() for future in started]


def _items_of(endpoint: str, execution_id: str) -> dict[str, list[dict[str, Any]]]:
    """Every item of every table on the endpoint that names the run, by table."""
    client = served_client("dynamodb", endpoint)
    found: dict[str, list[dict[str, Any]]] = {}
    for table in client.list_tables()["TableNames"]:
        for page in client.get_paginator("scan").paginate(TableName=table):
            items = [from_wire(i) for i in page["Items"] if execution_id in str(i)]
            if items:
                found.setdefault(table, []).extend(items)
    return found


def _one_line_refusal(outcome: Outcome) -> str:
    assert outcome.code == 2 and "Traceback" not in outcome.stderr, str(outcome)
    [line] = outcome.stderr_lines
    return line


def _parked(wfx: Wfx, tmp_path: Path) -> tuple[str, str]:
    """A run of demo/gated held at its gate: (its id, the approval's id)."""
    _publish_gated(wfx, tmp_path / "shipped")
    execution_id = wfx.ok("run", "demo/gated").stdout.split()[-1]
    [pending] = wfx.json("approvals", "list", "--pending")["Items"]
    return execution_id, pending["approvalId"]


def test_two_decisions_of_one_gate_one_wins_and_the_run_follows_it(tmp_path: Path) -> None:
    """On a SQLite file, not moto: moto's threaded server runs two TransactWriteItems with no
    lock between one's condition checks and its writes (moto/dynamodb/models, 5.2.5), so both
    decisions' `approvalStatus = PENDING` held once in ~10 tries (both exit 0, the later Put
    over the earlier), which DynamoDB itself never lets happen. There the race would test
    moto; the conditional Put is the same one the other tests here exercise."""
    wfx = Wfx(tmp_path / "home")
    execution_id, approval_id = _parked(wfx, tmp_path)
    carol = wfx.with_environment(WFX_USER="carol")

    approve, reject = _together(
        (carol, ("approvals", "approve", approval_id)),
        (carol, ("approvals", "reject", approval_id, "--reason", "no")),
    )

    assert sorted([approve.code, reject.code]) == [0, 2], (str(approve), str(reject))
    loser = reject if approve.code == 0 else approve
    assert "it is decided once" in _one_line_refusal(loser)
    [request] = wfx.json("approvals", "list", "--execution", execution_id)["Items"]
    decided, run = ("APPROVED", "SUCCEEDED") if approve.code == 0 else ("REJECTED", "FAILED")
    assert request["status"] == decided
    shown = wfx.json("executions", "show", execution_id)
    assert shown["executionStatus"] == run, shown
    assert (tmp_path / "shipped").exists() == (run == "SUCCEEDED")


def test_an_abort_and_a_forced_delete_of_one_run_leave_no_item_of_it(
    wfx: Wfx, tmp_path: Path, endpoint: str
) -> None:
    execution_id, _ = _parked(wfx, tmp_path)
    assert _items_of(endpoint, execution_id)

    abort, delete = _together(
        (wfx, ("executions", "abort", execution_id)),
        (wfx, ("executions", "delete", "--force", execution_id)),
    )

    assert delete.code == 0, str(delete)
    if abort.code != 0:
        assert "not found" in _one_line_refusal(abort) or "deleted" in abort.stderr, str(abort)
    assert _items_of(endpoint, execution_id) == {}
    assert wfx("executions", "show", execution_id).code == 2


def test_a_redrive_and_a_delete_of_one_failed_run_never_leave_half_a_run(
    wfx: Wfx, endpoint: str
) -> None:
    wfx.ok("workflows", "publish", str(FAILING_WORKFLOW))
    ran = wfx("run", "demo/failing")
    assert ran.code == 1, str(ran)
    execution_id = ran.stdout.split()[-1]
    assert _items_of(endpoint, execution_id)

    redrive, delete = _together(
        (wfx, ("executions", "redrive", execution_id)),
        (wfx, ("executions", "delete", execution_id)),
    )

    left = _items_of(endpoint, execution_id)
    if delete.code == 0:  # the redrive was refused, or came too late to find the run
        assert left == {}, left
        if redrive.code != 1:
            line = _one_line_refusal(redrive)
            assert "deleted" in line or "not found" in line, line
    else:  # the redrive won: the run is whole, failed again at the same step
        line = _one_line_refusal(delete).lower()  # RUNNING, PENDING_REDRIVE, being redriven
        assert "redriv" in line or "running" in line or "not ended" in line, line
        shown = wfx.json("executions", "show", execution_id)
        assert shown["executionStatus"] == "FAILED" and shown["redriveCount"] == 1, shown


def test_an_approval_and_an_abort_of_one_parked_run_agree_on_what_happened(
    wfx: Wfx, tmp_path: Path
) -> None:
    """Seen each way in repeated runs: the abort first (the approval CANCELLED, its approver
    told the run is being aborted, or that the gate is CANCELLED), or the approval first
    (APPROVED, then the next step ABORTED before it ran: the approver's own answer says the
    run ended ABORTED)."""
    execution_id, approval_id = _parked(wfx, tmp_path)
    carol = wfx.with_environment(WFX_USER="carol")

    approve, abort = _together(
        (carol, ("approvals", "approve", approval_id)),
        (wfx, ("executions", "abort", execution_id)),
    )

    assert abort.code == 0, str(abort)
    shown = wfx.json("executions", "show", execution_id)
    [request] = wfx.json("approvals", "list", "--execution", execution_id)["Items"]
    assert shown["executionStatus"] == "ABORTED", shown
    assert not (tmp_path / "shipped").exists()  # the step after the gate never ran
    if approve.code == 0:
        assert request["status"] == "APPROVED"
        assert f"{execution_id} ABORTED" in approve.stdout, str(approve)
    else:
        line = _one_line_refusal(approve)  # the abort under way, or done: the gate cancelled
        assert "is being aborted" in line or "is CANCELLED" in line, line
        assert request["status"] == "CANCELLED"
