"""Stop `localProcess` children: a process id on this host that a step registered.

A registration names a pid; wfx signals it only if it really is the step's: a process of the
step's session or process group (a command step runs in a session of its own), or a descendant
of the runner that ran the step (a python step runs inside the runner). Anything else - a pid
reused by a stranger, or another run's process named on purpose - is refused and left alone.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

from adapters.local.processes_on_host import in_session_or_group, read_stat, stop_group
from adapters.local.supervisor import DEFAULT_GRACE_SECONDS, RunFolder
from domain.execution import PipelineExecution
from domain.logs import RegisteredSubExecution
from domain.sub_processes import StopAttempt, StopOutcome

_POLL_SECONDS = 0.02
_MAX_ANCESTRY = 64


def _is_gone(pid: int) -> bool:
    """True when no process has that id, or it has exited and only waits to be reaped."""
    stat = read_stat(pid)
    if stat is not None:
        return stat.state in ("Z", "X")
    try:  # no /proc: signal 0
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return not Path("/proc").is_dir()


class LocalProcessController:
    """SIGTERM to the process (to its group when it leads one inside the step's session), then
    SIGKILL after the grace period; never init, wfx itself, or a process not of the step."""

    def __init__(
        self,
        runs_dir: Path,
        grace_seconds: float = DEFAULT_GRACE_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._runs_dir = Path(runs_dir)
        self._grace_seconds, self._sleep = grace_seconds, sleep

    def stop(self, sub_execution: RegisteredSubExecution, step: PipelineExecution) -> StopAttempt:
        pid, refusal = self._pid(sub_execution.local_process_id)
        if refusal is not None:
            return refusal
        if _is_gone(pid):
            return StopAttempt(outcome=StopOutcome.ALREADY_FINISHED, detail="no such process")
        stranger = self._not_of(pid, step)
        if stranger is not None:
            return stranger
        stat = read_stat(pid)
        if stat is not None and stat.pgid == pid and pid != os.getpgrp():
            left = stop_group(pid, self._grace_seconds, sleep=self._sleep)
            if left:
                return StopAttempt(
                    outcome=StopOutcome.STOP_REQUESTED,
                    detail=f"still running after SIGTERM, {self._grace_seconds:g} s and SIGKILL",
                )
            return StopAttempt(outcome=StopOutcome.STOPPED, detail="its group ended")
        return self._stop_one(pid)

    def confirm(
        self, sub_execution: RegisteredSubExecution, step: PipelineExecution
    ) -> StopAttempt:
        pid, refusal = self._pid(sub_execution.local_process_id)
        if refusal is not None:
            return refusal
        if _is_gone(pid):
            return StopAttempt(outcome=StopOutcome.STOPPED, detail="the process has ended")
        return StopAttempt(outcome=StopOutcome.STOP_REQUESTED, detail="still running")

    def _stop_one(self, pid: int) -> StopAttempt:
        for number, what in ((signal.SIGTERM, "SIGTERM"), (signal.SIGKILL, "SIGKILL")):
            try:
                os.kill(pid, number)
            except ProcessLookupError:
                return StopAttempt(outcome=StopOutcome.STOPPED, detail=f"ended after {what}")
            except PermissionError as error:
                return StopAttempt(outcome=StopOutcome.COULD_NOT_STOP, detail=f"{what}: {error}")
            wait = self._grace_seconds if number == signal.SIGTERM else 1.0
            deadline = time.monotonic() + wait
            while not _is_gone(pid):
                if time.monotonic() >= deadline:
                    break
                self._sleep(_POLL_SECONDS)
            else:
                return StopAttempt(outcome=StopOutcome.STOPPED, detail=f"ended after {what}")
        return StopAttempt(
            outcome=StopOutcome.STOP_REQUESTED,
            detail=f"still running after SIGTERM, {self._grace_seconds:g} s and SIGKILL",
        )

    def _not_of(self, pid: int, step: PipelineExecution) -> StopAttempt | None:
        """A refusal when `pid` is not a process of the step, else None."""
        if not Path("/proc").is_dir():
            return None  # no way to tell on this system: trust the registration
        folder = RunFolder(self._runs_dir / step.workflow_execution_id)
        command = folder.step(step.pipeline_execution_id)
        if command is not None and command.here and in_session_or_group(pid, command.pid):
            return None
        runner = folder.runner()
        if runner is not None and runner.here and _descends_from(pid, runner.pid):
            return None
        return StopAttempt(
            outcome=StopOutcome.COULD_NOT_STOP,
            detail=f"refused: pid {pid} is not a process of step {step.pipeline_id} "
            "(not in its session or process group, nor a child of its runner)",
        )

    @staticmethod
    def _pid(process_id: str) -> tuple[int, StopAttempt | None]:
        refused = StopOutcome.COULD_NOT_STOP
        try:
            pid = int(process_id.strip())
        except ValueError:
            return 0, StopAttempt(outcome=refused, detail="localProcessId must be a process id")
        if pid <= 1:
            return pid, StopAttempt(outcome=refused, detail=f"refused to signal pid {pid}")
        if pid == os.getpid():
            return pid, StopAttempt(outcome=refused, detail="refused to signal wfx itself")
        return pid, None


def _descends_from(pid: int, ancestor: int) -> bool:
    current = pid
    for _ in range(_MAX_ANCESTRY):
        stat = read_stat(current)
        if stat is None or stat.ppid <= 1:
            return False
        if stat.ppid == ancestor:
            return True
        current = stat.ppid
    return False
