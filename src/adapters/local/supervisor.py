"""The process supervisor of local runs: where each run's runner and command steps are, how they
are stopped, and the keeper that renews a run's lease and watches for its abort.

Under the runner's work directory, each run has
- `runs/<executionId>.json`: the process running it (host, pid, start time, mode), a file beside
  the run's folder rather than in it, so that a run that starts no command step makes no folder
  for its records (a new folder is an inode and a block, the dearest call of a run's start);
- `runs/<executionId>/steps/<pipelineExecutionId>.json`: the process group of each command step
  it started, the folder made by the first.
Any process on the host - an abort from another terminal, a read that finds a dead runner -
finds them there. A process is named by its pid and start time, so a reused pid never passes.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from adapters.local.processes_on_host import (
    HOST,
    describe,
    is_running,
    members,
    own_pid,
    start_time_of,
    stop_group,
    wait_until_gone,
)
from adapters.system import random_bytes
from domain.bounds import is_whole_number

RUNNER_SUFFIX = ".json"  # runs/<executionId>.json
OLD_RUNNER_FILE = "runner.json"  # runs/<executionId>/runner.json: earlier versions wrote it
SHARED_FOLDER = ".records"  # beside the run folders: the copies the runner records link to
STEPS_FOLDER = "steps"
DEFAULT_GRACE_SECONDS = 5.0
DEFAULT_LEASE_SECONDS = 30.0
DEFAULT_WATCH_SECONDS = 0.5
KEEPER_IDLE_SECONDS = 10.0  # a keeper's thread with no run to keep this long ends


@dataclass(frozen=True)
class ProcessRecord:
    """A process of a run: its runner (mode thread or detached) or a command step's group."""

    host: str
    pid: int
    start_time: int | None
    mode: str
    owner: str = ""  # written by wfx before 12-04 (the lease's owner): read, never written
    attempt: int | None = None

    @property
    def here(self) -> bool:
        return self.host == HOST

    def running(self) -> bool:
        return self.here and is_running(self.pid, self.start_time)

    def gone_within(self, seconds: float) -> bool:
        """Whether it is not running, or has stopped within `seconds` (woken by its exit)."""
        return not self.here or wait_until_gone(self.pid, self.start_time, seconds)


def lease_owner() -> str:
    """A name for a runner that no other runner, here or elsewhere, will ever have."""
    # as random as a uuid4's first 8 digits
    return f"{HOST}:{own_pid()}:{random_bytes.take(4).hex()}"


