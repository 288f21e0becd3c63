"""Imports on DynamoDB (moto) with another writer landing between their looks and their writes.

Two states of one run imported at once: each import claims the run first
(adapters/dynamodb/import_claims.py), so the other one, landing after this one's look, is
refused and the run is one state whole.

An import's write of a workflow version, with a publish landing just before it: the
archive carries version 2 of a workflow the store has no definition of, so nothing stops it
when looked at; a publish then makes version 1 the latest. Written past that latest, version 2
would take the number the next publish claims and refuse every publish after. The import's
write checks the definition itself (a ConditionCheck in its TransactWriteItems), so it is
refused as past the latest. SQLite imports a run in one write transaction: nothing lands inside
it (tests/e2e/test_cli_import_races.py, real processes).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from adapters.records import build_step_definition_records, build_workflow_version_record
from adapters.tables import ResourceKeys
from application.ports.migration import (
    ArchivedBody,
    ArchivedItem,
    ArchivedRun,
    RunArchive,
    RunRefusedError,
)
from tests.contract.builders import a_launch, a_version, publish, some_outputs, write_launch


def test_a_version_whose_workflow_a_publish_made_before_the_write_is_not_written_past_it(
    moto_dynamodb_client: Any,
    dynamodb_workflow_definitions: Any,
    dynamodb_run_archive: RunArchive,
) -> None:
    dynamodb_workflow_definitions.create_tables()
    later = a_version(2)
    items = (
        ArchivedItem("WORKFLOW_VERSIONS", build_workflow_version_record(later), shared=True),
        *(
            ArchivedItem("STEP_DEFINITIONS", record, shared=True)
            for record in build_step_definition_records(later)
        ),
    )
    published: list[str] = []

    def publish_first(params: dict[str, Any], **_: Any) -> None:
        # another process publishes version 1 just before the import's first write of a version
        if not published and "WfxWorkflowVersionsTable" in repr(params):
            published.append("v1")
            publish(dynamodb_workflow_definitions, a_version(1))

    moto_dynamodb_client.meta.events.register("before-call.dynamodb.PutItem", publish_first)
    moto_dynamodb_client.meta.events.register(
        "before-call.dynamodb.TransactWriteItems", publish_first
    )

    imported = dynamodb_run_archive.import_run(ArchivedRun("r1", items))

    assert published == ["v1"]
    assert (imported.written, imported.unchanged) == (0, 0)
    assert len(imported.conflicts) == len(items)
    assert all(
        isinstance(line, str) and "version 2 is past the latest of db1:wf1 stored here (1)" in line
        for line in imported.conflicts
    )
    publish(dynamodb_workflow_definitions, a_version(2))  # the number is still free


@pytest.fixture
def two_states(
    dynamodb_execution_store: Any, dynamodb_run_archive: RunArchive
) -> tuple[ArchivedRun, ArchivedRun]:
    """Run r1 as an export taken while it ran (RUNNING, its steps NEW) and as the finished one
    (SUCCEEDED, its steps SUCCEEDED, the first step's outputs, one event more); then deleted."""
    store, archive = dynamodb_execution_store, dynamodb_run_archive
    write_launch(store, a_launch("r1"))
    early = archive.export_run("r1")
    store.add_step_outputs(some_outputs("r1", 0))
    finished = archive.export_run("r1")
    store.delete_execution("r1")
    done = {"executionStatus": "SUCCEEDED", "executionStopDate": "2024-03-04T10:00:00Z"}
    events = [i for i in finished.items if i.table == "EXECUTION_EVENTS"]
    last = max((int(i.item["sequenceNumber"]) for i in events), default=0)
    completed = {
        "workflowExecutionId": "r1",
        "sequenceNumber": last + 1,
        "eventType": "ExecutionCompleted",
    }

    def ended(archived: ArchivedItem) -> ArchivedItem:
        if archived.table in ("WORKFLOW_EXECUTIONS", "PIPELINE_EXECUTIONS"):
            return replace(archived, item=dict(archived.item) | done)
        return archived

    later = (*map(ended, finished.items[:-1]), ArchivedItem("EXECUTION_EVENTS", completed))
    return early, replace(finished, items=(*later, ended(finished.items[-1])))


@pytest.fixture
def another_import(
    moto_dynamodb_client: Any, dynamodb_table_names: Any, body_object_store: Any
) -> Callable[[float], RunArchive]:
    """Another process's archive on the same tables, waiting that long for a claim."""
    from adapters.dynamodb.run_archive import DynamoDbRunArchive

    def archive(claim_wait: float) -> RunArchive:
        return DynamoDbRunArchive(
            moto_dynamodb_client, dynamodb_table_names, body_object_store, claim_wait=claim_wait
        )

    return archive


def _what_a_user_sees(archive: RunArchive) -> tuple[str, set[str], bool, int]:
    """The run's main row status, its steps' statuses, whether its events end with its
    completion, and how many output rows its steps hold."""
    items = archive.export_run("r1").items
    (main,) = [i.item for i in items if i.table == "WORKFLOW_EXECUTIONS"]
    steps = {str(i.item["executionStatus"]) for i in items if i.table == "PIPELINE_EXECUTIONS"}
    events = sorted(
        (i.item for i in items if i.table == "EXECUTION_EVENTS"),
        key=lambda event: int(event["sequenceNumber"]),
    )
    completed = bool(events) and events[-1]["eventType"] == "ExecutionCompleted"
    outputs = sum(1 for i in items if i.table == "PIPELINE_OUTPUT_FILES")
    return str(main["executionStatus"]), steps, completed, outputs


@pytest.mark.parametrize("first", ["finished", "early"])
def test_two_states_of_one_run_imported_at_once_land_one_state_whole(
    first: str,
    moto_dynamodb_client: Any,
    dynamodb_table_names: Any,
    dynamodb_run_archive: RunArchive,
    two_states: tuple[ArchivedRun, ArchivedRun],
    another_import: Callable[[float], RunArchive],
) -> None:
    """The other state's whole import lands between this import's look at the run (no main row)
    and its first write of it. Before, the finished state's import then added its steps'
    outputs and its completion event under the early state's RUNNING main row and NEW steps."""
    early, finished = two_states
    this, other = (finished, early) if first == "finished" else (early, finished)
    meanwhile = another_import(0)  # it finds this one's claim: waiting would wait in vain here
    authorization = dynamodb_table_names.get_table_name(ResourceKeys.AUTHORIZATION)
    landed: list[object] = []

    def the_other_import_first(params: dict[str, Any], **_: Any) -> None:
        if landed or authorization in repr(params):  # the claims
            return
        landed.append("begun")
        try:
            landed.append(meanwhile.import_run(other))
        except RunRefusedError as refused:
            landed.append(refused)

    for call in ("PutItem", "TransactWriteItems"):
        moto_dynamodb_client.meta.events.register(
            f"before-call.dynamodb.{call}", the_other_import_first
        )

    dynamodb_run_archive.import_run(this)

    seen = _what_a_user_sees(dynamodb_run_archive)
    whole = {
        "finished": ("SUCCEEDED", {"SUCCEEDED"}, True, 1),
        "early": ("RUNNING", {"NEW"}, False, 0),
    }
    assert seen == whole[first], f"rows of both states: {seen}"
    assert dynamodb_run_archive.differences(this) == []
    (_, refused) = landed
    assert isinstance(refused, RunRefusedError), refused
    assert "another import of run 'r1' has been writing it since" in refused.message


def _claim_of(client: Any, tables: Any) -> dict[str, Any] | None:
    from adapters.authorization_records import import_claim_key
    from adapters.dynamodb.requests import get_item

    table = tables.get_table_name(ResourceKeys.AUTHORIZATION)
    return get_item(client, table, import_claim_key("r1"))


def _put_claim(client: Any, tables: Any, expires_at: int) -> None:
    """Another import's claim on r1, of a state none of the tests imports."""
    from adapters.authorization_records import build_import_claim_record
    from adapters.dynamodb.codec import to_wire

    record = build_import_claim_record(
        "r1", "another", "2026-12-06T07:00:00Z", expires_at, "another state"
    )
    table = tables.get_table_name(ResourceKeys.AUTHORIZATION)
    client.put_item(TableName=table, Item=to_wire(record))


def test_a_claim_another_import_holds_refuses_the_run_after_the_wait_writing_nothing(
    moto_dynamodb_client: Any,
    dynamodb_table_names: Any,
    two_states: tuple[ArchivedRun, ArchivedRun],
    another_import: Callable[[float], RunArchive],
) -> None:
    _, finished = two_states
    numbered = replace(
        finished, items=tuple(replace(i, line=n) for n, i in enumerate(finished.items, 2))
    )
    expires = int(time.time()) + 600
    _put_claim(moto_dynamodb_client, dynamodb_table_names, expires)
    lapses = datetime.fromtimestamp(expires, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    waiting = another_import(0.5)

    began = time.monotonic()
    with pytest.raises(RunRefusedError) as refused:
        waiting.import_run(numbered)

    assert time.monotonic() - began >= 0.5  # it waited for the other import to end
    assert refused.value.line == 2
    assert refused.value.message == (
        "another import of run 'r1' has been writing it since 2026-12-06T07:00:00Z (nothing of "
        "the run imported by this one); import the file again once that one has ended; if it "
        f"was killed, its claim lapses at {lapses}"
    )
    assert all(line.endswith("not stored") for line in waiting.differences(finished))
    claim = _claim_of(moto_dynamodb_client, dynamodb_table_names)
    assert claim is not None and claim["claimToken"] == "another"  # the other's, untouched


def test_a_claim_a_killed_import_left_past_its_expiry_is_taken_over_and_removed(
    moto_dynamodb_client: Any,
    dynamodb_table_names: Any,
    dynamodb_run_archive: RunArchive,
    dynamodb_authorization_store: Any,
    two_states: tuple[ArchivedRun, ArchivedRun],
) -> None:
    _, finished = two_states
    _put_claim(moto_dynamodb_client, dynamodb_table_names, int(time.time()) - 1)
    seen_while_held: list[object] = []

    def authorization_reads(**_: Any) -> None:
        # the claim is in the authorization table: none of its reads may take it for anything
        if not seen_while_held and _claim_of(moto_dynamodb_client, dynamodb_table_names):
            store = dynamodb_authorization_store
            seen_while_held.append(
                (store.list_roles(), store.list_assignments(), store.policy().roles)
            )

    moto_dynamodb_client.meta.events.register("after-call.dynamodb.PutItem", authorization_reads)

    imported = dynamodb_run_archive.import_run(finished)

    assert imported.written == len(finished.items)
    assert dynamodb_run_archive.differences(finished) == []
    assert _claim_of(moto_dynamodb_client, dynamodb_table_names) is None
    assert seen_while_held == [([], [], ())]


def test_an_import_whose_claim_lapsed_and_was_taken_over_is_refused_at_its_next_write(
    moto_dynamodb_client: Any,
    dynamodb_table_names: Any,
    dynamodb_run_archive: RunArchive,
    body_object_store: Any,
    two_states: tuple[ArchivedRun, ArchivedRun],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A write that hung past the claim's expiry: another import took the run over meanwhile,
    and may name the bodies this one stored: they stay."""
    import adapters.dynamodb.import_claims as import_claims

    _, finished = two_states
    body = ArchivedBody(f"executions/r1/bodies/configuration/inputSelections/{'0' * 32}", b"[]")
    finished = replace(finished, bodies=(body,))
    monkeypatch.setattr(import_claims, "RENEW_SECONDS", 0)  # renewed before every write
    writes: list[int] = []

    def taken_over_after_two(params: dict[str, Any], **_: Any) -> None:
        writes.append(1)
        if len(writes) == 2:
            _put_claim(moto_dynamodb_client, dynamodb_table_names, int(time.time()) + 600)

    moto_dynamodb_client.meta.events.register("before-call.dynamodb.PutItem", taken_over_after_two)

    with pytest.raises(RunRefusedError, match="lapsed and another import took it over"):
        dynamodb_run_archive.import_run(finished)

    claim = _claim_of(moto_dynamodb_client, dynamodb_table_names)
    assert claim is not None and claim["claimToken"] == "another"  # not released by this one
    assert [o.key for o in body_object_store.list_latest("executions/r1/")] == [body.key]


@pytest.mark.parametrize("then", ["finished", "deleted"])
def test_an_import_of_another_state_cut_short_refuses_this_one_until_it_is_finished_or_deleted(
    then: str,
    moto_dynamodb_client: Any,
    dynamodb_table_names: Any,
    dynamodb_execution_store: Any,
    dynamodb_run_archive: RunArchive,
    two_states: tuple[ArchivedRun, ArchivedRun],
) -> None:
    """The early state's import cut short by the network after two of its items: the finished
    state's import would add its rows to that part (no main row to find stored otherwise). It is
    refused, until the cut-short import is finished (its file again, at once) or what it left
    is deleted."""
    early, finished = two_states
    puts: list[int] = []

    def network_gone_at_the_third_item(**_: Any) -> None:
        puts.append(1)
        if len(puts) == 4:  # the claim, then two items
            raise ConnectionError("the network went")

    events = moto_dynamodb_client.meta.events
    events.register("before-call.dynamodb.PutItem", network_gone_at_the_third_item)
    with pytest.raises(ConnectionError):
        dynamodb_run_archive.import_run(early)
    events.unregister("before-call.dynamodb.PutItem", network_gone_at_the_third_item)
    mark = _claim_of(moto_dynamodb_client, dynamodb_table_names)
    assert mark is not None and "expiresAt" not in mark  # kept past DynamoDB's TTL

    with pytest.raises(RunRefusedError, match="an import of another state of run 'r1' was cut"):
        dynamodb_run_archive.import_run(finished)
    assert _claim_of(moto_dynamodb_client, dynamodb_table_names) == mark  # put back as it was

    if then == "finished":
        dynamodb_run_archive.import_run(early)  # its claim expired at once: no wait
        assert dynamodb_run_archive.differences(early) == []
    else:
        dynamodb_execution_store.delete_execution("r1")
        dynamodb_run_archive.import_run(finished)
        assert dynamodb_run_archive.differences(finished) == []
    assert _claim_of(moto_dynamodb_client, dynamodb_table_names) is None
