"""`wfx ARGS` run as `subprocess.run` runs it (own process, environment, folder, stdin; stdout and
stderr captured as text; the exit code; killed at the timeout), or started as `subprocess.Popen`
starts it (`_Zygote.start`), forked from a Python that has imported wfx already
(tests/e2e/wfx_zygote.py), one such Python per test process.

A call whose environment changes how Python itself starts (PYTHON*, LD_*, the locale) gets no
warm start: `warm_wfx` answers None and the caller starts a fresh interpreter. So does every
call when WFX_TEST_COLD_START is set, to compare or to rule this out, and every start when this
Python's Popen is not the one `WarmProcess` was written against (`popen_waits_as_expected`).
"""

from __future__ import annotations

import atexit
import dis
import functools
import inspect
import io
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
from typing import IO, Any

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

    def _ask(self, request: dict[str, Any], fds: list[int]) -> socket.socket:
        """The connection on which the answers to `request` come, the child's streams sent."""
        body = json.dumps(request).encode("utf-8")
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            connection.connect(self.path)
            socket.send_fds(connection, [_LENGTH.pack(len(body)) + body], fds)
        except BaseException:
            connection.close()
            raise
        return connection

    def run(
        self, args: Sequence[str], environment: Mapping[str, str], cwd: Path, timeout: float
    ) -> subprocess.CompletedProcess[str]:
        request = {"args": list(args), "environment": dict(environment), "cwd": str(cwd)}
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            stdin = _own_stdin()
            try:
                connection = self._ask(request, [stdin, out.fileno(), err.fileno()])
            finally:
                if stdin != 0:
                    os.close(stdin)
            return self._finish(connection, args, timeout, out, err)

    def start(
        self,
        args: Sequence[str],
        environment: Mapping[str, str],
        cwd: Path,
        new_session: bool,
        output: int | None = None,
    ) -> WarmProcess:
        """`output`: an fd its stdout and stderr both write to, as `Popen(stdout=file,
        stderr=STDOUT)` gives them (no pipes); None: each piped to the caller."""
        request: dict[str, Any] = {"args": list(args), "environment": dict(environment)}
        request |= {"cwd": str(cwd), "new_session": new_session}
        stdin = os.open(os.devnull, os.O_RDONLY)
        if output is None:
            (stdout, stdout_end), (stderr, stderr_end) = os.pipe(), os.pipe()
        else:
            stdout, stdout_end, stderr, stderr_end = None, os.dup(output), None, os.dup(output)
        try:
            connection = self._ask(request, [stdin, stdout_end, stderr_end])
            pid = _read_answer(connection)
        except BaseException:
            for fd in (stdout, stderr):
                if fd is not None:
                    os.close(fd)
            raise
        finally:
            for fd in (stdin, stdout_end, stderr_end):
                os.close(fd)
        return WarmProcess(args, pid, connection, stdout, stderr)

    @staticmethod
    def _finish(
        connection: socket.socket,
        args: Sequence[str],
        timeout: float,
        out: IO[bytes],
        err: IO[bytes],
    ) -> subprocess.CompletedProcess[str]:
        with connection:
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


