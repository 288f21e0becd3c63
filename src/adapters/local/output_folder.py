"""The run's shared output folder, mirrored to the object store under the run's output prefix.

Symbolic links are never followed out of the folder: a step (or a process it left behind) may
link to any file the runner can read, and the runner may have more rights than the step. A link
is recorded only when it resolves to a regular file inside the folder, as that file's content;
every other link is refused with a warning. Files are opened without following a last-component
link and must still be the file the scan saw, so a link swapped in after the scan is not followed.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat as stat_module
import time
from collections.abc import Callable
from io import BufferedReader
from pathlib import Path

from adapters.local.step_execution import StepFailedError
from adapters.object_files import NO_FOLLOW_READ
from application.ports.files import ObjectStore, StoredObject
from domain.assets import file_key_problem

# File times on Linux advance in clock ticks (up to 10 ms): a file changed within a tick of our
# last look could keep its size and mtime, so only a stat older than this is trusted ("racy git").
_SETTLE_NS = 25_000_000
_DIRECTORY_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_PULL_PREFIX = ".wfx-pull-"
_CHUNK = 1 << 20

_Stat = tuple[int, int, int, int]  # size, mtime_ns, inode, device (of the file itself, lstat)
_File = tuple[str, str, _Stat]  # relative path (with `/`), path on disk, stat
Warn = Callable[[str], None]


def log_warnings_to(log_path: Callable[[], Path]) -> Warn:
    """A `warn` for push() that appends `warning: ...` lines to a step's log file."""

    def warn(message: str) -> None:
        with open(log_path(), "a", encoding="utf-8") as log:
            log.write(f"warning: {message}\n")

    return warn