class RunFolder:
    """The records of one run's processes."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        # a str: os calls on strings, as pathlib's joins and mkdir doubled the Python around
        # the file-system calls every run's start makes
        self._folder = os.fspath(path)

    @property
    def path(self) -> Path:
        """The run's folder: its command steps' records (made by the first)."""
        return Path(self._folder)

    @property
    def runner_path(self) -> Path:
        return Path(self._folder + RUNNER_SUFFIX)

    def write_runner(self, record: ProcessRecord) -> None:
        path = self._folder + RUNNER_SUFFIX
        data = _encoded(record)
        try:
            _place_new(path, data, record)
            return
        except FileExistsError:
            pass  # a record before it (the launcher's of a detached worker, a run taken up again)
        except FileNotFoundError:  # the first run of this work directory
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with contextlib.suppress(FileExistsError):
                _place_new(path, data, record)
                return
        _replace(path, data)

    def runner(self) -> ProcessRecord | None:
        record = _read(self._folder + RUNNER_SUFFIX)
        if record is None:  # a run an earlier version started keeps it in its folder
            record = _read(os.path.join(self._folder, OLD_RUNNER_FILE))
        return record

    def write_step(self, pipeline_execution_id: str, record: ProcessRecord) -> None:
        steps = os.path.join(self._folder, STEPS_FOLDER)
        _write(steps, f"{_segment(pipeline_execution_id)}.json", record)

    def steps(self) -> dict[str, ProcessRecord]:
        folder = os.path.join(self._folder, STEPS_FOLDER)
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            return {}
        found = {}
        for name in names:
            record = _read(os.path.join(folder, name)) if name.endswith(".json") else None
            if record is not None:
                found[name[: -len(".json")]] = record
        return found

    def step(self, pipeline_execution_id: str) -> ProcessRecord | None:
        name = f"{_segment(pipeline_execution_id)}.json"
        return _read(os.path.join(self._folder, STEPS_FOLDER, name))


def _write(folder: str, name: str, record: ProcessRecord) -> None:
    """`record` as `folder/name`, the folder made when missing."""
    path = f"{folder}{os.sep}{name}"
    data = _encoded(record)
    try:
        os.mkdir(folder)
    except FileNotFoundError:
        os.makedirs(folder, exist_ok=True)
    except FileExistsError:
        _replace(path, data)
        return
    # The first record of a folder this call made: no rename. A reader that comes before it is
    # whole reads no record (half a record does not parse), which is what it read a moment
    # before: there was none.
    try:
        _write_file(path, data, os.O_EXCL)
    except FileExistsError:  # another writer came first: replace it
        _replace(path, data)


@functools.lru_cache(maxsize=16)
def _encoded(record: ProcessRecord) -> bytes:
    # vars(), not asdict(): its deep copy is the record's costliest part, and all its
    # fields are plain values. Kept: a process writes its own record (the same) each run.
    return json.dumps(vars(record)).encode("utf-8")


def _place_new(path: str, data: bytes, record: ProcessRecord) -> None:
    """`data` as the new file `path` (FileExistsError when there is one): this process's own
    record is a link to its one copy. No rename: a reader that comes before the file is whole
    reads no record (half a record does not parse), which is what it read a moment before."""
    if record.pid == own_pid():
        # the parent as a key and the copies' folder: `path` names a file, never ends in a `/`
        _SHARED.place(path, data, path.rpartition(os.sep)[0])
    else:
        _write_file(path, data, os.O_EXCL)


def _replace(path: str, data: bytes) -> None:
    folder, name = os.path.split(path)
    temporary = os.path.join(folder, f".{name}.{os.getpid()}.{threading.get_ident()}")
    _write_file(temporary, data, os.O_TRUNC)
    os.replace(temporary, path)  # a reader never sees half of the record it replaces


class _SharedRecords:
    """A process's own record is the same for every run it starts (host, pid, start, mode), so
    the first runner record of each run is a hard link to one copy of it, kept in `.records/`
    beside the runs' records: a new file costs an inode, the dearest call of a run's
    start on a busy disk (0.1-0.4 ms here, against ~10 us for a link). Every later write of a
    record replaces its path (`os.replace`), never the shared file; a file system without hard
    links, or a copy at its link limit, gets a file written (a new copy is made next time)."""

    def __init__(self) -> None:
        self._copies: dict[tuple[str, bytes], str] = {}  # (parent folder, record) -> copy
        self._made = 0
        self._lock = threading.Lock()

    def place(self, path: str, data: bytes, parent: str) -> None:
        """`data` as the new file `path`; FileExistsError when there is one."""
        key = (parent, data)
        copy = self._copies.get(key)
        if copy is None:
            copy = self._copy(key)
        if copy is not None:
            try:
                os.link(copy, path)
                return
            except FileExistsError:
                raise
            except OSError:  # the copy removed, at its link limit, or no links here
                with self._lock:
                    if self._copies.get(key) == copy:
                        del self._copies[key]
        _write_file(path, data, os.O_EXCL)

    def _copy(self, key: tuple[str, bytes]) -> str | None:
        parent, data = key
        folder = os.path.join(parent, SHARED_FOLDER)
        with self._lock:
            if key in self._copies:
                return self._copies[key]
            pid = os.getpid()
            self._made += 1
            name = f"{pid}-{_own_start_time(pid)}-{self._made}.json"
            try:
                os.makedirs(folder, exist_ok=True)
                _sweep(folder)
                _write_file(os.path.join(folder, name), data, os.O_EXCL)
            except OSError:
                return None  # a folder it cannot write: each record is a file of its own
            self._copies[key] = copy = os.path.join(folder, name)
            return copy

    def remove_own(self) -> None:
        """At the process's end: its copies, which no later run will link to (a forked child
        that inherited its parent's leaves them)."""
        own = f"{os.getpid()}-"
        for copy in self._copies.values():
            if os.path.basename(copy).startswith(own):
                with contextlib.suppress(OSError):
                    os.unlink(copy)


