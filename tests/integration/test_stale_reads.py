"""A read whose reconciling write fails still answers (issue 26, item 3): the run as stored,
flagged stale, and nothing stored lost; once writes go through again, the next read ends it.

The whole application on each store, served over HTTP in-process, with one run that no runner
took (its runner's start does nothing, its lease is 0.2 s): every read of it finds the runner
lost and tries to end it FAILED. The writes fail for real where they can:
- SQLite: WFX_HOME on a 4 MiB tmpfs filled to the last byte once the run is launched (SQLite
  says `database or disk is full`). Needs root to mount.
- DynamoDB on moto: moto has no way to refuse a write, so a botocore `before-call` hook on the
  client raises what DynamoDB answers a write throttled past its retries
  (ProvisionedThroughputExceededException, as a ClientError of the write operation).
"""

from __future__ import annotations

import logging
import sqlite3
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError
from dependency_injector import providers

from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from domain.errors import RUNNER_LOST_ERROR
from entrypoints.container import Container, build_container, create_all_tables
from entrypoints.http.app import create_app
from entrypoints.http.identity import verified_by
from entrypoints.http.stale_reads import STALE_HEADER
from tests.home_settings import home_settings
from tests.small_home import fill
from tests.small_home import small_home as mounted_small_home

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.integration

LEASE_SECONDS = 0.2
WORKFLOW = {
    "databaseId": "demo",
    "workflowId": "quiet",
    "steps": [
        {
            "pipelineId": "noop",
            "executionType": "python",
            "handler": "wfx_examples.trivial.steps:noop",
            "inputFileArity": "none",
        }
    ],
}
DYNAMODB_WRITES = frozenset(
    {"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"}
)


WRITE_FAILED = {"sqlite": "database or disk is full", "dynamodb": "Rate exceeded"}


@dataclass
class Stage:
    backend: str
    container: Container
    client: TestClient
    headers: dict[str, str]
    execution_id: str
    refuse_writes: Callable[[], None]
    allow_writes: Callable[[], None]

    def get(self, path: str) -> Any:
        return self.client.get(path, headers=self.headers)


@pytest.fixture
def small_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with mounted_small_home(tmp_path_factory) as home:
        yield home


def _throttle(model: Any, **_: Any) -> None:
    operation_name = model.name
    if operation_name in DYNAMODB_WRITES:
        error = {"Code": "ProvisionedThroughputExceededException", "Message": "Rate exceeded"}
        raise ClientError({"Error": error}, operation_name)  # type: ignore[typeddict-item]


@pytest.fixture(params=["sqlite", "dynamodb"])
def stage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stage]:
    backend = str(request.param)
    home = request.getfixturevalue("small_home") if backend == "sqlite" else tmp_path
    settings = home_settings(home, store=backend, lease_seconds=LEASE_SECONDS)
    container = build_container(settings, runner_mode="inline")
    client: Any = None
    if backend == "dynamodb":
        client = request.getfixturevalue("moto_dynamodb_tables")
        container.dynamodb_client.override(providers.Object(client))
    create_all_tables(container)
    document = parse_workflow_document(WORKFLOW)
    container.publish_workflow_version().execute(PublishWorkflowVersionCommand(document=document))
    # a runner that never takes the run: once its lease is over, a read finds the runner lost
    container.local_runner().start = lambda *_, **__: None
    launched = container.launch_execution().execute(
        LaunchExecutionCommand(workflow_database_id="demo", workflow_id="quiet", user_id="alice")
    )
    time.sleep(LEASE_SECONDS * 2)
    refused: list[Path | None] = []  # the filler file of a full disk; None on DynamoDB

    def refuse() -> None:
        if client is None:
            refused.append(fill(home))
        else:
            client.meta.events.register("before-call.dynamodb", _throttle)
            refused.append(None)

    def allow() -> None:
        filler = refused.pop()
        if filler is not None:
            filler.unlink()
        else:  # the client outlives the test (one moto per session)
            client.meta.events.unregister("before-call.dynamodb", _throttle)

    verifier = container.token_verifier()
    app = create_app(container, verified_by(verifier), sessions=verifier)
    token = container.token_issuer().issue("root", timedelta(hours=1), ("admin",))
    with TestClient(app, raise_server_exceptions=False, follow_redirects=False) as http:
        logged_in = http.get("/login", params={"token": token})  # the viewer's session
        assert logged_in.status_code == 303, logged_in.text
        yield Stage(
            backend=backend,
            container=container,
            client=http,
            headers={"Authorization": f"Bearer {token}"},
            execution_id=launched.execution.workflow_execution_id,
            refuse_writes=refuse,
            allow_writes=allow,
        )
    if refused:
        allow()
    if backend == "sqlite":  # its files closed before their tmpfs is unmounted
        container.sqlite_database().close()


READS = (
    "/workflows/executions/{id}",
    "/workflows/executions/{id}/details",
    "/workflows/executions",
)
PAGES = ("/executions/{id}", "/")  # the viewer's run page and its list


