"""Ctrl-C, SIGTERM and SIGHUP on a command that runs a workflow: the run is aborted, not left
RUNNING. The signal interrupts the main thread's wait; the command aborts the run (its
children stopped, its rows ABORTED) and exits 128 + the signal's number (130, 143, 129)."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING, NoReturn, TypeVar

if TYPE_CHECKING:
    from entrypoints.container import Container

_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
T = TypeVar("T")


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


def aborting_on_signals(
    container: Container, execution_id: str, wait: Callable[[], T], json_output: bool = False
) -> T:
    """`wait()` for the run this process carries on, with Ctrl-C, SIGTERM and SIGHUP aborting
    it (exit 130, 143, 129)."""
    try:
        with signals_interrupt():
            return wait()
    except InterruptedBySignalError as interrupt:
        abort_interrupted_run(container, execution_id, interrupt, json_output)


def abort_interrupted_run(
    container: Container,
    execution_id: str,
    interrupt: InterruptedBySignalError,
    json_output: bool = False,
) -> NoReturn:
    """Abort the run the signal interrupted, say so on stderr, print on stdout what the command
    prints for a run that ended (its id, or its row with --json), and exit 128 + the signal."""
    from application.use_cases.abort_execution import AbortExecutionCommand
    from domain.redaction import redact
    from entrypoints.cli.render import dump_json
    from entrypoints.responses import ExecutionResponse

    name = signal.Signals(interrupt.number).name
    cause = f"wfx was interrupted by {name}"
    result = container.abort_execution().execute(
        AbortExecutionCommand(workflow_execution_id=execution_id, cause=cause)
    )
    for warning in result.warnings:
        print(f"warning: {redact(warning)}", file=sys.stderr)
    print(f"{name}: execution {execution_id} {result.execution.status.value}", file=sys.stderr)
    # The id even now: a script that ran `wfx run` needs it to show or redrive the run it stopped.
    answer = (
        dump_json(ExecutionResponse.of(result.execution).dump()) if json_output else execution_id
    )
    print(answer, flush=True)
    runner = container.local_runner()
    runner.join(execution_id, timeout=runner.grace_seconds)
    raise SystemExit(128 + interrupt.number)