class WarmProcess(subprocess.Popen[str]):
    """A `wfx` the zygote forked, as `Popen(text=True, stdin=DEVNULL, stdout=PIPE,
    stderr=PIPE)` gives it: its own pid (signals reach the wfx process itself), its pipes, and
    `poll`, `wait`, `communicate`, `returncode` as Popen's, the exit code being the one the
    zygote read from `waitpid` (a signal's death negative). Popen's own methods are kept; only
    its two ways of waiting for the child (`_internal_poll`, `_wait`) read the zygote's answer
    where Popen's call `waitpid`, as the process is the zygote's child, not this one's."""

    def __init__(
        self,
        args: Sequence[str],
        pid: int,
        answers: socket.socket,
        stdout: int | None,
        stderr: int | None,
    ) -> None:
        # what Popen.__init__ sets, for a child that is already running; not calling it
        self.args = list(args)
        self.pid = pid
        self.returncode = None
        self.stdin = None
        # Popen's text streams: its encoding, universal newlines
        self.encoding = "utf-8" if sys.flags.utf8_mode else locale.getencoding()
        self.errors = None
        self.stdout = _reading(stdout, self.encoding)
        self.stderr = _reading(stderr, self.encoding)
        self.text_mode, self.pipesize = True, -1
        self._waitpid_lock = threading.Lock()
        self._input = None
        self._communication_started = False
        self._sigint_wait_secs = 0.25
        self._closed_child_pipe_fds = True
        self._child_created = True
        self._answers = answers
        self._answered = b""

    def _internal_poll(self, _deadstate: int | None = None, **_: object) -> int | None:
        if self.returncode is None and self._waitpid_lock.acquire(False):
            try:
                if self.returncode is None:
                    self._read_code(timeout=0.0)
            except OSError:
                if _deadstate is None:
                    raise
                self.returncode = _deadstate
            finally:
                self._waitpid_lock.release()
        return self.returncode  # type: ignore[no-any-return]

    def _wait(self, timeout: float | None) -> int:
        with self._waitpid_lock:
            if self.returncode is None:
                try:
                    self._read_code(timeout)
                except TimeoutError:
                    raise subprocess.TimeoutExpired(self.args, timeout or 0) from None
        return self.returncode  # type: ignore[no-any-return]

    def _read_code(self, timeout: float | None) -> None:
        """The exit code, once the zygote has sent it, waiting `timeout` seconds at most (None:
        until it comes; 0: not at all); what came of it before kept."""
        self._answers.settimeout(timeout)
        while len(self._answered) < _ANSWER.size:
            try:
                chunk = self._answers.recv(_ANSWER.size - len(self._answered))
            except BlockingIOError:  # timeout 0, nothing yet
                return
            if not chunk:
                raise EOFError("the warm wfx hung up without the exit code")
            self._answered += chunk
        self._answers.close()
        self.returncode = int(_ANSWER.unpack(self._answered)[0])


def _reading(fd: int | None, encoding: str) -> io.TextIOWrapper | None:
    """Popen's text stream of a pipe's end; None where the child writes elsewhere."""
    return None if fd is None else io.TextIOWrapper(io.BufferedReader(io.FileIO(fd)), encoding)


def _stored_attributes(method: Any) -> set[str]:
    return {i.argval for i in dis.get_instructions(method) if i.opname == "STORE_ATTR"}


def popen_as_expected(popen: type[subprocess.Popen[Any]]) -> bool:
    """Whether `popen` waits through the two private hooks `WarmProcess` replaces, as CPython
    3.11's does (`_internal_poll(self, _deadstate=None, ...)`, `_wait(self, timeout)`), and its
    `__init__` sets no attribute `WarmProcess.__init__` does not (its other methods read them)."""
    try:
        poll = list(inspect.signature(popen._internal_poll).parameters.values())  # type: ignore[attr-defined]
        wait = list(inspect.signature(popen._wait).parameters)  # type: ignore[attr-defined]
    except (AttributeError, TypeError, ValueError):
        return False
    deadstate = inspect.Parameter(
        "_deadstate", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None
    )
    unasked = [p for p in poll[2:] if p.default is inspect.Parameter.empty]
    if poll[1:2] != [deadstate] or unasked or wait != ["self", "timeout"]:
        return False
    return _stored_attributes(popen.__init__) <= _stored_attributes(WarmProcess.__init__)


@functools.cache
def popen_waits_as_expected() -> bool:
    """`popen_as_expected` for this Python's Popen, asked once."""
    return popen_as_expected(subprocess.Popen)


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


def warm_wfx(environment: Mapping[str, str], *, to_start: bool = False) -> _Zygote | None:
    """This process's warm wfx, to `run` a call in `environment` (or `start` one, `to_start`);
    None where only a fresh interpreter would start as asked."""
    global _zygote
    if "WFX_TEST_COLD_START" in os.environ or not hasattr(os, "fork"):
        return None
    if to_start and not popen_waits_as_expected():
        return None  # a WarmProcess would wait wrongly on this Python
    with _starting:
        if _zygote is None:
            _zygote = _Zygote(environment)
    if _startup_environment(environment) != _zygote.startup:
        return None
    return _zygote
