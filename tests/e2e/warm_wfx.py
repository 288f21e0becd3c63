"""`wfx ARGS` run as `subprocess.run` runs it (own process, environment, folder, stdin; stdout and
stderr captured as text; the exit code; killed at the timeout), forked from a Python that has
imported wfx already (tests/e2e/wfx_zygote.py), one such Python per test process.

A call whose environment changes how Python itself starts (PYTHON*, LD_*, the locale) gets no
warm start: `warm_run` answers None and the caller starts a fresh interpreter. So does every
call when WFX_TEST_COLD_START is set, to compare or to rule this out.
"""

from __future__ import annotations

import atexit
import json
import locale
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

ZYGOTE = Path(__file__).with_name("wfx_zygote.py")
_LENGTH = struct.Struct("!Q")
_ANSWER = struct.Struct("!q")
_STARTUP_PREFIXES = ("PYTHON", "LD_", "LC_", "LANG")


def _startup_environment(environment: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in environment.items() if k.startswith(_STARTUP_PREFIXES)}


class _Zygote:
    def __init__(self, environment: Mapping[str, str]) -> None:
        self.startup = _startup_environment(environment)
        self._folder = tempfile.TemporaryDirectory(prefix="wfx-zygote-")
        self.path = os.path.join(self._folder.name, "socket")
        self._process = subprocess.Popen(
            [sys.executable, str(ZYGOTE), self.path],
            env={k: v for k, v in environment.items() if not k.startswith(("WFX_", "AWS_"))},
            cwd=self._folder.name,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._process.stdout is not None
        ready = self._process.stdout.readline()
        assert ready == "ready\n", f"the warm wfx did not start: {ready!r}"
        atexit.register(self.stop)

    def stop(self) -> None:
        if self._process.poll() is None:
            self._process.kill()
            self._process.wait()
        self._folder.cleanup()

    def run(
        self, args: Sequence[str], environment: Mapping[str, str], cwd: Path, timeout: float
    ) -> subprocess.CompletedProcess[str]:
        request = {"args": list(args), "environment": dict(environment), "cwd": str(cwd)}
        body = json.dumps(request).encode("utf-8")
        with (
            tempfile.TemporaryFile() as out,
            tempfile.TemporaryFile() as err,
            socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection,
        ):
            connection.connect(self.path)
            stdin = _own_stdin()
            try:
                message = _LENGTH.pack(len(body)) + body
                socket.send_fds(connection, [message], [stdin, out.fileno(), err.fileno()])
            finally:
                if stdin != 0:
                    os.close(stdin)
            connection.settimeout(timeout)
            pid = _read_answer(connection)
            try:
                code = _read_answer(connection)
            except TimeoutError:
                os.kill(pid, 9)
                connection.settimeout(None)
                _read_answer(connection)
                raise subprocess.TimeoutExpired(
                    list(args), timeout, _text(out), _text(err)
                ) from None
            return subprocess.CompletedProcess(list(args), code, _text(out), _text(err))


def _own_stdin() -> int:
    """This process's fd 0, which a subprocess would inherit; /dev/null where it is closed."""
    try:
        os.fstat(0)
    except OSError:
        return os.open(os.devnull, os.O_RDONLY)
    return 0


def _read_answer(connection: socket.socket) -> int:
    data = b""
    while len(data) < _ANSWER.size:
        chunk = connection.recv(_ANSWER.size - len(data))
        if not chunk:
            raise EOFError("the warm wfx hung up without an answer")
        data += chunk
    return int(_ANSWER.unpack(data)[0])


def _text(captured: IO[bytes]) -> str:
    """As `subprocess.run(text=True)` decodes: the locale's encoding, universal newlines."""
    captured.seek(0)
    data = captured.read().decode(locale.getpreferredencoding(False))
    return data.replace("\r\n", "\n").replace("\r", "\n")


_zygote: _Zygote | None = None
_starting = threading.Lock()


def warm_run(
    args: Sequence[str], environment: Mapping[str, str], cwd: Path, timeout: float
) -> subprocess.CompletedProcess[str] | None:
    """The finished call, or None where only a fresh interpreter would start as asked."""
    global _zygote
    if "WFX_TEST_COLD_START" in os.environ or not hasattr(os, "fork"):
        return None
    with _starting:
        if _zygote is None:
            _zygote = _Zygote(environment)
    if _startup_environment(environment) != _zygote.startup:
        return None
    return _zygote.run(args, environment, cwd, timeout)