def _run_in(answer: Any, execution_id: str) -> dict[str, Any]:
    body = answer.json()
    body = body.get("message", body)  # the list and the one-run read answer in VAMS's envelope
    if "Items" in body:
        (row,) = [item for item in body["Items"] if item["workflowExecutionId"] == execution_id]
        return dict(row)
    return dict(body.get("message", body))  # the details: VAMS's envelope around the run, flat


@pytest.mark.parametrize("path", READS)
def test_a_read_whose_reconciling_write_fails_answers_the_run_as_stored_and_says_so(
    stage: Stage, path: str, caplog: pytest.LogCaptureFixture
) -> None:
    execution_id = stage.execution_id
    store = stage.container.execution_store()
    before = store.get_execution(execution_id), store.list_steps(execution_id)
    stage.refuse_writes()

    with caplog.at_level(logging.WARNING, logger="wfx.http"):
        answer = stage.get(path.format(id=execution_id))

    assert answer.status_code == 200, answer.text
    assert answer.headers[STALE_HEADER] == execution_id
    # what the write met is the operator's, in the service log, and nowhere in the answer
    (logged,) = [r.getMessage() for r in caplog.records if r.name == "wfx.http"]
    assert f"run {execution_id}: " in logged and WRITE_FAILED[stage.backend] in logged, logged
    assert WRITE_FAILED[stage.backend] not in answer.text
    shown = _run_in(answer, execution_id)
    assert shown["executionStatus"] == "RUNNING", shown
    assert shown.get("executionStopDate") in ("", None), shown
    # nothing half-written, nothing lost
    assert (store.get_execution(execution_id), store.list_steps(execution_id)) == before

    stage.allow_writes()
    answer = stage.get(path.format(id=execution_id))

    assert answer.status_code == 200, answer.text
    assert STALE_HEADER not in answer.headers
    shown = _run_in(answer, execution_id)
    assert shown["executionStatus"] == "FAILED", shown
    assert RUNNER_LOST_ERROR in shown["executionError"], shown
    assert store.get_execution(execution_id).status.value == "FAILED"


@pytest.mark.parametrize("path", PAGES)
def test_a_viewer_page_shows_the_run_as_stored_and_says_so(stage: Stage, path: str) -> None:
    execution_id = stage.execution_id
    stage.refuse_writes()

    page = stage.client.get(path.format(id=execution_id))

    assert page.status_code == 200, page.text
    assert page.headers[STALE_HEADER] == execution_id
    assert "RUNNING" in page.text and "RunnerLost" not in page.text

    stage.allow_writes()
    page = stage.client.get(path.format(id=execution_id))

    assert STALE_HEADER not in page.headers
    assert "FAILED" in page.text


def test_a_read_that_writes_nothing_carries_no_stale_mark(stage: Stage) -> None:
    stage.get(f"/workflows/executions/{stage.execution_id}")  # ends it: nothing open is left
    stage.refuse_writes()

    answer = stage.get("/workflows/executions")

    assert answer.status_code == 200, answer.text
    assert STALE_HEADER not in answer.headers


def _table_gone(model: Any, **_: Any) -> None:
    operation_name = model.name
    if operation_name in DYNAMODB_WRITES:
        error = {"Code": "ResourceNotFoundException", "Message": "Requested resource not found"}
        raise ClientError({"Error": error}, operation_name)  # type: ignore[typeddict-item]


def _sqlite_writes_meet_a_missing_table(database: Path, on: bool) -> None:
    """Every write of every table runs into a table that is not there ("no such table"), as a
    write does on a store whose tables are missing or out of date; reads are untouched."""
    connection = sqlite3.connect(database)
    try:
        tables = [
            name
            for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
        ]
        for table in tables:
            for event in ("INSERT", "UPDATE", "DELETE"):
                trigger = f'"gone_{table}_{event}"'
                connection.execute(f"DROP TRIGGER IF EXISTS {trigger}")
                if on:
                    connection.execute(
                        f'CREATE TRIGGER {trigger} BEFORE {event} ON "{table}" '
                        "BEGIN DELETE FROM wfx_missing_table; END"
                    )
        connection.commit()
    finally:
        connection.close()


def test_a_read_whose_reconciling_write_finds_no_table_answers_503_saying_how_to_set_up(
    stage: Stage,
) -> None:
    execution_id = stage.execution_id
    store = stage.container.execution_store()
    before = store.get_execution(execution_id)
    client = stage.container.dynamodb_client() if stage.backend == "dynamodb" else None
    database = Path(stage.container.config.sqlite_path())
    if client is None:
        _sqlite_writes_meet_a_missing_table(database, on=True)
    else:
        client.meta.events.register("before-call.dynamodb", _table_gone)
    try:
        answer = stage.get(f"/workflows/executions/{execution_id}")
    finally:
        if client is None:
            _sqlite_writes_meet_a_missing_table(database, on=False)
        else:
            client.meta.events.unregister("before-call.dynamodb", _table_gone)

    assert answer.status_code == 503, answer.text
    assert set(answer.json()) == {"message"}
    assert "wfx tables create" in answer.json()["message"]
    assert STALE_HEADER not in answer.headers
    assert store.get_execution(execution_id) == before
