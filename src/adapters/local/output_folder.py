"""The run's shared output folder, mirrored to the object store under the run's output prefix."""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

from application.ports import ObjectStore, StoredObject

# File times on Linux advance in clock ticks (up to 10 ms): a file changed within a tick of our
# last look could keep its size and mtime, so only a stat older than this is trusted ("racy git").
_SETTLE_NS = 25_000_000

_Stat = tuple[int, int, int]  # size, mtime_ns, inode


class OutputFolder:
    """Brings stored outputs down before a run and uploads new or changed files after each step."""

    def __init__(self, objects: ObjectStore, folder: str, prefix: str) -> None:
        self._objects = objects
        self._folder = folder  # a str: paths are built per step, and pathlib costs microseconds
        self._prefix = prefix
        self._stored: dict[str, str] = {}  # relative path -> etag of the latest stored version
        self._settled: dict[str, tuple[_Stat, str]] = {}  # relative path -> (stat, sha256)

    @property
    def path(self) -> str:
        return self._folder

    def pull(self) -> None:
        """Create the folder and bring down stored outputs it lacks or holds another version of
        (a redrive in a new process, or after another machine ran the run)."""
        _make_folder(self._folder)
        for stored in self._objects.list_latest(self._prefix):
            relative = stored.key[len(self._prefix) :]
            self._stored[relative] = stored.etag
            local = Path(self._folder, relative)
            if _holds(local, stored):
                continue
            local.parent.mkdir(parents=True, exist_ok=True)
            # every step's outputs were pushed, so the store's version is the newest there is
            shutil.copyfile(self._objects.local_path(stored.key, stored.version_id), local)

    def push(self) -> list[StoredObject]:
        """Upload every file whose content differs from the latest stored version of its key."""
        trusted_before = time.time_ns() - _SETTLE_NS
        uploaded = []
        for relative, path, stat in sorted(_files(self._folder, "")):
            settled = self._settled.get(relative)
            if settled is not None and settled[0] == stat:
                etag = settled[1]
            else:
                etag = _sha256(path)
                if stat[1] < trusted_before:
                    self._settled[relative] = (stat, etag)
            if self._stored.get(relative) == etag:
                continue
            stored = self._objects.put_file(f"{self._prefix}{relative}", Path(path))
            self._stored[relative] = stored.etag
            uploaded.append(stored)
        return uploaded


def _holds(local: Path, stored: StoredObject) -> bool:
    try:
        if local.stat().st_size != stored.size:
            return False
    except FileNotFoundError:
        return False
    return _sha256(str(local)) == stored.etag


def _make_folder(folder: str) -> None:
    try:
        os.mkdir(folder)  # the usual case: one syscall, as its parent is there already
    except FileNotFoundError:
        os.makedirs(folder, exist_ok=True)
    except FileExistsError:
        pass


def _files(folder: str, relative_prefix: str) -> list[tuple[str, str, _Stat]]:
    found: list[tuple[str, str, _Stat]] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                relative = f"{relative_prefix}{entry.name}"
                if entry.is_dir(follow_symlinks=False):
                    found.extend(_files(entry.path, f"{relative}/"))
                elif entry.is_file():
                    st = entry.stat()
                    found.append((relative, entry.path, (st.st_size, st.st_mtime_ns, st.st_ino)))
    except FileNotFoundError:
        pass
    return found


def _sha256(path: str) -> str:
    with open(path, "rb") as body:
        return hashlib.file_digest(body, "sha256").hexdigest()
