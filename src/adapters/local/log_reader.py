"""LogReader over the local runner's log files: a group is a folder under the logs root, a stream
a file in it. Group and stream names come from registrations, so they are hostile input: nothing
outside the root is ever opened (no absolute path, no `..`), and no symbolic link under the root
is followed.

Opened by descriptor, never by a path walked again: the root once a read, then each part of the
group and of the stream under its parent's descriptor with O_NOFOLLOW, a file checked to be a
regular file on its own descriptor and read from it. A folder or file swapped for a link after a
check has no path left to follow: the check is the open."""

from __future__ import annotations

import codecs
import errno
import os
import stat
from collections import deque
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import BinaryIO

from adapters.local.log_page_tokens import PageTokens, Restart, TokenRefused
from adapters.object_files import NO_FOLLOW_READ
from application.ports.logs import TOKEN_REFUSED, LogEvent, LogPage, LogRead
from domain.available_logs import LogReadStatus
from domain.redaction_stream import HeldRun, StoredTextRedactor

_HIDDEN = "."  # the log store's own bookkeeping (`.order`) is no log
_READ_BYTES = 16 * 1024  # read at a time: a next page resumes at most this before its start
_PIECE_BYTES = 256 * 1024  # the most of one line given at a time: a page holds this
_FOLDER = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NO_FOLLOW_FOLDER = _FOLDER | getattr(os, "O_NOFOLLOW", 0)
_NOT_THERE = (errno.ENOENT, errno.ENOTDIR)  # a part missing, or a file where a folder would be


class _Refused(Exception):
    pass


class LocalFileLogReader:
    """Reads `<root>/<group>/<stream>` files; the execution filter keeps the execution's lines."""

    def __init__(self, root: Path, page_key: Path | None = None) -> None:
        """`page_key`: the key file that signs page tokens holding where the next page may
        start reading; without it a token is a line number, and each page reads from the start."""
        self._root = Path(root)
        self._tokens = PageTokens(page_key)

    def read(
        self,
        group: str,
        stream: str = "",
        prefix: str = "",
        execution_filter: str | None = None,
        next_token: str | None = None,
        limit: int = 100,
    ) -> LogPage:
        try:
            group_parts = _parts(group, "group")
            files = self._files(group_parts, stream, prefix)
            if files is None:
                return LogPage(LogReadStatus.NOT_FOUND, problem=f"no local log {group}/{stream}")
            with files:
                # a folder of one execution holds only its lines; any other is shared: filter.
                # By name: the run's folder is `<root>/<id>`, and no link leads to it
                shared = execution_filter and group_parts != (execution_filter,)
                kept = execution_filter if shared else None
                scope = "\0".join((group, stream, prefix, kept or ""))
                return self._read_page(files, scope, kept, next_token, limit)
        except _Refused as refused:  # a name, or a link met on the way (at any open of the read)
            return LogPage(LogReadStatus.ACCESS_DENIED, problem=str(refused))

    def read_each(self, reads: Sequence[LogRead]) -> list[LogPage]:
        """One after another: each is a few local files, no round trip to wait for."""
        return [read.made_by(self.read) for read in reads]

    def _read_page(
        self, files: _Files, scope: str, kept: str | None, next_token: str | None, limit: int
    ) -> LogPage:
        try:
            start, restart = self._tokens.resume(next_token, files, scope)
        except TokenRefused as refused:
            return LogPage(LogReadStatus.ERROR, problem=f"{TOKEN_REFUSED}{refused}")
        lines = _marked_lines(files, restart)
        try:
            page, mark = _page(lines, kept, restart, start, limit)
        finally:
            lines.close()  # its file object before the descriptor under it
        token = None if mark is None else self._tokens.issue(start + limit, mark, files, scope)
        return LogPage(
            LogReadStatus.READ if page else LogReadStatus.EMPTY,
            events=tuple(LogEvent(message=line) for line in page),
            next_token=token,
        )

    def _files(self, group: tuple[str, ...], stream: str, prefix: str) -> _Files | None:
        """The files to read, or None when the group or stream is not there."""
        stream_parts = _parts(stream, "stream") if stream else None  # every name checked first
        where = "/".join(group)
        try:
            root = os.open(self._root, _FOLDER)  # the root itself is wfx's: it may be a link
        except OSError as error:
            if error.errno in _NOT_THERE:
                return None
            raise
        folder = _descend(root, group, "group", where)
        if folder is None:
            return None
        if stream_parts is None:
            return _listed(folder, prefix, where)
        return _stream(folder, stream_parts, stream)


