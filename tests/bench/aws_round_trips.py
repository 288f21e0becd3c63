"""Reads of several AWS sources with a network's round trip: sent at once, and one after another.

Two reads beside the details figure (`details_latency.py`, whose method this shares): `wfx
executions logs --full` of a Step Functions run reads each of its log sources from CloudWatch
Logs (a Lambda's group filtered to the run, a registered stream, a prefix's streams), and a list
page's open Step Functions runs are each described once their last check is 30 s old. Each read
is made once on moto and its answers kept; timed, each request waits `ROUND_TRIP_MS` in its own
thread, then gets its kept answer (`kept_answers.py`: moto's own Python is not measured). The
adapter sending its requests at once (wfx's default) and the same adapter with
`concurrent_reads=False` are interleaved a round each, who goes first turning.

    .venv/bin/python -m tests.bench.aws_round_trips [rounds]
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from adapters.aws.cloudwatch_logs import CloudWatchLogReader
from adapters.aws.stepfunctions import StepFunctionsOrchestrator
from application.ports.logs import LogRead
from domain.execution import WorkflowExecution
from tests.bench.kept_answers import (
    back_from_the_network,
    fake_credentials,
    kept_answers,
    over_the_network,
    print_figures,
    requests_of,
)
from tests.bench.timing import median, median_ratio, turns
from tests.contract.builders import a_launch

ROUND_TRIP_MS = 5.0
REGION = "us-east-1"
SOURCES = 10  # a 5-step run: each step's Lambda group filtered to the run, and a registered stream
RUNS = 20  # a list page's open runs whose check is due
DEFINITION = {"StartAt": "Wait", "States": {"Wait": {"Type": "Pass", "End": True}}}


def _log_reads(logs: Any) -> list[LogRead]:
    now = int(time.time() * 1000)  # moto refuses events older than 14 days
    reads = []
    for step in range(SOURCES // 2):
        group = f"/aws/lambda/step-{step}"
        logs.create_log_group(logGroupName=group)
        logs.create_log_stream(logGroupName=group, logStreamName="2026/12/07/[$LATEST]a")
        lines = [f"run-1 line {n}" if n % 2 else f"run-2 line {n}" for n in range(40)]
        events = [{"timestamp": now + n, "message": line} for n, line in enumerate(lines)]
        logs.put_log_events(
            logGroupName=group, logStreamName="2026/12/07/[$LATEST]a", logEvents=events
        )
        reads.append(LogRead(group, execution_filter="run-1"))
        reads.append(LogRead(group, stream="2026/12/07/[$LATEST]a", limit=20))
    return reads


def _open_runs(stepfunctions: Any) -> list[WorkflowExecution]:
    machine = stepfunctions.create_state_machine(
        name="bench",
        definition=json.dumps(
            {"StartAt": "Wait", "States": {"Wait": {"Type": "Pass", "End": True}}}
        ),
        roleArn="arn:aws:iam::123456789012:role/bench",
    )["stateMachineArn"]
    runs = []
    for n in range(RUNS):
        started = stepfunctions.start_execution(stateMachineArn=machine, name=f"run-{n:02d}")
        execution = a_launch(f"run-{n:02d}").execution
        runs.append(
            execution.model_copy(
                update={"orchestrator": "stepfunctions", "execution_arn": started["executionArn"]}
            )
        )
    return runs


def _figure(
    client: Any, ways: dict[str, Callable[[], object]], rounds: int, name: str
) -> dict[str, Any]:
    requests = requests_of([client], ways["at once"])
    over_the_network([client], kept_answers([client], list(ways.values())), ROUND_TRIP_MS)
    timed: dict[str, list[float]] = {way: [] for way in ways}
    for order in turns(list(ways), rounds):
        for way in order:
            started = time.perf_counter()
            ways[way]()
            timed[way].append(time.perf_counter() - started)
    back_from_the_network([client])
    return {
        f"{name}_ms": {way: round(median(times) * 1000, 2) for way, times in timed.items()},
        f"{name}_requests": requests,
        f"{name}_gain": round(median_ratio(timed["one after another"], timed["at once"]), 2),
    }


def measure(rounds: int) -> dict[str, Any]:
    import boto3
    from moto import mock_aws

    fake_credentials(REGION)
    results: dict[str, Any] = {"aws_round_trip_ms": ROUND_TRIP_MS}
    with mock_aws():
        logs = boto3.client("logs", region_name=REGION)
        reads = _log_reads(logs)
        readers = {
            way: CloudWatchLogReader(lambda: logs, concurrent_reads=at_once)
            for way, at_once in (("at once", True), ("one after another", False))
        }
        results |= _figure(
            logs,
            {way: partial(reader.read_each, reads) for way, reader in readers.items()},
            rounds,
            f"logs_full_{SOURCES}_sources",
        )
        stepfunctions = boto3.client("stepfunctions", region_name=REGION)
        runs = _open_runs(stepfunctions)
        orchestrators = {
            way: StepFunctionsOrchestrator(stepfunctions, concurrent_reads=at_once)
            for way, at_once in (("at once", True), ("one after another", False))
        }
        results |= _figure(
            stepfunctions,
            {way: partial(o.describe_each, runs) for way, o in orchestrators.items()},
            rounds,
            f"list_describes_{RUNS}_runs",
        )
    return results


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    results = measure(rounds)
    figures = (f"logs_full_{SOURCES}_sources", f"list_describes_{RUNS}_runs")
    print_figures(results, figures, ROUND_TRIP_MS)


if __name__ == "__main__":
    main()
