"""The child side of a peer benchmark: runs a peer's trivial workflow on request, times it inside
its own process and answers in JSON lines. Standard library only: it runs in the peer's virtualenv
(build/peers/NAME), where neither wfx nor its dependencies are installed.

Protocol, one line each way. The worker first sends `{"ready": true, ...}` once its set-up (and
any untimed first run) is done. Then, for each `MODE COUNT PAUSE` line read from stdin, it makes
COUNT runs of MODE, each after PAUSE seconds of sleep (outside the timing), and answers
`{"mode": MODE, "seconds": [...]}`; `quit` or the end of stdin ends it.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, TextIO


def _no_context() -> AbstractContextManager[None]:
    return contextlib.nullcontext()


@dataclass(frozen=True)
class Mode:
    """One way of running the workflow; `context` wraps a whole batch (e.g. temporary settings)."""

    run: Callable[[], object]
    context: Callable[[], AbstractContextManager[Any]] = field(default=_no_context)


def protocol_stream() -> TextIO:
    """The real stdout for our answers; fd 1 then points at stderr, so whatever the peer prints
    (console loggers, progress) cannot corrupt a JSON line."""
    answers = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return answers


def send(stream: TextIO, message: Mapping[str, Any]) -> None:
    stream.write(json.dumps(message) + "\n")
    stream.flush()


def timed(run: Callable[[], object], count: int, pause: float) -> list[float]:
    clock = time.perf_counter
    durations = []
    for _ in range(count):
        if pause:
            time.sleep(pause)
        started = clock()
        run()
        durations.append(clock() - started)
    return durations


def requests(lines: Iterator[str]) -> Iterator[tuple[str, int, float]]:
    for line in lines:
        words = line.split()
        if not words:
            continue
        if words[0] == "quit":
            return
        yield words[0], int(words[1]), float(words[2]) if len(words) > 2 else 0.0


def serve(answers: TextIO, modes: Mapping[str, Mode], ready: Mapping[str, Any]) -> None:
    """Answer requests until `quit`; `answers` is the stream from `protocol_stream()`, taken
    before the peer was imported or set up."""
    send(answers, {"ready": True, **ready})
    for name, count, pause in requests(iter(sys.stdin)):
        mode = modes[name]
        with mode.context():
            durations = timed(mode.run, count, pause)
        send(answers, {"mode": name, "seconds": durations})
