"""The sub-executions of a run's details (`--sub-executions`) with a network's round trip: their
DescribeExecution calls sent at once, and one after another.

Each of N Step Functions sub-executions (runs of one state machine on moto's parser mode, each
history one page) costs a DescribeExecution and a history page; their state machine is described
once. The requests are first made on moto and their answers kept; timed, each waits
`ROUND_TRIP_MS` in its own thread and gets its kept answer (`kept_answers.py`). Two readers
on one client, one sending the describes at once (wfx's default), one one after another
(`AwsSubExecutionReader(concurrent_reads=False)`, as before); the history pages go one after
another in both (a page budget is shared by the request). Interleaved, medians.

    .venv/bin/python -m tests.bench.sub_executions_latency [sub-executions] [rounds]
"""

from __future__ import annotations

import logging
import statistics
import sys
import time
from typing import Any

from adapters.aws.sub_executions import AwsSubExecutionReader
from application.sub_execution_status import SubExecutionStatus
from domain.execution import StepDetails
from domain.logs import STEP_FUNCTIONS_EXECUTION, RegisteredSubExecution
from tests.bench.kept_answers import fake_credentials, kept_answers, over_the_network
from tests.bench.timing import median_ratio, turns
from tests.moto_state_machines import PARSER_MODE, REGION, create_sub_pipeline, run_to_the_end
from tests.unit.test_records import a_step

ROUND_TRIP_MS = 5.0


def measure(subs: int, rounds: int) -> dict[str, Any]:
    import boto3
    from moto import mock_aws

    fake_credentials(REGION)
    logging.getLogger("moto").setLevel(logging.CRITICAL)  # the runs fail on purpose
    with mock_aws(config=PARSER_MODE):
        sfn = boto3.client("stepfunctions", region_name=REGION)
        machine = create_sub_pipeline(sfn)
        registered = tuple(
            RegisteredSubExecution.of_resource(
                STEP_FUNCTIONS_EXECUTION, run_to_the_end(sfn, machine, f"run-{n}")
            )
            for n in range(subs)
        )
        steps = [StepDetails(step=a_step(registered_sub_executions=registered))]
        readers = {
            name: SubExecutionStatus(AwsSubExecutionReader(lambda: sfn, lambda: None, at_once))
            for name, at_once in (("at once", True), ("one after another", False))
        }
        described: list[object] = []
        answers = kept_answers(
            [sfn], [lambda: described.extend(r.describe(steps) for r in readers.values())]
        )
        assert described[0] == described[1], "at once and one after another answer alike"
        requests: list[str] = []
        over_the_network([sfn], answers, ROUND_TRIP_MS, requests)
        readers["at once"].describe(steps)
        made = len(requests)
        requests.clear()
        timed: dict[str, list[float]] = {name: [] for name in readers}
        for order in turns(list(readers), rounds):
            for name in order:
                started = time.perf_counter()
                readers[name].describe(steps)
                timed[name].append(time.perf_counter() - started)
    return {
        "sub_executions": subs,
        "requests": made,
        "ms": {name: round(statistics.median(t) * 1000, 2) for name, t in timed.items()},
        "gain": round(median_ratio(timed["one after another"], timed["at once"]), 2),
    }


def main() -> None:
    subs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    result = measure(subs, rounds)
    print(
        f"{subs} sub-executions, {result['requests']} requests at {ROUND_TRIP_MS:g} ms each: "
        + ", ".join(f"{name} {value:.1f} ms" for name, value in result["ms"].items())
        + f" = {result['gain']:.2f}x"
    )


if __name__ == "__main__":
    main()
