"""Is a file a SQLite database wfx may open? Read from its 100-byte header, without SQLite.

Opening a file that is not a database with SQLite is not harmless: `PRAGMA journal_mode=WAL`
may rewrite the header of a damaged one, and a write may land in pages that survived a
truncation. So the header is checked first (https://www.sqlite.org/fileformat.html#the_database_header).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

_MAGIC = b"SQLite format 3\x00"
_HEADER_SIZE = 100
# Maximum and minimum embedded payload fractions and the leaf payload fraction: always 64/32/32.
_PAYLOAD_FRACTIONS = b"\x40\x20\x20"
_READ = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def sqlite_file_problem(path: Path) -> str | None:
    """Why `path` is not a SQLite database, or None: a database, an empty file (SQLite's empty
    database) or no file at all (one is created)."""
    try:
        descriptor = os.open(path, _READ)  # O_NONBLOCK: a FIFO must not hang the command
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"cannot be read ({error.strerror})"
    try:
        found = os.fstat(descriptor)
        if stat.S_ISDIR(found.st_mode):
            return "is a folder, not a database file"
        if not stat.S_ISREG(found.st_mode):
            return "is not a regular file"
        header = os.pread(descriptor, _HEADER_SIZE, 0)
    finally:
        os.close(descriptor)
    if found.st_size == 0:
        return None
    if not header.startswith(_MAGIC):
        return "is not a SQLite database"
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if (
        len(header) < _HEADER_SIZE
        or not 512 <= page_size <= 65536
        or page_size & (page_size - 1)
        or header[21:24] != _PAYLOAD_FRACTIONS
    ):
        return "is corrupted (its header is damaged)"
    return _truncation(path, found.st_size, page_size, header)


def _truncation(path: Path, size: int, page_size: int, header: bytes) -> str | None:
    # A -wal or -journal file beside it means a writer is active or crashed mid-write: the file
    # alone may then be short or ragged until SQLite replays it, so only a file at rest is sized.
    if any(path.with_name(f"{path.name}{suffix}").exists() for suffix in ("-wal", "-journal")):
        return None
    if size % page_size:
        return f"is corrupted ({size} bytes is not a whole number of {page_size}-byte pages)"
    # the page count in the header is valid only when its version number matches the counter
    if header[24:28] == header[92:96]:
        pages = int.from_bytes(header[28:32], "big")
        if pages * page_size > size:
            held = size // page_size
            return f"is corrupted (its header counts {pages} pages, the file holds {held})"
    return None
