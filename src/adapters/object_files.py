"""Rules both object stores share: which keys are valid, and how a file to store is opened."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, TypeVar

from application.ports.files import HeadRequest
from domain.assets import object_key_problem

T = TypeVar("T")

# Reading without following a link in the last part of the path; O_NONBLOCK: opening a FIFO
# would otherwise wait for a writer (regular files ignore it).
NO_FOLLOW_READ = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


def check_key(key: str) -> None:
    """ValueError for a key that neither store can keep."""
    problem = object_key_problem(key)
    if problem is not None:
        raise ValueError(f"object key {key!r}: {problem}")


def check_head_size(size: int) -> None:
    if size < 0:
        raise ValueError(f"size: must be at least 0, not {size}")


def head_or_none(read_head: Callable[[str, str, int], bytes], request: HeadRequest) -> bytes | None:
    """`read_heads`' answer to one request: None for a version neither store could hand out."""
    try:
        return read_head(request.key, request.version_id, request.size)
    except (FileNotFoundError, ValueError):
        return None


def check_prefix(prefix: str) -> None:
    if not prefix:
        raise ValueError("prefix: must not be empty (it would delete every object)")


def base_name(key: str) -> str:
    return key.rpartition("/")[2]


def open_regular_file(path: Path) -> BinaryIO:
    """`path` opened for reading if it is a regular file and not a link: checked on the open
    file, so a link or FIFO swapped in after a caller's own check is refused, not followed."""
    descriptor = os.open(path, NO_FOLLOW_READ)
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    return open(descriptor, "rb")


def put_file_with(source: Path | BinaryIO, put: Callable[[BinaryIO], T]) -> T:
    """`put` reading a regular file (ObjectStore.put_file): a path opened without following a
    link in its last part (OSError: ELOOP for a link, EINVAL for a FIFO or a device); an open
    file read from where it stands."""
    if isinstance(source, Path):
        with open_regular_file(source) as reader:
            return put(reader)
    return put(source)
