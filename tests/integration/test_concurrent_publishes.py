"""Publishers racing on one workflow, on each store: every publish gets a number of its own,
the numbers run 1..N without a gap, and the definition ends on N, owned by version 1's
publisher. The conditional write of the pointer is what makes a loser re-read and go on top."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import boto3
import pytest

from adapters.dynamodb.catalogs import DynamoDbWorkflowCatalog
from adapters.dynamodb.workflow_definitions import DynamoDbWorkflowDefinitions
from adapters.system import SystemClock
from adapters.tables import TableNames
from application.use_cases.publish_workflow_version import (
    PublishResult,
    PublishWorkflowVersion,
    PublishWorkflowVersionCommand,
)
from application.workflow_documents import parse_workflow_document
from conftest import AWS_REGION, FAKE_AWS_ENVIRONMENT

# A loser re-reads and retries, and every round has a winner: the use case's five attempts
# carry five racing publishers through.
PUBLISHERS = 5


@contextmanager
def _one_request_at_a_time() -> Iterator[str]:
    """moto's app served one request at a time, over HTTP. DynamoDB applies each request (a
    transaction whole) atomically; moto's backends do so only when requests do not overlap,
    and its in-process mock and threaded server let them overlap."""
    from moto.moto_server.werkzeug_app import (
        DomainDispatcherApplication,
        MotoRequestHandler,
        create_backend_app,
    )
    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    app = DomainDispatcherApplication(create_backend_app)
    server = make_server("127.0.0.1", 0, app, threaded=False, request_handler=MotoRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join()


@pytest.fixture
def serial_dynamodb(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, Any]]:
    """The DynamoDB adapters over that server, their tables under a prefix of this test's."""
    for name, value in FAKE_AWS_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    with _one_request_at_a_time() as endpoint:
        client = boto3.client("dynamodb", region_name=AWS_REGION, endpoint_url=endpoint)
        tables = TableNames(prefix="race-")
        definitions = DynamoDbWorkflowDefinitions(client, tables)
        definitions.create_tables()
        yield DynamoDbWorkflowCatalog(client, tables), definitions


def _document(index: int) -> dict[str, Any]:
    return {
        "databaseId": "race",
        "workflowId": "wf",
        "description": f"publisher {index}",
        "steps": [{"pipelineId": f"step-{index}", "executionType": "command", "command": ["true"]}],
    }


@pytest.mark.parametrize("backend", ["sqlite_file", "serial_dynamodb"])
def test_racing_publishers_each_get_their_own_version_number(
    backend: str, request: pytest.FixtureRequest
) -> None:
    if backend == "serial_dynamodb":
        catalog, definitions = request.getfixturevalue("serial_dynamodb")
    else:
        catalog = request.getfixturevalue("sqlite_file_workflow_catalog")
        definitions = request.getfixturevalue("sqlite_file_workflow_definitions")
    publish = PublishWorkflowVersion(definitions, catalog, SystemClock())
    start = threading.Barrier(PUBLISHERS)

    def publish_as(index: int) -> PublishResult:
        command = PublishWorkflowVersionCommand(
            document=parse_workflow_document(_document(index)), published_by=f"user-{index}"
        )
        start.wait()
        return publish.execute(command)

    with ThreadPoolExecutor(PUBLISHERS) as pool:
        results = list(pool.map(publish_as, range(PUBLISHERS)))

    assert all(result.created for result in results)
    numbers = sorted(result.version.version for result in results)
    assert numbers == list(range(1, PUBLISHERS + 1))
    definition = definitions.find_definition("race", "wf")
    first = next(r.version for r in results if r.version.version == 1)
    assert definition.latest_version == PUBLISHERS
    assert definition.owner == f"user-{first.steps[0].pipeline_id.removeprefix('step-')}"
    for result in results:  # each number holds the document its publisher sent
        stored = catalog.get_version("race", "wf", result.version.version)
        assert stored == result.version