def _sweep(folder: str) -> None:
    """The copies of processes that have ended (killed before they could remove theirs)."""
    for name in os.listdir(folder):
        pid, _, rest = name.partition("-")
        start = rest.partition("-")[0]
        if not (is_whole_number(pid) and name.endswith(".json")):
            continue  # not a copy of ours: a name anyone could have put there
        if not is_running(int(pid), int(start) if is_whole_number(start) else None):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(folder, name))


_SHARED = _SharedRecords()
atexit.register(_SHARED.remove_own)


def _write_file(path: str, data: bytes, flag: int) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | flag, 0o666)
    try:
        os.write(descriptor, data)
    finally:
        os.close(descriptor)


def _read(path: str) -> ProcessRecord | None:
    try:
        with open(path, encoding="utf-8") as file:
            data = json.loads(file.read())
        return ProcessRecord(**data)
    except (OSError, ValueError, TypeError):
        return None


def _segment(identifier: str) -> str:
    if not identifier or "/" in identifier or identifier in (".", ".."):
        raise ValueError(f"id {identifier!r}: must be a single path segment")
    return identifier


@functools.cache
def _own_start_time(pid: int) -> int | None:
    return start_time_of(pid)  # a process's start never changes: read /proc once


def this_process(mode: str) -> ProcessRecord:
    """This process's record: the same for every run it starts in `mode` (the lease on the run's
    row names the run's owner), so the runs share one copy of it (`_SharedRecords`), and each
    run is given the one record made (a forked child, with a pid of its own, makes its own)."""
    pid = own_pid()
    record = _OWN_RECORDS.get((pid, mode))
    if record is None:
        record = _OWN_RECORDS[pid, mode] = ProcessRecord(HOST, pid, _own_start_time(pid), mode)
    return record


_OWN_RECORDS: dict[tuple[int, str], ProcessRecord] = {}


def child_process(pid: int, mode: str, attempt: int | None = None) -> ProcessRecord:
    return ProcessRecord(HOST, pid, start_time_of(pid), mode, attempt=attempt)


def stop_step_groups(folder: RunFolder, grace_seconds: float) -> list[str]:
    """Stop the process group of every command step of the run that still has a process on
    this host; a warning naming each process left alive after SIGKILL."""
    warnings = []
    for pipeline_execution_id, record in folder.steps().items():
        if not record.here or not members(record.pid):
            continue
        for left in stop_group(record.pid, grace_seconds):
            warnings.append(
                f"step {pipeline_execution_id}: {describe(left)} still running after SIGTERM, "
                f"{grace_seconds:g} s and SIGKILL"
            )
    return warnings


class StopReason(StrEnum):
    ABORT = "abort"  # an abort was requested: the run ends ABORTED
    LOST = "lost"  # the lease is no longer ours (the run was ended, or taken): write nothing