class _Files:
    """The files of a read, in order: their names under an open folder, each opened without
    following a link when the read reaches it; or a stream's one file, opened already. One file
    is open at a time; closing closes it and the folder."""

    def __init__(self, names: list[str], where: str, folder: int | None, file: int | None) -> None:
        self._names, self._where = names, where
        self._folder = folder
        self._file: int | None = file
        self._index = -1 if file is None else 0

    def __len__(self) -> int:
        return len(self._names)

    def opened(self, index: int) -> tuple[str, int] | None:
        """The file's name and a descriptor open on it; None when it went since it was listed
        (or is no regular file now). _Refused when a link took its place."""
        if index != self._index:
            self._close_file()
            if self._folder is not None:
                name = self._names[index]
                where = f"{self._where}/{name}" if self._where else name
                self._file = _open_file(self._folder, name, where)
                self._index = index
        return None if self._file is None else (self._names[index], self._file)

    def _close_file(self) -> None:
        if self._file is not None:
            file, self._file, self._index = self._file, None, -1
            os.close(file)

    def __enter__(self) -> _Files:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            self._close_file()
        finally:
            if self._folder is not None:
                folder, self._folder = self._folder, None
                os.close(folder)


def _parts(relative: str, field: str) -> tuple[str, ...]:
    parts = PurePosixPath(relative).parts
    if (
        not relative
        or relative.startswith(("/", "\\"))
        or "\\" in relative
        or "\0" in relative
        or ":" in relative
        or ".." in parts
    ):
        raise _Refused(f"{field} {relative!r}: must be a relative path inside the logs root")
    return parts


def _not_followed(field: str, relative: str, part: str) -> _Refused:
    return _Refused(
        f"{field} {relative!r}: {part!r} is a symbolic link, and no link under the logs root"
        " is followed"
    )


def _a_link(error: OSError, folder: int, name: str) -> bool:
    """Whether an open without following failed on a link: ELOOP for a file; a folder's open
    fails with ENOTDIR (O_DIRECTORY is checked first), so there the name is looked at."""
    if error.errno == errno.ELOOP:
        return True
    if error.errno != errno.ENOTDIR:
        return False
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _descend(folder: int, parts: Sequence[str], field: str, relative: str) -> int | None:
    """The folder `parts` names under `folder` (which it takes: closed unless it is the answer),
    each part opened without following a link; None when one is missing or no folder."""
    for part in parts:
        try:
            child = os.open(part, _NO_FOLLOW_FOLDER, dir_fd=folder)
        except OSError as error:
            if _a_link(error, folder, part):
                raise _not_followed(field, relative, part) from None
            if error.errno in _NOT_THERE:
                return None
            raise
        finally:
            os.close(folder)
        folder = child
    return folder


def _open_file(folder: int, name: str, relative: str) -> int | None:
    """`name` under `folder` opened without following a link, if it is a regular file (checked
    on the descriptor: a FIFO or folder swapped in is no file); None when it is not there."""
    try:
        file = os.open(name, NO_FOLLOW_READ, dir_fd=folder)
    except OSError as error:
        if _a_link(error, folder, name):
            raise _not_followed("stream", relative, name) from None
        if error.errno in (*_NOT_THERE, errno.ENXIO):  # ENXIO: a socket
            return None
        raise
    regular = False
    try:
        regular = stat.S_ISREG(os.fstat(file).st_mode)
    finally:
        if not regular:  # no file, or the fstat failed: closed here, as nothing else holds it
            os.close(file)
    return file if regular else None


def _stream(folder: int, parts: tuple[str, ...], stream: str) -> _Files | None:
    """The stream's one file, opened now (it takes `folder`); None when it is not there."""
    if not parts:  # the group itself (".")
        os.close(folder)
        return None
    inner = _descend(folder, parts[:-1], "stream", stream)
    if inner is None:
        return None
    try:
        file = _open_file(inner, parts[-1], stream)
    finally:
        os.close(inner)
    return None if file is None else _Files([parts[-1]], stream, None, file)


def _listed(folder: int, prefix: str, where: str) -> _Files:
    """The group's files (not its folders, nor the hidden ones) by name, in order; a link among
    them refuses the read (it takes `folder`)."""
    names = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                name = entry.name
                if name.startswith(_HIDDEN) or not name.startswith(prefix):
                    continue
                if entry.is_symlink():
                    raise _not_followed("stream", f"{where}/{name}" if where else name, name)
                if entry.is_file(follow_symlinks=False):
                    names.append(name)
    except BaseException:
        os.close(folder)
        raise
    return _Files(sorted(names), where, folder, None)


