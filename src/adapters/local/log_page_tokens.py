"""Page tokens of local log files: the line a page starts at, and a restart point at or before
it (a byte offset where the streaming redactor held nothing), so a deep page, or a follower's
next poll, reads from there instead of from the file's start.

Reading from a place the redactor has not reached from a restart point could print the body of
a key block, so a restart point is taken only from a token this log's pages gave: its fields are
signed (HMAC-SHA256 under a key file in WFX_HOME). A token that fails the check is refused;
one whose file changed since (another file, other bytes before the offset) reads from the start,
as a line-number token does. Without a key file, tokens are line numbers.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from adapters.secret_files import create_key, read_key
from domain.bounds import is_whole_number
from domain.errors import InvalidInputError

_KEY_BYTES = 32
_WINDOW_BYTES = 64  # the bytes before a restart point that its token's fingerprint holds
_FINGERPRINT_CHARACTERS = 16
_SIGNATURE_CHARACTERS = 32
_MOST_DIGITS = 19  # a line, a file's index, an offset: within 64 bits
_FIELDS = 6


class TokenRefused(Exception):
    """The token is not one these pages gave; the message says why, naming no secret."""


@dataclass(frozen=True)
class Restart:
    """A restart point: the index of a file in the read's list, the byte offset in it of a line
    start where the redactor held nothing, and how many lines (of those kept) came before."""

    file: int
    offset: int
    line: int = 0


START = Restart(0, 0, 0)


class LogFiles(Protocol):
    """The files a read reads, in order: how many, and one's name with a descriptor open on it
    (None when it is gone), so that a token binds the file the read opened, not a path."""

    def __len__(self) -> int: ...

    def opened(self, index: int) -> tuple[str, int] | None: ...


class PageTokens:
    """Issues and checks page tokens under the key in `key_file` (made, 0600, on first issue)."""

    def __init__(self, key_file: Path | None) -> None:
        self._path = key_file
        self._key: bytes | None = None

    def issue(self, line: int, restart: Restart, files: LogFiles, scope: str) -> str:
        """The token of the page starting at `line`, which may be read from `restart`."""
        key = self._secret(create=True)
        if key is None:
            return str(line)
        fingerprint = _fingerprint(files.opened(restart.file), restart.offset)
        if fingerprint is None:  # the file went or changed while read: a line number will do
            return str(line)
        body = f"{line}.{restart.line}.{restart.file}.{restart.offset}.{fingerprint}"
        return f"{body}.{_sign(key, scope, body)}"

    def resume(self, token: str | None, files: LogFiles, scope: str) -> tuple[int, Restart]:
        """The line the token's page starts at and where to read it from."""
        if token is None:
            return 0, START
        fields = token.split(".")
        numbers = [int(field) for field in fields[:4] if _number(field)]
        if len(fields) == 1 and len(numbers) == 1:
            return numbers[0], START  # a line number, as tokens were: read from the start
        if len(fields) != _FIELDS or len(numbers) != 4 or numbers[1] > numbers[0]:
            raise TokenRefused("not a token of these pages (garbled)")
        key = self._secret(create=False)
        body, signature = token.rsplit(".", 1)
        if key is None or not hmac.compare_digest(
            _sign(key, scope, body).encode(), signature.encode("utf-8", "replace")
        ):
            raise TokenRefused("not a token of this log's pages (from another log, or altered)")
        line, restart = numbers[0], Restart(numbers[2], numbers[3], numbers[1])
        if (
            restart.file >= len(files)
            or _fingerprint(files.opened(restart.file), restart.offset) != fields[4]
        ):
            return line, START  # the file changed since: read it from its start
        return line, restart

    def _secret(self, create: bool) -> bytes | None:
        if self._path is None:
            return None
        if self._key is None:
            try:
                self._key = _read_key(self._path)
            except FileNotFoundError:
                if create:
                    self._key = _create_key(self._path)
            except (OSError, InvalidInputError):
                return None  # a key wfx cannot use: tokens are line numbers
        return self._key


def _number(field: str) -> bool:
    return is_whole_number(field) and len(field) <= _MOST_DIGITS


def _sign(key: bytes, scope: str, body: str) -> str:
    message = f"{scope}\0{body}".encode("utf-8", "surrogatepass")
    return hmac.digest(key, message, "sha256").hex()[:_SIGNATURE_CHARACTERS]


def _fingerprint(opened: tuple[str, int] | None, offset: int) -> str | None:
    """What a restart point's token knows of its file: its name, the file itself (device, inode)
    and the bytes just before the offset, which must end a line. None when they cannot be read.
    Read with pread: the descriptor is the one the read reads, and this moves no place in it."""
    if opened is None:
        return None
    name, file = opened
    try:
        status = os.fstat(file)
        before = min(offset, _WINDOW_BYTES)
        window = os.pread(file, before, offset - before)
    except (OSError, OverflowError):  # OverflowError: an offset past what a file can hold
        return None
    if len(window) != before or (offset and not window.endswith(b"\n")):
        return None
    digest = hashlib.blake2b(digest_size=_FINGERPRINT_CHARACTERS // 2)
    digest.update(f"{name}\0{status.st_dev}\0{status.st_ino}\0".encode("utf-8", "replace"))
    digest.update(window)
    return digest.hexdigest()


def _read_key(path: Path) -> bytes:
    return read_key(path, "log page key", "signs log page tokens only with", _KEY_BYTES)


def _create_key(path: Path) -> bytes | None:
    try:
        return create_key(path, "log page key", "signs log page tokens only with", _KEY_BYTES)
    except (OSError, InvalidInputError):
        return None
