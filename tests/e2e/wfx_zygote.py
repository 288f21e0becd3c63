"""A Python that has imported wfx once and forks a fresh `python -m entrypoints.cli.main` per
request: the e2e tests start `wfx` over a thousand times, and importing it was most of each start.

Run as a script by tests/e2e/warm_wfx.py (never imported by a test): `python wfx_zygote.py SOCKET`.
A request on the Unix socket is one JSON document (args, environment, cwd) with the caller's
stdin, stdout and stderr passed along; the forked child takes those as its own (and a session
of its own when the request asks for one), replaces this process's environment and folder by the
request's and runs the module as `-m` runs it, whatever ends it (an exit, an exception, Ctrl-C's
KeyboardInterrupt) handled by the interpreter as in `python -m`. The answers are the child's pid,
once it has taken its streams and session, then its exit code as `Popen.returncode` gives it.
"""

from __future__ import annotations

import codecs
import contextlib
import ctypes
import gc
import importlib
import json
import os
import pkgutil
import runpy
import selectors
import signal
import socket
import struct
import sys
import traceback
from dataclasses import dataclass
from typing import Any

MODULE = "entrypoints.cli.main"
_PACKAGES = ("domain", "application", "adapters", "entrypoints")
_NOT_PRELOADED = {"entrypoints.lambda_handlers"}
_AWS_SERVICES = ("dynamodb", "s3", "stepfunctions", "logs", "events")  # wfx's clients
# What forked calls still imported each on its own (sys.modules before and after each of 164
# calls of eight e2e files): typer's two in every call (~6.5 ms of CPU), rich's table in each
# one that prints one (~14 ms), a codec or importlib's resource readers in a few.
_LATE_MODULES = (
    "typer._adapters",
    "typer._click.decorators",
    "rich.table",
    "rich._emoji_codes",
    "importlib.resources.readers",
)
_LATE_CODECS = ("ascii", "idna")
_LENGTH = struct.Struct("!Q")
_ANSWER = struct.Struct("!q")
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """The test process may end without stopping this one (a killed xdist worker)."""
    # not Linux (no prctl): the test process's atexit stops it
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _receive(connection: socket.socket) -> tuple[dict[str, Any], list[int]]:
    data, fds, _, _ = socket.recv_fds(connection, 1 << 16, 3)
    (length,) = _LENGTH.unpack(data[: _LENGTH.size])
    body = bytearray(data[_LENGTH.size :])
    while len(body) < length:
        chunk = connection.recv(length - len(body))
        if not chunk:
            raise EOFError("the request ended early")
        body += chunk
    return json.loads(body), fds


def _run_as_wfx(forked: _Forked) -> int:
    """In the forked child: become `python -m entrypoints.cli.main ARGS`; closing `taken` says
    it has its streams (and session). Anything the module raises, SystemExit or Ctrl-C's
    KeyboardInterrupt with it, leaves the interpreter as it leaves `python -m` (a traceback
    and exit 1, the exit's code, death by SIGINT); the zygote adds no exit of its own (the
    module's own, entrypoints/cli/quick_exit.py, ends threads, runs atexit, closes SQLite)."""
    request = forked.request
    if request.get("new_session"):
        os.setsid()
    for target, fd in enumerate(forked.fds):
        os.dup2(fd, target)
        os.close(fd)
    os.close(forked.taken)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["environment"])
    sys.path[0] = request["cwd"]  # what `-m` puts first
    sys.argv = ["-m", *request["args"]]
    runpy.run_module(MODULE, run_name="__main__", alter_sys=True)
    return 0


@dataclass
class _Child:
    """A wfx process this zygote forked and has not reaped: the connection its answers go on,
    the pipe whose end says it has taken its streams, the pidfd that says it has ended."""

    connection: socket.socket
    pid: int
    told: int  # -1 once closed: its number may be another fd's by then
    ended: int

    def close(self) -> None:
        self.connection.close()
        self.close_told()
        os.close(self.ended)

    def close_told(self) -> None:
        if self.told >= 0:
            os.close(self.told)
            self.told = -1


