"""Ctrl-C, SIGTERM and SIGHUP on a command that runs a workflow: the run is aborted, not left
RUNNING. The signal interrupts the main thread's wait; the command aborts the run (its
children stopped, its rows ABORTED) and exits 128 + the signal's number (130, 143, 129). A
run whose completion is finishing it is not aborted: the command waits for its end instead."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from entrypoints.container import Container

_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_FINISHING_POLL_SECONDS = 0.2


class InterruptedBySignalError(Exception):
    def __init__(self, number: int) -> None:
        super().__init__(signal.Signals(number).name)
        self.number = number


def _interrupt(number: int, frame: FrameType | None) -> None:
    for other in _SIGNALS:  # a second Ctrl-C must not cut the abort short
        signal.signal(other, signal.SIG_IGN)
    raise InterruptedBySignalError(number)


@contextmanager
def signals_interrupt() -> Iterator[None]:
    """Inside, each of the three signals raises InterruptedBySignalError in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.signal(number, _interrupt) for number in _SIGNALS}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def abort_interrupted_run(
    container: Container,
    execution_id: str,
    interrupt: InterruptedBySignalError,
    stored_end: Callable[[float], bool],
    json_output: bool = False,
) -> None:
    """Abort the run the signal interrupted, say so on stderr, print on stdout what the command
    prints for a run that ended (its id, or its row with --json), and exit 128 + the signal.
    A run its completion is finishing is not aborted: `stored_end` (True once a read finds the
    run ended, after waiting up to the seconds given) is polled until it has ended."""
    from application.use_cases.abort_execution import AbortExecutionCommand, AbortResult
    from application.use_cases.get_execution import GetExecutionQuery
    from domain.redaction import redact
    from domain.run import RunIsFinishingError
    from entrypoints.cli.render import dump_json
    from entrypoints.responses import ExecutionResponse

    name = signal.Signals(interrupt.number).name
    cause = f"wfx was interrupted by {name}"
    runner = container.local_runner()
    try:
        result = container.abort_execution().execute(
            AbortExecutionCommand(workflow_execution_id=execution_id, cause=cause)
        )
    except RunIsFinishingError as finishing:
        # Its results are going into its output asset: leaving now would cut its runner (in this
        # process) off half-way, so the run is let end, as it would have without the signal.
        # Waited for as stored: a thread's join cut short by the signal no longer waits for it.
        print(f"{name}: {finishing}; waiting for it to end", file=sys.stderr, flush=True)
        while not stored_end(_FINISHING_POLL_SECONDS):
            pass
        query = GetExecutionQuery(workflow_execution_id=execution_id)
        result = AbortResult(execution=container.get_execution().execute(query))
    for warning in result.warnings:
        print(f"warning: {redact(warning)}", file=sys.stderr)
    print(f"{name}: execution {execution_id} {result.execution.status.value}", file=sys.stderr)
    # The id even now: a script that ran `wfx run` needs it to show or redrive the run it stopped.
    answer = (
        dump_json(ExecutionResponse.of(result.execution).dump()) if json_output else execution_id
    )
    print(answer, flush=True)
    runner.join(execution_id, timeout=runner.grace_seconds)
    raise SystemExit(128 + interrupt.number)
