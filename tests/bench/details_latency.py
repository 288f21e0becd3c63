"""A run's details on DynamoDB with a network's round trip: its requests sent at once, and one
after another.

DynamoDB answers a Lambda in its own region in a few milliseconds and a laptop in tens; moto
answers in-process after several milliseconds of its own Python, which would hold the GIL that a
network's wait releases. So each read is first made on moto, its answers kept; timed, each
request waits `ROUND_TRIP_MS` in its own thread and gets moto's answer back
(`tests/bench/kept_answers.py`): the client's own work is measured, moto's is not. The same
runs (3 and 30 steps, as a launch writes them) are read by two stores on one client,
one sending a read's independent requests at once (wfx's default) and one sending them one
after another (`concurrent_reads=False`, as every read did before); the reads are interleaved a
round each, who goes first turning. `details_latency_gain` is the median of the rounds' own
ratios (one after another ÷ at once) for the larger run.

A run whose end step wrote 20 results files on S3 adds two figures: its details with the texts
of the files (what `GetExecutionDetails` adds after the store's read: a GET of each file's head,
`ResultTextReader`), and the texts alone; S3's GETs wait the same round trip, their kept bodies
given back. Its one-after-another reader also reads S3 one GET after another
(`S3ObjectStore(concurrent_reads=False)`, as the texts were read before).

    .venv/bin/python -m tests.bench.details_latency [rounds]
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from adapters.aws.s3_object_store import S3ObjectStore
from adapters.dynamodb.execution_store import DynamoDbExecutionStore
from adapters.dynamodb.run_archive import DynamoDbRunArchive
from adapters.dynamodb.schema import create_tables
from adapters.local.object_store import FilesystemObjectStore
from adapters.tables import TableNames
from application.result_texts import ResultTextReader
from domain.execution import ExecutionDetails, OutputResult, StepOutputs
from tests.bench.kept_answers import (
    fake_credentials,
    kept_answers,
    over_the_network,
    print_figures,
    requests_of,
)
from tests.bench.timing import median, median_ratio, turns
from tests.contract.builders import a_launch, step_id, write_launch

ROUND_TRIP_MS = 5.0
STEPS = (3, 30)
PAGE = 20  # runs of a list page whose access facts are read
RESULTS = 20  # results files of one run, on S3
RESULT_BYTES = 2048  # each file's size: a report, a summary
REGION = "us-east-1"
BUCKET = "wfx-bench-details"


@dataclass(frozen=True)
class _Reader:
    """One way of reading: a store, an archive and the S3 object store, all at once or all
    one after another."""

    store: DynamoDbExecutionStore
    archive: DynamoDbRunArchive
    s3: S3ObjectStore


def _readers(client: Any, s3: Any, folder: Path) -> dict[str, _Reader]:
    objects = FilesystemObjectStore(folder / "objects")
    return {
        name: _Reader(
            DynamoDbExecutionStore(client, TableNames(), objects=objects, concurrent_reads=at_once),
            DynamoDbRunArchive(client, TableNames(), objects=objects, concurrent_reads=at_once),
            S3ObjectStore(lambda: s3, BUCKET, folder / name, concurrent_reads=at_once),
        )
        for name, at_once in (("at once", True), ("one after another", False))
    }


def _write_runs(reader: _Reader) -> dict[str, Callable[[_Reader], object]]:
    """Each figure's read: the details of a 3- and a 30-step run, the access facts of a page of
    20 runs (what the list route reads for a user who is not an admin), the export of the
    30-step run (`wfx export`, a copy from store to store), the details of a 3-step run with 20
    results files with their texts, and those texts alone."""
    store = reader.store
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
    _write_results(reader, "results-run")
    reads[f"details_{RESULTS}_results"] = partial(_details_with_texts, "results-run")
    shown = store.get_details("results-run")
    reads[f"result_texts_{RESULTS}_files"] = partial(_texts, shown)
    return reads


def _write_results(reader: _Reader, run_id: str) -> None:
    """A 3-step run whose end step wrote RESULTS results files, each on S3."""
    write_launch(reader.store, a_launch(run_id, steps=3))
    end = step_id(run_id, 2)
    rows = []
    for n in range(RESULTS):
        name = f"reports/report-{n:02d}.txt"
        body = (f"{name}: all good\n" * RESULT_BYTES)[:RESULT_BYTES].encode()
        stored = reader.s3.put_bytes(f"executions/{run_id}/output/{name}", body)
        rows.append(
            OutputResult(
                pipeline_execution_id=end,
                workflow_execution_id=run_id,
                relative_file_path=name,
                version_id=stored.version_id,
            )
        )
    reader.store.add_step_outputs(StepOutputs(results=tuple(rows)))


def _details(run_id: str, reader: _Reader) -> object:
    return reader.store.get_details(run_id)


def _access_facts(page: list[str], reader: _Reader) -> object:
    return reader.store.access_facts(page)


def _export(run_id: str, reader: _Reader) -> object:
    return reader.archive.export_run(run_id)


def _details_with_texts(run_id: str, reader: _Reader) -> object:
    return ResultTextReader(reader.s3).attach(reader.store.get_details(run_id))


def _texts(details: ExecutionDetails, reader: _Reader) -> object:
    return ResultTextReader(reader.s3).attach(details)


def measure(folder: Path, rounds: int) -> dict[str, Any]:
    import boto3
    from moto import mock_aws

    fake_credentials(REGION)
    with mock_aws():
        client = boto3.client("dynamodb", region_name=REGION)
        create_tables(client, TableNames())
        s3 = boto3.client("s3", region_name=REGION)
        s3.create_bucket(Bucket=BUCKET)
        s3.put_bucket_versioning(Bucket=BUCKET, VersioningConfiguration={"Status": "Enabled"})
        clients = (client, s3)
        stores = _readers(client, s3, folder)
        reads = _write_runs(stores["at once"])
        for reader in stores.values():  # the bucket checked once, as a process does
            reader.s3.list_latest("executions/")
        requests = {
            name: requests_of(clients, partial(read, stores["at once"]))
            for name, read in reads.items()
        }
        kept = [partial(read, store) for store in stores.values() for read in reads.values()]
        over_the_network(clients, kept_answers(clients, kept), ROUND_TRIP_MS)
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
    figures = (
        *(f"details_{steps}_steps" for steps in STEPS),
        f"access_facts_{PAGE}_runs",
        f"export_{STEPS[-1]}_steps",
        f"details_{RESULTS}_results",
        f"result_texts_{RESULTS}_files",
    )
    print_figures(results, figures, ROUND_TRIP_MS)


if __name__ == "__main__":
    main()