def _page(
    items: Iterator[str | Restart], kept: str | None, restart: Restart, start: int, limit: int
) -> tuple[list[str], Restart | None]:
    """Lines start to start + limit of those holding `kept` (all when None), read from
    `restart` up to the one after the page, never further; and, when a line follows, the last
    restart point at or before it (where the next page may read from)."""
    page: list[str] = []
    index, mark = restart.line, restart
    end = start + limit
    for item in items:
        if isinstance(item, Restart):
            mark = Restart(item.file, item.offset, index)
            continue
        if kept is not None and kept not in item:
            continue
        if index == end:
            return page, mark
        if index >= start:
            page.append(item)
        index += 1
    return page, None


def _marked_lines(files: _Files, restart: Restart) -> Generator[str | Restart, None, None]:
    """The redacted lines of the files from `restart` on, and each restart point (its line left
    for the caller to count): before a piece read where the redactor holds nothing, or, where
    it holds back only body-looking lines, once those are given out (StoredTextRedactor's
    restart_wait).

    Redacted from a restart point, as the whole would be: a page lying inside a key block would
    look like any other text. wfx's own step logs are redacted already; registered files may not
    be. Only a piece, a line and a cut-off key body are held at a time."""
    for number in range(restart.file, len(files)):
        opened = files.opened(number)
        if opened is None:
            continue  # gone since the folder was listed: nothing of it to show
        offset = restart.offset if number == restart.file else 0
        # the descriptor is the files' to close: this reads it, from where it stands or after
        with open(opened[1], "rb", closefd=False) as file:
            file.seek(offset)
            yield from _file_marked_lines(file, number, offset)


def _file_marked_lines(file: BinaryIO, number: int, offset: int) -> Iterator[str | Restart]:
    redactor = StoredTextRedactor()
    # restart points waiting for the lines held there: (lines given out by then, run, offset)
    waiting: deque[tuple[int, HeldRun, int]] = deque()
    given = 0
    line_start: int | None = offset  # where the next piece starts, if a line starts there
    for text, after in _pieces(file, offset):
        held = None if line_start is None else redactor.restart_wait()
        if held is not None and line_start is not None:
            waiting.append((given + held.lines, held, line_start))
        for line in redactor.feed(text).splitlines():
            yield from _due(waiting, given, redactor, number)
            yield line
            given += 1
        yield from _due(waiting, given, redactor, number)
        line_start = after
    for line in redactor.close().splitlines():
        yield from _due(waiting, given, redactor, number)
        yield line
        given += 1


def _due(
    waiting: deque[tuple[int, HeldRun, int]], given: int, redactor: StoredTextRedactor, number: int
) -> Iterator[Restart]:
    """The waiting restart points whose held lines have all been given out, in order; one whose
    held lines an END removed is none."""
    while waiting:
        due, held, line_start = waiting[0]
        removed = redactor.removed(held)
        if due > given and not removed:
            return
        waiting.popleft()
        if due == given and not removed:
            yield Restart(number, line_start)


def _pieces(file: BinaryIO, offset: int) -> Iterator[tuple[str, int | None]]:
    """The text from `offset` on, a piece at a time, as a text-mode read gives it (UTF-8,
    errors replaced, universal newlines), each with the byte offset after it when it ends a
    line there (None when it ends inside one: no restart point is after it).

    A piece is the whole lines of a read of _READ_BYTES: a restart point can only be between
    two, so a next page reads at most that much before it, and at most that much past it."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    carried = b""
    while True:
        read = file.read(_READ_BYTES)
        data = carried + read if carried else read
        if not read:
            text = decoder.decode(data, final=True)
            if text:
                yield _newlines(text), None
            return
        cut = data.rfind(b"\n") + 1
        ended = cut > 0
        if not ended and len(data) >= _PIECE_BYTES:  # a line this long is given in parts
            cut = len(data) - 1 if data.endswith(b"\r") else len(data)  # a \r\n stays whole
        if cut:
            offset += cut
            yield _newlines(decoder.decode(data[:cut])), offset if ended else None
        carried = data[cut:]


def _newlines(text: str) -> str:
    # what a text-mode read makes of line ends: none of these pieces ends in a \r of a \r\n
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text
