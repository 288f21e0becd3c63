"""`kill -9` of a detached worker of a run stored on DynamoDB (a moto server the `wfx` processes
reach over HTTP): the first read after the worker is gone ends the run FAILED wfx.RunnerLost,
with its lease and interval far from over, and the stored main item says so. The SQLite side,
with the redrive after, is tests/e2e/test_cli_run_control.py's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adapters.dynamodb.codec import from_wire
from conftest import restore_dynamodb_tables
from tests.e2e.cli import FAKE_AWS, Wfx
from tests.e2e.run_processes import kill_what_is_left
from tests.e2e.test_cli_run_control import kill_9_of_a_detached_worker, signals_stage
from tests.integration.moto_server import moto_server, served_client

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("cli-runner-lost-on-moto")]


def test_kill_9_of_a_detached_worker_ends_the_run_on_the_next_read(
    tmp_path: Path, _pristine_dynamodb_tables: dict[str, Any]
) -> None:
    # one request at a time: a request the killed worker had sent is still served, beside the
    # reader's lost-runner end on the same item (the module's note on moto's threads)
    with moto_server(one_request_at_a_time=True) as endpoint:
        restore_dynamodb_tables(_pristine_dynamodb_tables)  # as `wfx tables create` makes them
        home = tmp_path / "home"
        on_moto = Wfx(home, WFX_STORE="dynamodb", WFX_DYNAMODB_ENDPOINT=endpoint, **FAKE_AWS)
        try:
            execution_id, _ = kill_9_of_a_detached_worker(signals_stage(on_moto, tmp_path).wfx)
        finally:
            kill_what_is_left(home)

        (stored,) = _main_items(endpoint, execution_id)
    assert stored["executionStatus"] == "FAILED", stored
    assert str(stored["executionError"]).startswith("wfx.RunnerLost: the local runner (worker")
    assert "runnerLeaseOwner" not in stored, stored


def _main_items(endpoint: str, execution_id: str) -> list[dict[str, object]]:
    """The run's main items on the endpoint: those naming it with a status and no step."""
    client = served_client("dynamodb", endpoint)
    found = []
    for table in client.list_tables()["TableNames"]:
        for page in client.get_paginator("scan").paginate(TableName=table):
            for item in map(from_wire, page["Items"]):
                if item.get("workflowExecutionId") != execution_id:
                    continue
                if "executionStatus" in item and "pipelineExecutionId" not in item:
                    found.append(item)
    return found
