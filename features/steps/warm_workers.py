"""A detached run's worker forked from the warm wfx (tests/e2e/warm_wfx.py) instead of started
as a fresh interpreter: `python -m entrypoints.cli.main internal-run-worker ID` imports wfx and
botocore before it runs anything (0.5 s of CPU a worker on SQLite, 0.85 s on DynamoDB), and a
scenario that races an abort against a worker starts one per round.

The worker is the same real process as the runner's own start makes it: `internal-run-worker
ID` run as `-m` runs it, in a session of its own, its stdin /dev/null, its stdout and stderr the
run's runner.log, in this process's environment and folder; its pid is the worker's, and the
runner waits for it, signals it and reaps it through the `Popen` it is given. Only the runner's
own `subprocess` is swapped (`adapters.local.runner`'s name for the module), and any other start
(or one the warm wfx cannot make as asked) is a plain `subprocess.Popen`.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import IO, Any

import pytest
from tests.e2e.warm_wfx import warm_wfx

from entrypoints.container import WORKER_COMMAND


class _RunnersSubprocess:
    """`subprocess` as `adapters.local.runner` uses it, whose `Popen` forks a worker warm."""

    def __getattr__(self, name: str) -> Any:
        return getattr(subprocess, name)

    @staticmethod
    def Popen(args: list[str], **options: Any) -> subprocess.Popen[Any]:  # noqa: N802
        log: IO[bytes] | None = options.get("stdout")
        asked = {
            "stdin": subprocess.DEVNULL,
            "stdout": log,
            "stderr": subprocess.STDOUT,
            "start_new_session": True,
        }
        command = tuple(args[: len(WORKER_COMMAND)])
        warm = warm_wfx(os.environ, to_start=True)
        if command != WORKER_COMMAND or options != asked or log is None or warm is None:
            return subprocess.Popen(args, **options)
        rest = list(args[len(WORKER_COMMAND) - 1 :])  # `internal-run-worker ID`
        return warm.start(rest, os.environ, Path.cwd(), new_session=True, output=log.fileno())


def fork_workers_warm(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every worker a local runner starts from now on (in this test) is forked warm."""
    import adapters.local.runner

    monkeypatch.setattr(adapters.local.runner, "subprocess", _RunnersSubprocess())
