"""The Approvals port on every store, with the run writer that opens and closes requests: a
request and its event in one write, decided once, the pending list newest first from its sparse
index, and every request of a run with it."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest

from adapters.item_budget import OffloadedBodies
from adapters.sqlite.approvals import SqliteApprovals
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.schema import build_schema
from adapters.sqlite.unit_of_work import SqliteUnitOfWork
from adapters.tables import TableNames
from application.ports.approvals import Approvals
from application.ports.executions import ExecutionEvents, ExecutionStore
from domain.approvals import (
    ApprovalGate,
    ApprovalNotFoundError,
    ApprovalRequest,
    ApprovalStatus,
    Decision,
)
from domain.errors import ExecutionNotFoundError, InvalidInputError
from domain.run import Run, RunChange
from domain.run_write import RunWrite
from tests.contract.builders import a_launch, at, step_id, write_change, write_launch
from tests.integration.test_registration_concurrency import OneRequestAtATime

STORES = ["sqlite_file", "sqlite_memory", "dynamodb"]
GATE = ApprovalGate(approvers=("alice", "role::reviewers"), message="ship it?", timeout_seconds=60)


@pytest.fixture(params=STORES)
def backend(request: pytest.FixtureRequest) -> tuple[ExecutionStore, Approvals, ExecutionEvents]:
    if request.param == "dynamodb":
        from adapters.dynamodb.approvals import DynamoDbApprovals
        from adapters.dynamodb.unit_of_work import DynamoDbUnitOfWork

        # moto's in-process backend takes one request at a time, as DynamoDB applies each
        client: Any = OneRequestAtATime(request.getfixturevalue("moto_dynamodb_client"))
        names = request.getfixturevalue("dynamodb_table_names")
        store = request.getfixturevalue("dynamodb_execution_store")
        log = DynamoDbUnitOfWork(client, names, OffloadedBodies(None))
        return store, DynamoDbApprovals(client, names), log
    database: SqliteDatabase = request.getfixturevalue(f"{request.param}_database")
    store = request.getfixturevalue(f"{request.param}_execution_store")
    schema = build_schema(TableNames())
    approvals = SqliteApprovals(database, schema)
    approvals.create_tables()
    return store, approvals, SqliteUnitOfWork(database, schema, OffloadedBodies(None))


def a_request(run: str, approval_id: str, minute: int = 1, index: int = 0) -> ApprovalRequest:
    return ApprovalRequest.open(
        approval_id,
        GATE,
        workflow_execution_id=run,
        pipeline_execution_id=step_id(run, index),
        attempt=1,
        pipeline_id=f"gate{index}",
        workflow_database_id="db1",
        workflow_id="wf1",
        at=at(minute),
    )


def opened(
    store: ExecutionStore, approvals: Approvals, request: ApprovalRequest
) -> ApprovalRequest:
    """The request as the run holds it once opened (the first one, when it was opened before)."""
    store.commit(RunWrite.opening(request))
    return approvals.get(request.approval_id)


def close(store: ExecutionStore, closed: ApprovalRequest) -> bool:
    return bool(store.commit(RunWrite.closing(closed)))


def park(store: ExecutionStore, request: ApprovalRequest, change: RunChange) -> bool:
    return bool(store.commit(RunWrite.parking(request, change)))


def event_kinds(log: ExecutionEvents, run: str) -> list[tuple[str, str | None, str | None]]:
    return [
        (e.event_type.value, e.status, e.approval_id) for e in log.events_after(run, 0, 100).items
    ]


def test_an_opened_request_is_stored_with_its_event(backend: Any) -> None:
    store, approvals, log = backend
    write_launch(store, a_launch("e1"))
    request = a_request("e1", "ap-1")
    assert store.commit(RunWrite.opening(request)) is True
    assert approvals.get("ap-1") == request
    assert approvals.list_for_execution("e1") == [request]
    assert event_kinds(log, "e1")[-1] == ("ApprovalRequested", "PENDING", "ap-1")


def test_opening_again_returns_the_stored_request_and_writes_nothing(backend: Any) -> None:
    store, approvals, log = backend
    write_launch(store, a_launch("e1"))
    first = opened(store, approvals, a_request("e1", "ap-1", minute=1))
    assert not store.commit(RunWrite.opening(a_request("e1", "ap-1", minute=5)))
    assert approvals.get("ap-1") == first
    assert [k for k, _, _ in event_kinds(log, "e1")].count("ApprovalRequested") == 1


def test_a_request_of_an_unknown_run_is_refused(backend: Any) -> None:
    store, approvals, _ = backend
    with pytest.raises(ExecutionNotFoundError):
        store.commit(RunWrite.opening(a_request("nope", "ap-1")))
    with pytest.raises(ApprovalNotFoundError):
        approvals.get("ap-1")


def test_a_request_is_closed_once(backend: Any) -> None:
    store, approvals, log = backend
    write_launch(store, a_launch("e1"))
    request = opened(store, approvals, a_request("e1", "ap-1"))
    approved = request.decide(Decision.APPROVE, "alice", (), "looks right", at(2))
    rejected = request.decide(Decision.REJECT, "bob", ("reviewers",), "no", at(3))
    assert close(store, approved) is True
    assert close(store, rejected) is False  # decided already: nothing written
    assert close(store, request.timed_out(at(4))) is False
    stored = approvals.get("ap-1")
    assert (stored.status, stored.decided_by, stored.reason) == (
        ApprovalStatus.APPROVED,
        "alice",
        "looks right",
    )
    decided = [e for e in log.events_after("e1", 0, 100).items if e.event_type == "ApprovalDecided"]
    assert [(e.status, e.decided_by, e.cause) for e in decided] == [
        ("APPROVED", "alice", "looks right")
    ]


def test_a_decision_holds_only_while_its_run_is_open_with_no_abort_requested(
    backend: Any,
) -> None:
    store, approvals, log = backend
    write_launch(store, a_launch("e1"))
    request = opened(store, approvals, a_request("e1", "ap-1"))
    approved = request.decide(Decision.APPROVE, "alice", (), "", at(2))
    change = Run(execution=store.get_execution("e1")).request_abort(at(2), "stop")
    assert change is not None and write_change(store, change) is not None

    assert not store.commit(RunWrite.deciding(approved))
    assert approvals.get("ap-1").status is ApprovalStatus.PENDING
    assert ("ApprovalDecided", "APPROVED", "ap-1") not in event_kinds(log, "e1")
    # a close that is no decision (the run's end, a timeout) needs no open run
    assert close(store, request.cancelled(at(3), "the run ended")) is True


def test_a_pending_request_takes_a_new_task_token_with_no_event(backend: Any) -> None:
    """A Step Functions task tried again waits on a new token: only the newest is answered."""
    store, approvals, log = backend
    write_launch(store, a_launch("e1"))
    request = opened(store, approvals, a_request("e1", "ap-1").with_task_token("token-1"))
    events_before = event_kinds(log, "e1")

    assert approvals.renew_task_token(request.with_task_token("token-2")) is True
    assert approvals.get("ap-1") == request.with_task_token("token-2")
    assert approvals.list_requests(True, 10).items == (request.with_task_token("token-2"),)
    assert event_kinds(log, "e1") == events_before


def test_a_closed_or_unknown_request_keeps_its_task_token(backend: Any) -> None:
    store, approvals, _ = backend
    write_launch(store, a_launch("e1"))
    request = opened(store, approvals, a_request("e1", "ap-1").with_task_token("token-1"))
    close(store, request.decide(Decision.APPROVE, "alice", (), "", at(2)))

    assert approvals.renew_task_token(request.with_task_token("token-2")) is False
    stored = approvals.get("ap-1")
    assert (stored.status, stored.task_token) == (ApprovalStatus.APPROVED, "token-1")
    unknown = a_request("e1", "ap-2").with_task_token("token-3")
    assert approvals.renew_task_token(unknown) is False
    with pytest.raises(ApprovalNotFoundError):
        approvals.get("ap-2")


def test_a_request_never_shows_its_task_token_in_its_repr() -> None:
    """The token is a credential: an error or log line printing the request leaves it out."""
    request = a_request("e1", "ap-1").with_task_token("secret-token")
    assert "secret-token" not in repr(request) and "secret-token" not in str(request)


def test_racing_deciders_one_wins(backend: Any) -> None:
    store, approvals, log = backend
    write_launch(store, a_launch("e1"))
    request = opened(store, approvals, a_request("e1", "ap-1"))
    outcomes: list[bool] = []
    lock = threading.Lock()

    def decide(user: str) -> None:
        closed = request.decide(Decision.APPROVE, "alice", (), user, at(2))
        won = close(store, closed)
        with lock:
            outcomes.append(won)

    threads = [threading.Thread(target=decide, args=(f"try{n}",)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == [False] * 5 + [True]
    numbers = [e.sequence_number for e in log.events_after("e1", 0, 100).items]
    assert numbers == list(range(1, len(numbers) + 1))
    assert [k for k, _, _ in event_kinds(log, "e1")].count("ApprovalDecided") == 1


def test_pending_requests_are_listed_newest_first_and_leave_the_list_once_closed(
    backend: Any,
) -> None:
    store, approvals, _ = backend
    for run in ("e1", "e2", "e3"):
        write_launch(store, a_launch(run))
    requests = [
        opened(store, approvals, a_request(run, f"ap-{n}", minute=n))
        for n, run in enumerate(("e1", "e2", "e3", "e1"), 1)
    ]
    close(store, requests[1].cancelled(at(9), "the run ended"))
    pending = approvals.list_requests(True, 10)
    assert [r.approval_id for r in pending.items] == ["ap-4", "ap-3", "ap-1"]
    assert pending.next_token is None
    everything = approvals.list_requests(False, 10)
    assert [r.approval_id for r in everything.items] == ["ap-4", "ap-3", "ap-2", "ap-1"]
    assert [r.approval_id for r in approvals.list_for_execution("e1")] == ["ap-1", "ap-4"]


def test_the_lists_page_by_token(backend: Any) -> None:
    store, approvals, _ = backend
    write_launch(store, a_launch("e1"))
    for n in range(1, 6):
        opened(store, approvals, a_request("e1", f"ap-{n}", minute=n, index=n))
    seen: list[str] = []
    token = None
    for _ in range(5):
        page = approvals.list_requests(True, 2, token)
        seen.extend(r.approval_id for r in page.items)
        token = page.next_token
        if token is None:
            break
    assert seen == ["ap-5", "ap-4", "ap-3", "ap-2", "ap-1"]
    with pytest.raises(InvalidInputError, match="startingToken"):
        approvals.list_requests(True, 2, "not-a-token")


def test_a_deleted_run_takes_its_requests_with_it(backend: Any) -> None:
    store, approvals, _ = backend
    write_launch(store, a_launch("e1"))
    opened(store, approvals, a_request("e1", "ap-1"))
    assert store.delete_execution("e1")
    assert approvals.list_for_execution("e1") == []
    with pytest.raises(ApprovalNotFoundError):
        approvals.get("ap-1")
    assert approvals.list_requests(True, 10).items == ()


def test_the_expiry_is_the_request_moment_plus_the_timeout(backend: Any) -> None:
    store, approvals, _ = backend
    write_launch(store, a_launch("e1"))
    request = opened(store, approvals, a_request("e1", "ap-1"))
    stored = approvals.get(request.approval_id)
    assert stored.expires_at - stored.requested_at == timedelta(seconds=60)
    assert not stored.expired(at(1) + timedelta(seconds=59))
    assert stored.expired(at(1) + timedelta(seconds=60))


def _leased(store: ExecutionStore, run: str, owner: str) -> Run:
    taken = store.get_run(run).take_lease(owner, at(1), timedelta(seconds=30))
    assert write_change(store, taken) is not None
    return store.get_run(run)


def test_a_run_parks_at_a_pending_gate_and_is_handed_over_to_any_runner(backend: Any) -> None:
    store, approvals, _ = backend
    write_launch(store, a_launch("e1"))
    request = opened(store, approvals, a_request("e1", "ap-1"))
    run = _leased(store, "e1", "runner-1")
    soon = at(1) + timedelta(seconds=5)  # the gate's timeout is 60 s
    assert park(store, request, run.park("runner-1", request, soon)) is True
    parked = store.get_run("e1")
    assert parked.parked_at() == "ap-1"
    # nobody holds it: no runner is lost however long it waits
    assert not parked.lease_expired(at(60 * 24 * 30), timedelta(seconds=30))
    # a runner cannot take it while it is parked...
    refused = parked.take_lease("runner-2", soon, timedelta(seconds=30))
    assert write_change(store, refused) is None
    # ...and can once the decision handed it over
    handover = parked.hand_over("ap-1", soon, timedelta(seconds=30))
    assert handover is not None and write_change(store, handover) is not None
    assert store.get_run("e1").hand_over("ap-1", soon, timedelta(seconds=30)) is None
    taken = store.get_run("e1").take_lease("runner-2", soon, timedelta(seconds=30))
    stored = write_change(store, taken)
    assert stored is not None and stored.runner_lease is not None
    assert stored.runner_lease.owner == "runner-2"


def test_a_decided_gate_is_not_parked_at(backend: Any) -> None:
    store, approvals, _ = backend
    write_launch(store, a_launch("e1"))
    request = opened(store, approvals, a_request("e1", "ap-1"))
    run = _leased(store, "e1", "runner-1")
    close(store, request.decide(Decision.APPROVE, "alice", (), "", at(2)))
    assert park(store, request, run.park("runner-1", request, at(3))) is False
    lease = store.get_execution("e1").runner_lease
    assert lease is not None and lease.owner == "runner-1"  # still the runner's: it goes on


def test_a_park_by_a_runner_that_lost_its_lease_is_refused(backend: Any) -> None:
    store, approvals, _ = backend
    write_launch(store, a_launch("e1"))
    request = opened(store, approvals, a_request("e1", "ap-1"))
    run = _leased(store, "e1", "runner-1")
    assert park(store, request, run.park("runner-old", request, at(2))) is False
    assert store.get_run("e1").parked_at() is None