class OutputFolder:
    """Brings stored outputs down before a run and uploads new or changed files after each step."""

    def __init__(self, objects: ObjectStore, folder: str, prefix: str) -> None:
        self._objects = objects
        self._folder = folder  # a str: paths are built per step, and pathlib costs microseconds
        self._prefix = prefix
        self._stored: dict[str, str] = {}  # relative path -> sha256 of the latest stored body
        self._settled: dict[str, tuple[_Stat, str]] = {}  # relative path -> (stat, sha256)
        self._warned: set[tuple[str, str]] = set()  # (relative path, problem): said once a run
        self._holds_stored = True  # anything may be stored under the prefix, unless create() says

    @property
    def holds_stored(self) -> bool:
        """False while nothing is stored under the prefix: created new, nothing uploaded since."""
        return self._holds_stored

    @property
    def path(self) -> str:
        return self._folder

    def create(self) -> None:
        """Create the folder of a run just launched: nothing is stored under its prefix yet,
        so there is nothing to pull (pull() would list the store for nothing)."""
        _make_folder(self._folder)
        self._holds_stored = False

    def pull(self) -> None:
        """Create the folder and bring down stored outputs it lacks or holds another version of
        (a redrive in a new process, or after another machine ran the run)."""
        _make_folder(self._folder)
        for stored in self._objects.list_latest(self._prefix):
            relative = stored.key[len(self._prefix) :]
            held = _digest(os.path.join(self._folder, relative), stored.size)
            if held is not None and held == stored.etag:  # the filesystem store's etag: sha256
                self._stored[relative] = held
                continue
            # every step's outputs were pushed, so the store's version is the newest there is
            source = self._objects.local_path(stored.key, stored.version_id)
            with open(source, "rb") as body:
                self._stored[relative] = hashlib.file_digest(body, "sha256").hexdigest()
            if held != self._stored[relative]:
                _write_beneath(self._folder, relative, source)

    def push(self, warn: Warn | None = None) -> list[StoredObject]:
        """Upload every file whose content differs from the latest stored version of its key;
        `warn` is told about each link or swapped file that is refused (once per run)."""
        trusted_before = time.time_ns() - _SETTLE_NS
        files, links = _scan_folder(self._folder)
        if links:
            files.extend(self._linked_files(links, files, warn))
        uploaded = []
        refused: list[str] = []
        for relative, path, stat in sorted(files):
            body: BufferedReader | None = None
            try:
                settled = self._settled.get(relative)
                if settled is not None and settled[0] == stat:
                    etag = settled[1]
                else:
                    body = self._open_scanned(relative, path, stat, warn)
                    if body is None:
                        continue
                    etag = hashlib.file_digest(body, "sha256").hexdigest()
                    if stat[1] < trusted_before:
                        self._settled[relative] = (stat, etag)
                if self._stored.get(relative) == etag:
                    continue
                if body is None:
                    body = self._open_scanned(relative, path, stat, warn)
                    if body is None:
                        continue
                else:
                    body.seek(0)
                problem = file_key_problem(relative)
                if problem is not None:
                    refused.append(f"{relative!r}: file key {problem}")
                    self._warn(warn, relative, refused[-1])
                    continue
                self._holds_stored = True  # before the upload: a failed one may have stored it
                stored = self._objects.put_file(f"{self._prefix}{relative}", body)
            finally:
                if body is not None:
                    body.close()
            # what push compares is the sha256 of the content, whatever etag the store gives
            self._stored[relative] = etag
            uploaded.append(stored)
        if refused:
            more = f" (and {len(refused) - 1} more, in the step's log)" if len(refused) > 1 else ""
            raise StepFailedError(  # a name no object store keeps as a key
                f"output {refused[0]}{more}; rename it in the step: its other outputs are recorded"
            )
        return uploaded

    def _linked_files(
        self, links: list[tuple[str, str]], files: list[_File], warn: Warn | None
    ) -> list[_File]:
        """Each link that resolves to a regular file of the folder, as that file; the others
        refused. Only links are resolved: a realpath per regular file would slow every step."""
        root = os.path.realpath(self._folder)
        scanned = {relative: (path, stat) for relative, path, stat in files}
        linked = []
        for relative, path in links:
            try:
                target = os.path.realpath(path)
            except OSError:  # no longer a link: the next push sees what is there
                self._warn(warn, relative, f"{relative} was replaced while being recorded")
                continue
            inside = target == root or target.startswith(root + os.sep)
            found = scanned.get(target[len(root) + 1 :].replace(os.sep, "/")) if inside else None
            if found is not None:
                linked.append((relative, found[0], found[1]))
                continue
            problem = _link_problem(target, inside)
            self._warn(warn, relative, f"{relative} is a symbolic link to {target}, {problem}")
        return linked

    def _open_scanned(
        self, relative: str, path: str, stat: _Stat, warn: Warn | None
    ) -> BufferedReader | None:
        """The file the scan saw, opened; None (with a warning) when something else is there
        now: a link (not followed), or another file reached through a folder swapped for a link."""
        try:
            descriptor = os.open(path, NO_FOLLOW_READ)
        except FileNotFoundError:
            return None  # removed since the scan: nothing to record
        except OSError as error:
            self._warn(warn, relative, f"{relative} cannot be read ({error.strerror})")
            return None
        opened = os.fstat(descriptor)
        if not stat_module.S_ISREG(opened.st_mode) or (opened.st_ino, opened.st_dev) != (
            stat[2],
            stat[3],
        ):
            os.close(descriptor)
            self._warn(warn, relative, f"{relative} was replaced while being recorded")
            return None
        return open(descriptor, "rb")  # the caller closes it

    def _warn(self, warn: Warn | None, relative: str, message: str) -> None:
        if warn is not None and (relative, message) not in self._warned:
            self._warned.add((relative, message))
            warn(f"output {message}; not recorded")


def _link_problem(target: str, inside: bool) -> str:
    if not inside:
        return "outside the output folder"
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return "which leads nowhere"
    if stat_module.S_ISDIR(mode):
        return "a folder (links to folders are not followed)"
    return "not a regular file"


