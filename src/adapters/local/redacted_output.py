"""Step output on its way to a file, redacted line by line before any of it is written.

Whichever way a step writes (a python step's prints, a command's stdout and stderr, the detached
worker's own messages), the file under WFX_HOME only ever holds what domain.redaction leaves.
Each stream gets its own StreamRedactor, so a key block printed on stdout stays one block however
stderr lines interleave with it in the file.
"""

from __future__ import annotations

import atexit
import codecs
import os
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import IO, BinaryIO, TextIO

from domain.redaction import StreamRedactor

_CHUNK_BYTES = 64 * 1024


class RedactedLogFile:
    """A step's text log, opened on the first text that survives redaction (a silent step costs
    no file). flush() writes every whole line; a line still open waits for its end or close()."""

    def __init__(self, path: Callable[[], Path]) -> None:
        self._path = path
        self._file: TextIO | None = None
        # made on the first write: a silent step (most are) costs no redactor either, and one
        # that was never fed has nothing to give back at close
        self._redactor: StreamRedactor | None = None

    def write(self, text: str) -> int:
        if self._redactor is None:
            self._redactor = StreamRedactor()
        self._write(self._redactor.feed(text))
        return len(text)

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._redactor is not None:
            self._write(self._redactor.close())
        if self._file is not None:
            self._file.close()

    def _write(self, redacted: str) -> None:
        if not redacted:
            return
        if self._file is None:
            # a lone surrogate a handler printed (an os.fsdecode'd name) is logged as its escape
            self._file = open(  # noqa: SIM115
                self._path(), "a", encoding="utf-8", errors="backslashreplace", buffering=1
            )
        self._file.write(redacted)


def copy_redacted_output(
    process: subprocess.Popen[bytes], log: BinaryIO, stderr_tail_lines: int
) -> str:
    """Copy the process's stdout and stderr (both pipes) into `log` until both close, each
    redacted line by line; returns the last lines of stderr as they were written."""
    lock = threading.Lock()
    tail: deque[str] = deque(maxlen=stderr_tail_lines)
    failures: list[BaseException] = []

    def write(text: str) -> None:
        if text:
            with lock:  # whole lines from either stream, never a mix of the two
                log.write(text.encode("utf-8"))
                log.flush()  # a `wfx executions logs` of the running step sees it now

    def write_stderr(text: str) -> None:
        write(text)
        tail.extend(text.splitlines(keepends=True))

    assert process.stdout is not None and process.stderr is not None
    stdout = threading.Thread(
        target=_pump, args=(process.stdout, write, failures), name="step-stdout", daemon=True
    )
    stdout.start()
    _pump(process.stderr, write_stderr, failures)
    stdout.join()
    if failures:
        raise failures[0]
    return "".join(tail)


def _pump(stream: IO[bytes], write: Callable[[str], None], failures: list[BaseException]) -> None:
    redactor = StreamRedactor()
    # Bytes that are not UTF-8 become U+FFFD: the log is text, and a secret split by an
    # undecodable byte must still reach the redactor in one piece.
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    try:
        with stream:
            while chunk := os.read(stream.fileno(), _CHUNK_BYTES):
                write(redactor.feed(decoder.decode(chunk)))
        write(redactor.feed(decoder.decode(b"", final=True)) + redactor.close())
    except BaseException as error:  # reported by the caller: a thread's exception is otherwise lost
        failures.append(error)


class RedactedStream:
    """Stands in for sys.stdout or sys.stderr: whole lines go out redacted, the rest at close."""

    def __init__(self, target: TextIO) -> None:
        self._target = target
        self._redactor = StreamRedactor()
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        with self._lock:
            redacted = self._redactor.feed(text)
            if redacted:
                self._target.write(redacted)
                self._target.flush()
        return len(text)

    def flush(self) -> None:
        self._target.flush()

    def close(self) -> None:
        with self._lock:
            self._target.write(self._redactor.close())
            self._target.flush()

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name: str) -> object:
        return getattr(self._target, name)  # encoding, fileno, ... of the real stream


def redact_standard_streams() -> None:
    """Send this process's sys.stdout and sys.stderr through redaction from now on (the detached
    worker, whose output goes to runner.log under WFX_HOME); their last lines go out at exit,
    after a traceback Python prints for an error nothing caught."""
    streams = (RedactedStream(sys.stdout), RedactedStream(sys.stderr))
    sys.stdout, sys.stderr = streams
    for stream in streams:
        atexit.register(stream.close)
