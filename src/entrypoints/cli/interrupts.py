"""Ctrl-C, SIGTERM and SIGHUP on a command that runs a workflow: the run is aborted, not left
RUNNING. The signal interrupts the main thread's wait; the command aborts the run (its
children stopped, its rows ABORTED) and exits 128 + the signal's number (130, 143, 129). A
run whose completion is finishing it is not aborted: the command waits for its end instead.

A signal the command was started ignoring stays ignored, as Python leaves an ignored SIGINT:
`nohup wfx run ...` ignores SIGHUP so that the run outlives the terminal, and a shell starts a
script's background job (`wfx run ... &`) ignoring SIGINT so that a Ctrl-C of the script
does not reach it."""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING, NoReturn, TypeVar

if TYPE_CHECKING:
    from entrypoints.container import Container

_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_FINISHING_POLL_SECONDS = 0.2
T = TypeVar("T")


class InterruptedBySignalError(Exception):
    def __init__(self, number: int) -> None:
        super().__init__(signal.Signals(number).name)
        self.number = number


def not_ignored(numbers: Iterable[int]) -> tuple[int, ...]:
    """Those of the signals `numbers` this process was not started ignoring (nor told to
    ignore since): the ones a handler of its own may take."""
    return tuple(number for number in numbers if signal.getsignal(number) is not signal.SIG_IGN)


def _interrupt(number: int, frame: FrameType | None) -> None:
    for other in _SIGNALS:  # a second Ctrl-C must not cut the abort short
        signal.signal(other, signal.SIG_IGN)
    raise InterruptedBySignalError(number)


@contextmanager
def signals_interrupt() -> Iterator[None]:
    """Inside, each of the three signals raises InterruptedBySignalError in the main thread,
    but one the process was started ignoring, which stays ignored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.signal(number, _interrupt) for number in not_ignored(_SIGNALS)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


@contextmanager
def saying_what_ctrl_c_left(said: Callable[[], str]) -> Iterator[None]:
    """Ctrl-C on a long command that runs no workflow (an import, an export, a migration): one
    line on stderr, `interrupted: ` and `said()` (what was done, what was not, how to finish),
    then exit 130, as the shell reports a command Ctrl-C ended."""
    try:
        yield
    except KeyboardInterrupt:
        print(f"interrupted: {said()}", file=sys.stderr)
        raise SystemExit(128 + signal.SIGINT) from None


def stored_end(container: Container, execution_id: str) -> Callable[[float], bool]:
    """`join` for a run as stored: True once a read finds it ended or parked at an approval
    gate (where its own runner lets go too), after waiting up to the seconds given. A read
    ends a run whose runner was lost, so the wait ends with it."""
    from application.use_cases.get_execution import GetExecutionQuery
    from domain.approvals import parked_approval

    query = GetExecutionQuery(workflow_execution_id=execution_id)

    def ended() -> bool:
        execution = container.get_execution().execute(query)
        lease = execution.runner_lease
        return bool(execution.is_terminal or (lease is not None and parked_approval(lease.owner)))

    def join(timeout: float) -> bool:
        if ended():
            return True
        time.sleep(timeout)
        return ended()

    return join


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
    prints for a run that ended (its id, or its row with --json), and exit 128 + the signal.
    A run its completion is finishing is not aborted: it is waited for, as stored, until it
    has ended."""
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
        ended = stored_end(container, execution_id)
        while not ended(_FINISHING_POLL_SECONDS):
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
