"""A run's details on DynamoDB with a network's round trip: its requests sent at once, and one
after another.

DynamoDB answers a Lambda in its own region in a few milliseconds and a laptop in tens; moto
answers in-process after several milliseconds of its own Python, which would hold the GIL that a
network's wait releases. So each read is first made on moto, its answers kept; timed, each
request waits `ROUND_TRIP_MS` in its own thread and gets moto's answer back (a `before-call`
hook that sleeps, then answers as botocore's own short-circuit allows): the client's own work
(wfx's, botocore's serializing) is measured, moto's is not. The same
runs (3 and 30 steps, as a launch writes them) are read by two stores on one client,
one sending a read's independent requests at once (wfx's default) and one sending them one
after another (`concurrent_reads=False`, as every read did before); the reads are interleaved a
round each, who goes first turning. `details_latency_gain` is the median of the rounds' own
ratios (one after another ÷ at once) for the larger run.

    .venv/bin/python -m tests.bench.details_latency [rounds]
"""

from __future__ import annotations

import copy
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from adapters.dynamodb.execution_store import DynamoDbExecutionStore
from adapters.dynamodb.run_archive import DynamoDbRunArchive
from adapters.dynamodb.schema import create_tables
from adapters.local.object_store import FilesystemObjectStore
from adapters.tables import TableNames
from tests.bench.timing import median, median_ratio, turns
from tests.contract.builders import a_launch, write_launch

ROUND_TRIP_MS = 5.0
STEPS = (3, 30)
PAGE = 20  # runs of a list page whose access facts are read
REGION = "us-east-1"


@dataclass(frozen=True)
class _Reader:
    """One way of reading: a store and an archive, both at once or both one after another."""

    store: DynamoDbExecutionStore
    archive: DynamoDbRunArchive


def _readers(client: Any, folder: Path) -> dict[str, _Reader]:
    objects = FilesystemObjectStore(folder / "objects")
    return {
        name: _Reader(
            DynamoDbExecutionStore(client, TableNames(), objects=objects, concurrent_reads=at_once),
            DynamoDbRunArchive(client, TableNames(), objects=objects, concurrent_reads=at_once),
        )
        for name, at_once in (("at once", True), ("one after another", False))
    }


def _write_runs(store: DynamoDbExecutionStore) -> dict[str, Callable[[_Reader], object]]:
    """Each figure's read: the details of a 3- and a 30-step run, the access facts of a page of
    20 runs (what the list route reads for a user who is not an admin), the export of the
    30-step run (`wfx export`, a copy from store to store)."""
    for steps in STEPS:
        write_launch(store, a_launch(f"details-{steps}", steps=steps))
    page = [f"page-{n:02d}" for n in range(PAGE)]
    for run_id in page:
        write_launch(store, a_launch(run_id, steps=3))
    reads: dict[str, Callable[[_Reader], object]] = {
        f"details_{steps}_steps": partial(_details, f"details-{steps}") for steps in STEPS
    }
    reads[f"access_facts_{PAGE}_runs"] = partial(_access_facts, page)
    reads[f"export_{STEPS[-1]}_steps"] = partial(_export, f"details-{STEPS[-1]}")
    return reads


def _details(run_id: str, reader: _Reader) -> object:
    return reader.store.get_details(run_id)


def _access_facts(page: list[str], reader: _Reader) -> object:
    return reader.store.access_facts(page)


def _export(run_id: str, reader: _Reader) -> object:
    return reader.archive.export_run(run_id)


Answers = dict[tuple[str, bytes], tuple[Any, Any]]


def _kept_answers(client: Any, reads: list[Any]) -> Answers:
    """Each request the reads make, with moto's answer (the HTTP response and its parse)."""
    answers: Answers = {}

    def name(model: Any, params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        context["bench_request"] = (model.name, params["body"])

    def keep(http_response: Any, parsed: Any, context: dict[str, Any], **_: Any) -> None:
        answers[context["bench_request"]] = (http_response, copy.deepcopy(parsed))

    events = client.meta.events
    events.register("before-call.dynamodb.*", name, unique_id="bench-name")
    events.register("after-call.dynamodb.*", keep, unique_id="bench-keep")
    for read in reads:
        read()
    events.unregister("before-call.dynamodb.*", unique_id="bench-name")
    events.unregister("after-call.dynamodb.*", unique_id="bench-keep")
    return answers


def _over_the_network(client: Any, answers: Answers) -> None:
    """From now on each request waits a round trip, then gets its kept answer."""

    def answer(model: Any, params: dict[str, Any], **_: Any) -> tuple[Any, Any]:
        time.sleep(ROUND_TRIP_MS / 1000)
        http_response, parsed = answers[(model.name, params["body"])]
        return http_response, copy.deepcopy(parsed)

    client.meta.events.register("before-call.dynamodb.*", answer, unique_id="bench-answer")


def measure(folder: Path, rounds: int) -> dict[str, Any]:
    import boto3
    from moto import mock_aws

    for name, value in {
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "AWS_DEFAULT_REGION": REGION,
    }.items():
        os.environ.setdefault(name, value)
    with mock_aws():
        client = boto3.client("dynamodb", region_name=REGION)
        create_tables(client, TableNames())
        stores = _readers(client, folder)
        reads = _write_runs(stores["at once"].store)
        requests = {
            name: _requests_of(client, stores["at once"], read) for name, read in reads.items()
        }
        kept = [partial(read, store) for store in stores.values() for read in reads.values()]
        _over_the_network(client, _kept_answers(client, kept))
        results: dict[str, Any] = {"details_round_trip_ms": ROUND_TRIP_MS}
        for name, read in reads.items():
            timed = _interleaved(stores, read, rounds)
            results[f"{name}_ms"] = {
                store: round(median(times) * 1000, 2) for store, times in timed.items()
            }
            results[f"{name}_requests"] = requests[name]
            results[f"{name}_gain"] = round(
                median_ratio(timed["one after another"], timed["at once"]), 2
            )
        results["details_latency_gain"] = results[f"details_{STEPS[-1]}_steps_gain"]
    return results


def _requests_of(client: Any, reader: _Reader, read: Callable[[_Reader], object]) -> int:
    seen: list[str] = []  # list.append holds under threads

    def count(model: Any, **_: Any) -> None:
        seen.append(model.name)

    client.meta.events.register("before-call.dynamodb.*", count, unique_id="bench-count")
    read(reader)
    client.meta.events.unregister("before-call.dynamodb.*", unique_id="bench-count")
    return len(seen)


def _interleaved(
    stores: dict[str, _Reader], read: Callable[[_Reader], object], rounds: int
) -> dict[str, list[float]]:
    timed: dict[str, list[float]] = {name: [] for name in stores}
    for order in turns(list(stores), rounds):
        for name in order:
            started = time.perf_counter()
            read(stores[name])
            timed[name].append(time.perf_counter() - started)
    return timed


def main() -> None:
    import tempfile

    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    with tempfile.TemporaryDirectory(prefix="wfx-bench-details-") as folder:
        results = measure(Path(folder), rounds)
    for figure in (
        *(f"details_{steps}_steps" for steps in STEPS),
        f"access_facts_{PAGE}_runs",
        f"export_{STEPS[-1]}_steps",
    ):
        ms = results[f"{figure}_ms"]
        print(
            f"{figure}, {results[f'{figure}_requests']} requests at {ROUND_TRIP_MS:g} ms each: "
            + ", ".join(f"{name} {value:.1f} ms" for name, value in ms.items())
            + f" = {results[f'{figure}_gain']:.2f}x"
        )


if __name__ == "__main__":
    main()