def _digest(local: str, size: int) -> str | None:
    """The sha256 of the regular file at `local` if it has `size` bytes; None otherwise."""
    try:
        found = os.lstat(local)
    except FileNotFoundError:
        return None
    if not stat_module.S_ISREG(found.st_mode) or found.st_size != size:
        return None  # a link in its place is replaced, never read through
    try:
        descriptor = os.open(local, NO_FOLLOW_READ)
    except OSError:
        return None
    with open(descriptor, "rb") as body:
        return hashlib.file_digest(body, "sha256").hexdigest()


def _write_beneath(folder: str, relative: str, source: Path) -> None:
    """Copy `source` to `folder/relative` without following any link on the way: each folder
    is entered with O_NOFOLLOW (a link in the way of a stored folder is replaced by the folder),
    and the file lands by a rename, which replaces a link instead of writing through it."""
    *parents, name = relative.split("/")
    directory = os.open(folder, _DIRECTORY_FLAGS)
    try:
        for part in parents:
            directory = _enter(directory, part)
        temporary = f"{_PULL_PREFIX}{secrets.token_hex(8)}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        written = os.open(temporary, flags, 0o666, dir_fd=directory)
        try:
            with open(source, "rb") as reader, open(written, "wb", closefd=False) as writer:
                while chunk := reader.read(_CHUNK):
                    writer.write(chunk)
            os.replace(temporary, name, src_dir_fd=directory, dst_dir_fd=directory)
        except BaseException:
            os.unlink(temporary, dir_fd=directory)
            raise
        finally:
            os.close(written)
    finally:
        os.close(directory)


def _enter(directory: int, part: str) -> int:
    """The folder `part` of `directory`, opened (made if missing); closes `directory`."""
    try:
        try:
            return os.open(part, _DIRECTORY_FLAGS, dir_fd=directory)
        except FileNotFoundError:
            pass
        except OSError:  # a link (ELOOP) or a file (ENOTDIR) where the store has a folder
            if not stat_module.S_ISLNK(os.lstat(part, dir_fd=directory).st_mode):
                raise
            os.unlink(part, dir_fd=directory)  # never recorded: the step's link, not an output
        os.mkdir(part, dir_fd=directory)
        return os.open(part, _DIRECTORY_FLAGS, dir_fd=directory)
    finally:
        os.close(directory)


def _make_folder(folder: str) -> None:
    try:
        os.mkdir(folder)  # the usual case: one syscall, as its parent is there already
    except FileNotFoundError:
        os.makedirs(folder, exist_ok=True)
    except FileExistsError:
        pass


def _scan_folder(folder: str) -> tuple[list[_File], list[tuple[str, str]]]:
    """The regular files and the links under `folder`."""
    files: list[_File] = []
    links: list[tuple[str, str]] = []
    try:
        root = os.open(folder, _DIRECTORY_FLAGS)
    except FileNotFoundError:
        return files, links
    try:
        _scan(root, folder, "", files, links)
    finally:
        os.close(root)
    return files, links


def _scan(
    directory: int,
    path: str,
    relative_prefix: str,
    files: list[_File],
    links: list[tuple[str, str]],
) -> None:
    """Walk by file descriptor: a sub-folder is entered with O_NOFOLLOW relative to its parent,
    so one swapped for a link after the listing is skipped, never walked. DirEntry answers
    is_dir/is_symlink/is_file from the listing; only a regular file's lstat is a system call."""
    with os.scandir(directory) as entries:
        for entry in entries:
            relative = f"{relative_prefix}{entry.name}"
            entry_path = f"{path}{os.sep}{entry.name}"
            if entry.is_symlink():
                links.append((relative, entry_path))
            elif entry.is_dir(follow_symlinks=False):
                try:
                    child = os.open(entry.name, _DIRECTORY_FLAGS, dir_fd=directory)
                except OSError:
                    continue  # removed, or swapped for a link or a file, since the listing
                try:
                    _scan(child, entry_path, f"{relative}/", files, links)
                finally:
                    os.close(child)
            elif entry.is_file(follow_symlinks=False):
                try:
                    st = entry.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue  # removed since the listing
                files.append(
                    (relative, entry_path, (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev))
                )