@dataclass(frozen=True)
class _Forked:
    """In a wfx process just forked: its request, its streams, and the end of the pipe it
    closes once it has taken them."""

    request: dict[str, Any]
    fds: list[int]
    taken: int


def _fork(
    connection: socket.socket, selector: selectors.BaseSelector, children: list[_Child]
) -> _Child | _Forked:
    """The wfx process of the request on `connection`, forked from the zygote itself: a process
    between the two (to wait for it) cost one more fork and exit of all these pages, ~20 ms of
    CPU a call. The child closes every fd of the zygote's and gets its `_Forked`."""
    connection.settimeout(10)  # the rest of a request begun, not a caller that stopped midway
    request, fds = _receive(connection)
    told, taken = os.pipe()
    try:
        pid = os.fork()
    except BaseException:
        for fd in (*fds, told, taken):
            os.close(fd)
        raise
    if pid == 0:
        for key in list(selector.get_map().values()):  # other callers' connections
            if isinstance(key.data, socket.socket):
                key.data.close()
        selector.close()  # its own fd; the listener's and the children's closed by their owners
        for child in children:
            child.close()
        connection.close()
        os.close(told)
        return _Forked(request, fds, taken)
    for fd in (*fds, taken):
        os.close(fd)
    connection.settimeout(None)
    return _Child(connection, pid, told, os.pidfd_open(pid))


def _said(child: _Child, selector: selectors.BaseSelector) -> None:
    """The child closed its end of the pipe: it has its streams and session, and its pid is
    told; its end is waited for (even when the caller is gone)."""
    selector.unregister(child.told)
    child.close_told()
    selector.register(child.ended, selectors.EVENT_READ, child)
    child.connection.sendall(_ANSWER.pack(child.pid))


def _reap(child: _Child, selector: selectors.BaseSelector, children: list[_Child]) -> None:
    selector.unregister(child.ended)
    children.remove(child)
    try:
        _, status = os.waitpid(child.pid, 0)
        child.connection.sendall(_ANSWER.pack(os.waitstatus_to_exitcode(status)))
    finally:
        child.close()


def _serve(listener: socket.socket) -> _Forked:
    """Answers requests until killed: a child's pid once it has taken its streams, then its exit
    code as `Popen.returncode` gives it. Returns only in a wfx process. What fails in one
    request is printed, and its caller reads a hang-up."""
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    children: list[_Child] = []
    while True:
        for key, _ in selector.select():
            waiting: socket.socket | _Child | None = key.data
            try:
                if waiting is None:  # a caller: its request read once it is there
                    connection, _ = listener.accept()
                    selector.register(connection, selectors.EVENT_READ, connection)
                elif isinstance(waiting, socket.socket):
                    forked = _forked(waiting, selector, children)
                    if forked is not None:
                        listener.close()
                        return forked
                elif key.fd == waiting.told:
                    _said(waiting, selector)
                else:
                    _reap(waiting, selector, children)
            except Exception:
                traceback.print_exc()


def _forked(
    connection: socket.socket, selector: selectors.BaseSelector, children: list[_Child]
) -> _Forked | None:
    """The request on `connection` forked: None in the zygote, its `_Forked` in the child."""
    selector.unregister(connection)
    try:
        forked = _fork(connection, selector, children)
    except BaseException:
        connection.close()
        raise
    if isinstance(forked, _Forked):
        return forked
    children.append(forked)
    selector.register(forked.told, selectors.EVENT_READ, forked)
    return None


def _import_the_rest() -> None:
    """Every wfx module a command may import late (its store's adapters, its use cases, boto3's
    client machinery), imported once here and not in each forked call: that was most of a call.
    Not the Lambda handlers, which build a container as they are imported."""
    for package in _PACKAGES:
        for module in pkgutil.walk_packages(
            importlib.import_module(package).__path__, f"{package}."
        ):
            if module.name not in _NOT_PRELOADED:
                importlib.import_module(module.name)
    _import_late_modules_once()
    _parse_botocore_data_once()
    _create_tables_once()
    _build_models_once()