class RunStop:
    """A run's stop, as its runner sees it: why, and a wait that ends as soon as it is asked."""

    def __init__(self) -> None:
        self.reason: StopReason | None = None
        # The event is made by the first wait, under the lock a request takes too: most runs
        # never wait (a run's steps without retries), and an Event is a Condition and two locks.
        self._lock = threading.Lock()
        self._event: threading.Event | None = None

    def request(self, reason: StopReason) -> None:
        with self._lock:
            if self.reason is None:
                self.reason = reason
            if self._event is not None:
                self._event.set()

    @property
    def requested(self) -> bool:
        return self.reason is not None  # set by the first request, never unset

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`; True (at once) when a stop is asked for."""
        with self._lock:
            if self.reason is not None:
                return True
            if self._event is None:
                self._event = threading.Event()
            event = self._event
        return event.wait(seconds)


class Standing(StrEnum):
    """What a run's keeper learns from the store."""

    RUNNING = "running"
    STOPPING = "stopping"  # an abort was requested
    ENDED = "ended"  # terminal: somebody ended it without us


@dataclass
class _Kept:
    """One run the keeper keeps, and when it is next due."""

    watch: Callable[[], Standing]
    renew: Callable[[], bool]
    on_stop: Callable[[StopReason], None]
    watch_every: float
    renew_every: float
    next_watch: float
    next_renewal: float


class RunKeeper:
    """One daemon thread for every run this process runs: it renews each run's lease every third
    of the lease, looks for an abort request every `watch_seconds`, and calls the run's
    `on_stop` once (in a thread of its own: a stop waits out a grace period) when either says
    stop. One thread for all runs, started on the first: a run costs no thread of its own.

    The thread sleeps until the next run's look is due, woken early only by a run kept with an
    earlier one, and ends once it has had no run to keep for `idle_seconds`; the next run kept
    starts another. So a keeper nothing uses any more (an embedding program's container set
    aside, a test's) leaves no thread behind that wakes to look at nothing.

    A store error is reported on stderr and tried again at the run's next look: a short outage
    costs a renewal or two, and only an outage longer than the lease loses the run.
    """

    def __init__(self, idle_seconds: float = KEEPER_IDLE_SECONDS) -> None:
        self._kept: dict[str, _Kept] = {}
        self._lock = threading.Lock()
        self._woken = threading.Condition(self._lock)
        self._wakes_at = 0.0  # when the thread's present wait ends
        self._idle_seconds = idle_seconds
        self._thread: threading.Thread | None = None

    def keep(
        self,
        execution_id: str,
        watch: Callable[[], Standing],
        renew: Callable[[], bool],
        on_stop: Callable[[StopReason], None],
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        watch_seconds: float = DEFAULT_WATCH_SECONDS,
    ) -> None:
        renew_every = max(lease_seconds / 3, 0.05)
        watch_every = max(min(watch_seconds, renew_every), 0.01)
        now = time.monotonic()
        kept = _Kept(
            watch, renew, on_stop, watch_every, renew_every, now + watch_every, now + renew_every
        )
        with self._lock:
            self._kept[execution_id] = kept
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="wfx-keeper", daemon=True)
                self._thread.start()
            elif kept.next_watch < self._wakes_at:
                self._woken.notify()

    def release(self, execution_id: str) -> None:
        with self._lock:
            self._kept.pop(execution_id, None)

    def _loop(self) -> None:
        while (ready := self._wait_until_due()) is not None:
            now = time.monotonic()
            for execution_id, kept in ready:
                self._tend(execution_id, kept, now)

    def _wait_until_due(self) -> list[tuple[str, _Kept]] | None:
        """The runs whose look is due, once one is; None, the thread's end, once it has woken
        to no run to keep for the idle time (decided under the lock `keep` takes to start one)."""
        with self._lock:
            idle_until = time.monotonic() + self._idle_seconds
            while True:
                now = time.monotonic()
                ready = [(i, k) for i, k in self._kept.items() if k.next_watch <= now]
                if ready:
                    return ready
                if self._kept:
                    idle_until = now + self._idle_seconds
                elif now >= idle_until:
                    self._thread = None
                    return None
                self._wakes_at = min(
                    (k.next_watch for k in self._kept.values()), default=idle_until
                )
                self._woken.wait(self._wakes_at - now)

    def _tend(self, execution_id: str, kept: _Kept, now: float) -> None:
        kept.next_watch = now + kept.watch_every
        with self._lock:
            if self._kept.get(execution_id) is not kept:
                return  # released since the loop looked: its run has ended, its store may be gone
        try:
            standing = kept.watch()
            reason = {Standing.STOPPING: StopReason.ABORT, Standing.ENDED: StopReason.LOST}.get(
                standing
            )
            if reason is None and now >= kept.next_renewal:
                if kept.renew():
                    kept.next_renewal = time.monotonic() + kept.renew_every
                else:
                    reason = StopReason.LOST
        except Exception as error:
            print(
                f"wfx: run {execution_id}: lease or abort check failed, will retry: "
                f"{type(error).__name__}: {error}",
                file=sys.stderr,
            )
            return
        if reason is None:
            return
        with self._lock:
            if self._kept.pop(execution_id, None) is None:
                return  # released meanwhile: the run has ended
        threading.Thread(
            target=kept.on_stop, args=(reason,), name=f"wfx-stop-{execution_id}", daemon=True
        ).start()
