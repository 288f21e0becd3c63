"""Rules both object stores share: which keys are valid, and how a file to store is opened."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

from domain.assets import VERSIONS_SUFFIX

# Reading without following a link in the last part of the path; O_NONBLOCK: opening a FIFO
# would otherwise wait for a writer (regular files ignore it).
NO_FOLLOW_READ = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


def check_key(key: str) -> None:
    """ValueError for a key that cannot be a relative path. The S3 store keeps the same rules,
    so a key written to one store can always be written to the other."""
    parts = key.split("/")
    if not key or "\x00" in key or any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"object key {key!r}: segments must be non-empty and not '.' or '..'")
    if any(part.endswith(VERSIONS_SUFFIX) for part in parts[:-1]):
        # keeps the filesystem layout unambiguous: a `.versions` folder holds versions, never keys
        raise ValueError(f"object key {key!r}: a folder must not end in {VERSIONS_SUFFIX!r}")


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
