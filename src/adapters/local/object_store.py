"""A versioned object store on the local filesystem (the S3 bucket of a laptop run)."""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import threading
import time
from collections.abc import Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import BinaryIO

from adapters.local.removal import remove_tree
from adapters.object_files import (
    base_name,
    check_head_size,
    check_key,
    check_prefix,
    head_or_none,
    put_file_with,
)
from application.ports.files import HeadRequest, StoredObject
from domain.assets import VERSIONS_SUFFIX
from domain.bounds import is_whole_number

_TEMP_PREFIX = ".tmp-"
_CHUNK = 1 << 20
_NS_DIGITS = 20  # zero-padded so that version ids sort as text in write order


class _VersionClock:
    """Strictly increasing nanosecond stamps within a process, so same-key writes never tie."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last = 0

    def next(self) -> int:
        with self._lock:
            self._last = max(time.time_ns(), self._last + 1)
            return self._last


_clock = _VersionClock()


def _new_version_id() -> str:
    return f"{_clock.next():0{_NS_DIGITS}d}-{secrets.token_hex(4)}"


def _check_version_id(version_id: str) -> None:
    if not version_id or "/" in version_id or "_" in version_id or version_id.startswith("."):
        raise FileNotFoundError(f"version {version_id!r}: not a version id of this store")


class FilesystemObjectStore:
    """Every write of a key adds a version; old versions stay readable.

    Layout: key `a/b/c.obj` lives in the directory `<root>/a/b/c.obj.versions/`, one directory per
    version named `<versionId>_<size>_<sha256>` holding the body under the key's own file name.
    A key may therefore be a prefix of another key (`a/b` and `a/b/c`), a reader is handed a file
    whose name is the key's base name, and listing never re-reads a body. A version directory
    appears by one atomic rename, so a reader never sees half a body.
    """

    def __init__(self, root: Path, bucket: str = "wfx-local") -> None:
        self._root = Path(root)
        self._bucket = bucket

    @property
    def bucket(self) -> str:
        return self._bucket

    @property
    def root(self) -> Path:
        return self._root

    def put_bytes(self, key: str, body: bytes) -> StoredObject:
        check_key(key)
        staging = self._staging_dir(key)
        with open(os.path.join(staging, base_name(key)), "wb") as writer:
            writer.write(body)
        return self._commit(key, staging, len(body), hashlib.sha256(body).hexdigest())

    def put_file(self, key: str, source: Path | BinaryIO) -> StoredObject:
        check_key(key)
        return put_file_with(
            source, lambda reader: self._put_body(key, iter(partial(reader.read, _CHUNK), b""))
        )

    def put_stream(self, key: str, chunks: Iterable[bytes]) -> StoredObject:
        check_key(key)
        return self._put_body(key, chunks)

    def _put_body(self, key: str, chunks: Iterable[bytes]) -> StoredObject:
        staging = self._staging_dir(key)
        digest = hashlib.sha256()
        size = 0
        try:
            with open(os.path.join(staging, base_name(key)), "wb") as writer:
                for chunk in chunks:
                    digest.update(chunk)
                    writer.write(chunk)
                    size += len(chunk)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return self._commit(key, staging, size, digest.hexdigest())

    def local_path(self, key: str, version_id: str) -> Path:
        check_key(key)
        _check_version_id(version_id)
        marker = f"{version_id}_"
        try:
            with os.scandir(self._versions_dir(key)) as entries:
                for entry in entries:
                    if entry.name.startswith(marker):
                        return Path(entry.path) / base_name(key)
        except FileNotFoundError:
            pass
        raise FileNotFoundError(f"object {key!r} has no version {version_id!r}")

    def read_bytes(self, key: str, version_id: str | None = None) -> bytes:
        if version_id is None:
            check_key(key)
            stored = self.versions(key)
            if not stored:
                raise FileNotFoundError(f"object {key!r}: no version stored")
            version_id = stored[-1].version_id
        return self.local_path(key, version_id).read_bytes()

    def read_head(self, key: str, version_id: str, size: int) -> bytes:
        check_head_size(size)  # a read of -1 would be the whole file
        with self.local_path(key, version_id).open("rb") as body:
            return body.read(size)

    def read_heads(self, requests: Sequence[HeadRequest]) -> list[bytes | None]:
        # files on this host: no round trip to overlap
        return [head_or_none(self.read_head, request) for request in requests]

    def versions(self, key: str) -> list[StoredObject]:
        """Every stored version of the key, oldest first ([] for an unknown key)."""
        check_key(key)
        return sorted(_versions_in(self._versions_dir(key), key), key=lambda o: o.version_id)

    def list_latest(self, prefix: str) -> list[StoredObject]:
        head, _, name_start = prefix.rpartition("/")
        if head and any(part in ("", ".", "..") for part in head.split("/")):
            return []  # no stored key has such a segment
        start = os.path.join(self._root, head) if head else str(self._root)
        found: list[StoredObject] = []
        _collect_latest(start, f"{head}/" if head else "", name_start, found)
        return sorted((o for o in found if o.key.startswith(prefix)), key=lambda o: o.key)

    def delete_prefix(self, prefix: str) -> int:
        """Remove every version of every key under the prefix; the number of keys removed.

        Folders left empty are removed too, up to the root. A key written while this runs may
        survive it (as on S3, where a delete of a prefix is a list and then deletes)."""
        check_prefix(prefix)
        head, _, name_start = prefix.rpartition("/")
        if head and any(part in ("", ".", "..") for part in head.split("/")):
            return 0  # no stored key has such a segment
        folder = self._root / head if head else self._root
        removed = 0
        for name, path in _entries_starting(folder, name_start):
            if name.endswith(VERSIONS_SUFFIX):
                key = f"{head}/{name}" if head else name
                if not key[: -len(VERSIONS_SUFFIX)].startswith(prefix):
                    continue  # `a/b.v` is a prefix of the folder `a/b.versions`, not of key `a/b`
                removed += 1
            else:  # every key below a folder whose name starts the prefix is under it
                removed += len(_collect_keys(path))
            remove_tree(path)
        self._prune(folder)
        return removed

    def _prune(self, folder: Path) -> None:
        """Remove `folder` and its parents while they are empty, never the root itself."""
        root = self._root
        while folder != root and root in folder.parents:
            try:
                folder.rmdir()
            except OSError:  # not empty (or gone already: its parent may still be empty)
                if folder.exists():
                    return
            folder = folder.parent

    # plain strings and os calls on the write path: pathlib's parsing was most of the Python
    # time of importing many small files (four paths a file)
    def _versions_dir(self, key: str) -> str:
        return os.path.join(self._root, f"{key}{VERSIONS_SUFFIX}")

    def _staging_dir(self, key: str) -> str:
        versions = self._versions_dir(key)
        os.makedirs(versions, exist_ok=True)
        staging = os.path.join(versions, f"{_TEMP_PREFIX}{secrets.token_hex(8)}")
        os.mkdir(staging)
        return staging

    def _commit(self, key: str, staging: str, size: int, etag: str) -> StoredObject:
        version_id = _new_version_id()
        try:
            # read-only: a step handed this file as an input must not rewrite a stored version
            os.chmod(os.path.join(staging, base_name(key)), 0o444)
            os.replace(
                staging, os.path.join(self._versions_dir(key), f"{version_id}_{size}_{etag}")
            )
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return StoredObject(key=key, version_id=version_id, size=size, etag=etag)


def _parse_version(key: str, name: str) -> StoredObject | None:
    parts = name.split("_")
    if len(parts) != 3 or name.startswith("."):
        return None
    version_id, size, etag = parts
    if not is_whole_number(size):
        return None
    return StoredObject(key=key, version_id=version_id, size=int(size), etag=etag)


def _version_names(versions: str) -> list[str]:
    try:
        with os.scandir(versions) as entries:
            return [entry.name for entry in entries if not entry.name.startswith(".")]
    except (FileNotFoundError, NotADirectoryError):
        return []


def _versions_in(versions: str, key: str) -> list[StoredObject]:
    parsed = (_parse_version(key, name) for name in _version_names(versions))
    return [stored for stored in parsed if stored is not None]


def _entries_starting(folder: Path, name_start: str) -> list[tuple[str, Path]]:
    """The folders directly in `folder` whose name starts `name_start` (links are not entered)."""
    try:
        with os.scandir(folder) as entries:
            return [
                (entry.name, Path(entry.path))
                for entry in entries
                if entry.name.startswith(name_start) and entry.is_dir(follow_symlinks=False)
            ]
    except (FileNotFoundError, NotADirectoryError):
        return []


def _collect_keys(folder: Path) -> list[str]:
    """The `.versions` folders at any depth under `folder`: one per key."""
    keys: list[str] = []
    for name, path in _entries_starting(folder, ""):
        if name.endswith(VERSIONS_SUFFIX):
            keys.append(name)
        else:
            keys.extend(_collect_keys(path))
    return keys


def _collect_latest(
    folder: str, key_prefix: str, name_start: str, found: list[StoredObject]
) -> None:
    """Walk `folder` (keys under `key_prefix`), entering entries whose name starts `name_start`."""
    # plain strings and os.scandir: this runs after every step of a local run
    try:
        with os.scandir(folder) as entries:
            children = [
                (entry.name, entry.path)
                for entry in entries
                if entry.name.startswith(name_start) and entry.is_dir(follow_symlinks=False)
            ]
    except (FileNotFoundError, NotADirectoryError):
        return
    for name, path in children:
        if not name.endswith(VERSIONS_SUFFIX):
            _collect_latest(path, f"{key_prefix}{name}/", "", found)
            continue
        key = f"{key_prefix}{name[: -len(VERSIONS_SUFFIX)]}"
        # version ids sort in write order, and a version's name starts with its id
        for version_name in sorted(_version_names(path), reverse=True):
            latest = _parse_version(key, version_name)
            if latest is not None:
                found.append(latest)
                break