def _import_late_modules_once() -> None:
    """The libraries' modules a call imports only where it needs them, imported here once; a
    later version that has moved one is left to import what it needs in each call, as before."""
    for name in _LATE_MODULES:
        with contextlib.suppress(ModuleNotFoundError):
            importlib.import_module(name)
    for encoding in _LATE_CODECS:
        codecs.lookup(encoding)


def _build_models_once() -> None:
    """wfx's pydantic models defer their validators to first use (a cold command builds only
    those it needs): `executions show` built 23 of them in each forked call, ~30 ms of CPU.
    Built here once, as a first use builds them, from each model's own module."""
    import pydantic

    waiting: list[type[pydantic.BaseModel]] = [pydantic.BaseModel]
    while waiting:
        for model in waiting.pop().__subclasses__():
            waiting.append(model)
            if model.__module__.split(".")[0] in _PACKAGES and not model.__pydantic_complete__:
                # no caller's names: a forward reference resolves in its module, or not at all
                # (then the model is left to build at first use, as before)
                model.model_rebuild(raise_errors=False, _types_namespace={})


def _create_tables_once() -> None:
    """A fresh home's first command creates the SQLite tables through SQLAlchemy, which wfx
    imports only then (and its SQLite dialect with the first engine): 0.5 s of CPU in each of
    the hundreds of tests that start from a fresh home. Made once here, in a database in memory
    that is then closed, so that each forked call finds the modules in."""
    from adapters.sqlite.database import SqliteDatabase
    from adapters.sqlite.schema import build_schema, create_tables
    from adapters.tables import TableNames

    database = SqliteDatabase(None)
    try:
        create_tables(database, build_schema(TableNames()))
    finally:
        database.close()


def _parse_botocore_data_once() -> None:
    """botocore parses its JSON (each service's model, the endpoints, the partitions) afresh for
    each new loader, and a wfx call on AWS makes one: that was 0.3 s of a call on DynamoDB. Every
    loader made here with the default search path starts from what this one parsed, as every
    client of one botocore session does. The session is a throwaway: boto3's default one would
    keep this process's (empty) credentials."""
    import boto3.session
    import botocore.loaders
    import botocore.session

    parsed = botocore.loaders.create_loader()
    core = botocore.session.Session()
    core.register_component("data_loader", parsed)
    session = boto3.session.Session(
        botocore_session=core,
        region_name="us-east-1",
        aws_access_key_id="preload",
        aws_secret_access_key="preload",
    )
    for service in _AWS_SERVICES:
        session.client(service)  # type: ignore[call-overload]  # any name, not a literal
    create_loader = botocore.loaders.create_loader

    def loader_sharing_the_parsed_data(search_path_string: str | None = None) -> Any:
        loader = create_loader(search_path_string)
        if search_path_string is None:
            loader._cache = parsed._cache  # type: ignore[attr-defined]  # its instance_cache
        return loader

    botocore.session.create_loader = loader_sharing_the_parsed_data  # type: ignore[attr-defined]


def main(path: str) -> int:
    """Serves until killed; returns only in a wfx process, with its exit code."""
    _die_with_parent()
    del sys.path[0]  # this script's folder: nothing of tests/e2e may shadow a package
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    __import__(MODULE)
    _import_the_rest()
    # what it imports stays; the module itself runs afresh as __main__ in each child, as `-m`
    # runs it (runpy warns of a module found imported already)
    del sys.modules[MODULE]
    # A forked call that collects or ends then leaves these objects alone: it neither walks nor
    # writes to (copies) the pages the two share, which cost more than the imports saved.
    gc.freeze()
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    # out of the loop's handlers: what ends the module is the interpreter's to handle
    return _run_as_wfx(_serve(listener))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
