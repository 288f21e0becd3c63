"""Concurrent registrations lose nothing: 8 threads deliver overlapping registrations to one
step, on the SQLite file store and on DynamoDB (moto in-process, one boto3 client for all)."""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from application.ports.executions import ExecutionStore
from application.use_cases.register_pipeline_execution import (
    RegisterPipelineExecutionCommand,
)
from domain.execution import PipelineExecution
from domain.logs import (
    MAX_REGISTERED_LOGS,
    MAX_REGISTERED_SUB_EXECUTIONS,
    RegisteredSubExecution,
)
from tests.contract.builders import a_launch, a_registrar, step_id, write_launch

THREADS = 8
DELIVERIES = 100  # 400 picks of 80 locations: the caps (50) fill well before the end


class OneRequestAtATime:
    """The shared boto3 client, each request made atomic, as DynamoDB applies it.

    moto's in-process backend is not thread-safe: two requests at once can corrupt its items
    (a deep copy racing a write raises "dictionary changed size"). Threads still interleave
    between requests (read, merge, conditional write), which is the race under test.
    """

    def __init__(self, client: Any) -> None:
        self._client, self._lock = client, threading.Lock()

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        if not callable(attribute):
            return attribute

        def one_at_a_time(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return attribute(*args, **kwargs)

        return one_at_a_time


@pytest.fixture(params=["sqlite_file", "dynamodb"])
def store(request: pytest.FixtureRequest) -> ExecutionStore:
    store: ExecutionStore
    if request.param == "dynamodb":
        from adapters.dynamodb.execution_store import DynamoDbExecutionStore

        client: Any = OneRequestAtATime(request.getfixturevalue("moto_dynamodb_client"))
        tables = request.getfixturevalue("dynamodb_table_names")
        store = DynamoDbExecutionStore(client, tables)
    else:
        store = request.getfixturevalue("sqlite_file_execution_store")
    write_launch(store, a_launch("e1"))
    return store


def log_location(n: int) -> dict[str, str]:
    return {"logGroupName": f"/wfx/group{n % 7}", "logStreamName": f"stream-{n}"}


def sub_execution(n: int) -> dict[str, str]:
    if n % 2:
        run = f"arn:aws:states:us-east-1:123456789012:execution:inner:job-{n}"
        return {"resourceType": "stepFunctionsExecution", "executionArn": run}
    return {"resourceType": "batchJob", "jobId": f"job-{n}"}


def identities_sent(events: list[dict[str, Any]]) -> set[Any]:
    return {
        RegisteredSubExecution.model_validate(entry).identity
        for event in events
        for entry in event["detail"]["subExecutions"]
    }


def deliveries(
    step: str, logs: int, sub_executions: int, seed: int, count: int = DELIVERIES
) -> list[dict[str, Any]]:
    """`count` events, each a random handful of `logs` locations and `sub_executions` ids."""
    chance = random.Random(seed)
    return [
        {
            "source": f"wfx.execution.e1.pipeline.{step}",
            "detail": {
                "pipelineExecutionId": step,
                "logs": [log_location(n) for n in chance.sample(range(logs), 4)],
                "subExecutions": [
                    sub_execution(n) for n in chance.sample(range(sub_executions), 4)
                ],
            },
        }
        for _ in range(count)
    ]


def deliver_concurrently(store: ExecutionStore, events: list[dict[str, Any]]) -> PipelineExecution:
    register = a_registrar(store)
    start = threading.Barrier(THREADS)

    def deliver(share: list[dict[str, Any]]) -> int:
        start.wait()  # every thread begins at once, so their writes really collide
        accepted = 0
        for event in share:
            result = register.execute(RegisterPipelineExecutionCommand.model_validate(event))
            accepted += result.accepted
        return accepted

    with ThreadPoolExecutor(THREADS) as pool:
        shares = [events[n::THREADS] for n in range(THREADS)]
        assert sum(pool.map(deliver, shares)) == len(events)
    return store.get_step(events[0]["detail"]["pipelineExecutionId"])


def sent(
    events: list[dict[str, Any]], field: str, identity: tuple[str, ...]
) -> set[tuple[str, ...]]:
    return {
        tuple(entry.get(name, "") for name in identity)
        for event in events
        for entry in event["detail"][field]
    }


def test_concurrent_registrations_end_with_a_full_deduplicated_capped_set(
    store: ExecutionStore,
) -> None:
    events = deliveries(step_id("e1", 0), logs=80, sub_executions=70, seed=4)

    stored = deliver_concurrently(store, events)

    locations = [log.location for log in stored.registered_logs]
    identities = [s.identity for s in stored.registered_sub_executions]
    assert len(locations) == len(set(locations)) == MAX_REGISTERED_LOGS
    assert len(identities) == len(set(identities)) == MAX_REGISTERED_SUB_EXECUTIONS
    assert set(locations) <= sent(events, "logs", ("logGroupName", "logStreamName", "x"))
    assert set(identities) <= identities_sent(events)


def test_below_the_caps_every_concurrently_registered_entry_is_kept(
    store: ExecutionStore,
) -> None:
    # Fewer deliveries than above (moto takes ~0.1 s for each), still every thread colliding.
    events = deliveries(step_id("e1", 1), logs=30, sub_executions=25, seed=5, count=40)
    logs_sent = sent(events, "logs", ("logGroupName", "logStreamName", "x"))
    sub_executions_sent = identities_sent(events)
    assert len(logs_sent) == 30 and len(sub_executions_sent) == 25  # every one was sent

    stored = deliver_concurrently(store, events)

    locations = [log.location for log in stored.registered_logs]
    identities = [s.identity for s in stored.registered_sub_executions]
    assert len(locations) == len(set(locations))
    assert set(locations) == logs_sent
    assert len(identities) == len(set(identities))
    assert set(identities) == sub_executions_sent
    assert store.get_step(step_id("e1", 0)).registered_logs == ()
