"""A secret file under WFX_HOME written once, whole and 0600, by whichever process is first."""

from __future__ import annotations

import errno
import os
import secrets
import stat
import tempfile
from pathlib import Path

from domain.errors import InvalidInputError


def create_once(path: Path, content: bytes) -> bool:
    """Put `content` at `path` unless a file is there already; False when another process made
    it first (its content is then the one to use)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # mkstemp makes the file 0600 and only ours; it is whole before anyone can see it at `path`
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(content)
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(temporary, path)  # never replaces: the first link wins
        except FileExistsError:
            return False
    finally:
        os.unlink(temporary)
    return True


def open_own(path: Path, what: str, use: str) -> int:
    """A descriptor on the file at `path` itself, never on where a link there leads: a key
    read through a link is a key from anywhere, its mode checked there. Opened without waiting
    (a FIFO there would hold the open until something wrote to it) and refused unless it is a
    regular file."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        if error.errno != errno.ELOOP:
            raise
        raise InvalidInputError(
            f"the {what} {path} is a symbolic link; wfx {use} a file of its own in WFX_HOME: "
            "put the key file there in its place, or delete the link to have one made"
        ) from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise InvalidInputError(
            f"the {what} {path} is not a file; delete what is there to have one made"
        )
    return descriptor


def read_key(path: Path, what: str, use: str, size: int) -> bytes:
    """The `size`-byte key of the file at `path` (opened by open_own), refused when other users
    may read it or when it is not a key of that size; `what` names it, `use` what it does."""
    with open(open_own(path, what, use), "rb") as file:
        mode = os.fstat(file.fileno()).st_mode
        key = file.read(size + 1)
    if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise InvalidInputError(
            f"{path}: the {what} is open to other users (mode {stat.S_IMODE(mode):04o}); "
            "`chmod 600` it, or delete it to have a new one made"
        )
    if len(key) != size:
        raise InvalidInputError(
            f"{path}: not a {what} ({len(key)} bytes); delete it to have one made"
        )
    return key


def create_key(path: Path, what: str, use: str, size: int) -> bytes:
    """A new random key at `path`, or the key another process made there first."""
    key = secrets.token_bytes(size)
    return key if create_once(path, key) else read_key(path, what, use, size)
