"""A step's registered local children stopped at once, against one after another.

Each child is a real process that outlives SIGTERM, so each stop waits the grace period, then
sends SIGKILL: what an abort of a step whose tools ignore SIGTERM waits. The same dispatcher's
`stop_each` (wfx's abort) and its `stop` child by child (as every abort did before), new
children each round, both ways a round, who goes first turning.

    .venv/bin/python -m tests.bench.stops_at_once [children] [grace seconds] [rounds]
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from adapters.local.processes import LocalProcessController
from adapters.local.supervisor import RunFolder, this_process
from adapters.sub_process_dispatch import DispatchingSubProcessController
from domain.logs import RegisteredSubExecution
from domain.sub_processes import StopAttempt, StopOutcome
from tests.bench.timing import median, turns
from tests.contract.builders import a_step

STUBBORN = (
    "import signal, time\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "print(1, flush=True)\n"
    "while True: time.sleep(1)\n"
)


def _children(count: int) -> list[subprocess.Popen[bytes]]:
    started = []
    for _ in range(count):
        process = subprocess.Popen([sys.executable, "-c", STUBBORN], stdout=subprocess.PIPE)
        assert process.stdout is not None
        process.stdout.readline()  # its SIGTERM ignored from here on
        started.append(process)
    return started


def measure(count: int, grace: float, rounds: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="wfx-bench-stops-") as folder:
        runs = Path(folder) / "runs"
        step = a_step("bench-run", 0)
        # this process runs the run: the children it starts are the step's
        RunFolder(runs / step.workflow_execution_id).write_runner(this_process("inline"))
        dispatch = DispatchingSubProcessController(
            {"localProcess": lambda: LocalProcessController(runs, grace_seconds=grace)}
        )

        def subs(children: list[subprocess.Popen[bytes]]) -> list[RegisteredSubExecution]:
            return [
                RegisteredSubExecution.of_resource(
                    resource_type="localProcess", resource_id=str(child.pid)
                )
                for child in children
            ]

        ways: dict[str, Callable[[list[RegisteredSubExecution]], list[StopAttempt]]] = {
            "at once": lambda listed: dispatch.stop_each(listed, step),
            "one after another": lambda listed: [dispatch.stop(sub, step) for sub in listed],
        }
        timed: dict[str, list[float]] = {way: [] for way in ways}
        for order in turns(list(ways), rounds):
            for way in order:
                children = _children(count)
                started = time.perf_counter()
                attempts = ways[way](subs(children))
                timed[way].append(time.perf_counter() - started)
                assert all(a.outcome is StopOutcome.STOPPED for a in attempts), attempts
                for child in children:
                    child.wait()
    return {way: median(times) for way, times in timed.items()}


def main() -> None:
    count, grace, rounds = (
        int(sys.argv[1]) if len(sys.argv) > 1 else 4,
        float(sys.argv[2]) if len(sys.argv) > 2 else 1.0,
        int(sys.argv[3]) if len(sys.argv) > 3 else 3,
    )
    seconds = measure(count, grace, rounds)
    print(
        f"{count} children that outlive SIGTERM, a {grace:g} s grace: "
        + ", ".join(f"{way} {value:.2f} s" for way, value in seconds.items())
        + f" = {seconds['one after another'] / seconds['at once']:.2f}x"
    )


if __name__ == "__main__":
    main()
