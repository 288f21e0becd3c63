"""Stop `localProcess` children: a process id on this host, sent SIGTERM and watched until gone."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

from domain.logs import RegisteredSubExecution
from domain.sub_processes import StopAttempt, StopOutcome

DEFAULT_GRACE_SECONDS = 2.0
_POLL_SECONDS = 0.02


def _is_gone(pid: int) -> bool:
    """True when no process has that id, or it has exited and only waits to be reaped."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # it exists, owned by someone else
    try:  # a zombie has ended: it answers signal 0 until its parent reaps it
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


class LocalProcessController:
    """SIGTERM to the process, or to its process group when it leads one (its children with it).

    Refuses pid <= 1 and our own pid or group: wfx never signals init or itself. A process id
    can be reused once its process has gone, so a stale registration could name a stranger;
    the runner registers only processes it started and watches.
    """

    def __init__(
        self,
        grace_seconds: float = DEFAULT_GRACE_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._grace_seconds, self._sleep = grace_seconds, sleep

    def stop(self, sub_execution: RegisteredSubExecution) -> StopAttempt:
        pid, refusal = self._pid(sub_execution.resource_id)
        if refusal is not None:
            return refusal
        if _is_gone(pid):
            return StopAttempt(outcome=StopOutcome.ALREADY_FINISHED, detail="no such process")
        try:
            if self._leads_own_group(pid):
                os.killpg(pid, signal.SIGTERM)
            else:
                os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            return StopAttempt(outcome=StopOutcome.ALREADY_FINISHED, detail="no such process")
        except PermissionError as error:
            return StopAttempt(outcome=StopOutcome.COULD_NOT_STOP, detail=f"SIGTERM: {error}")
        deadline = time.monotonic() + self._grace_seconds
        while not _is_gone(pid):
            if time.monotonic() >= deadline:
                return StopAttempt(
                    outcome=StopOutcome.STOP_REQUESTED,
                    detail=f"SIGTERM sent; still running after {self._grace_seconds:g}s",
                )
            self._sleep(_POLL_SECONDS)
        return StopAttempt(outcome=StopOutcome.STOPPED, detail="ended after SIGTERM")

    def confirm(self, sub_execution: RegisteredSubExecution) -> StopAttempt:
        pid, refusal = self._pid(sub_execution.resource_id)
        if refusal is not None:
            return refusal
        if _is_gone(pid):
            return StopAttempt(outcome=StopOutcome.STOPPED, detail="the process has ended")
        return StopAttempt(outcome=StopOutcome.STOP_REQUESTED, detail="still running")

    @staticmethod
    def _pid(resource_id: str) -> tuple[int, StopAttempt | None]:
        refused = StopOutcome.COULD_NOT_STOP
        try:
            pid = int(resource_id.strip())
        except ValueError:
            return 0, StopAttempt(outcome=refused, detail="resourceId must be a process id")
        if pid <= 1:
            return pid, StopAttempt(outcome=refused, detail=f"refused to signal pid {pid}")
        if pid == os.getpid():
            return pid, StopAttempt(outcome=refused, detail="refused to signal wfx itself")
        return pid, None

    @staticmethod
    def _leads_own_group(pid: int) -> bool:
        try:
            group = os.getpgid(pid)
        except ProcessLookupError:
            return False
        return group == pid and group != os.getpgrp()
