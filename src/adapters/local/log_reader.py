"""LogReader over the local runner's log files: a group is a folder under the logs root, a stream
a file in it. Group and stream names come from registrations, so they are hostile input: nothing
outside the root is ever opened (no absolute path, no `..`, no symlink leading out)."""

from __future__ import annotations

import codecs
from collections import deque
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from adapters.local.log_page_tokens import PageTokens, Restart, TokenRefused
from application.ports.logs import TOKEN_REFUSED, LogEvent, LogPage, LogRead
from domain.available_logs import LogReadStatus
from domain.redaction_stream import HeldRun, StoredTextRedactor

_HIDDEN = "."  # the log store's own bookkeeping (`.order`) is no log
_READ_BYTES = 16 * 1024  # read at a time: a next page resumes at most this before its start
_PIECE_BYTES = 256 * 1024  # the most of one line given at a time: a page holds this


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
            folder = self._inside(group, "group")
            files = self._files(folder, stream, prefix)
        except _Refused as refused:
            return LogPage(LogReadStatus.ACCESS_DENIED, problem=str(refused))
        if files is None:
            return LogPage(LogReadStatus.NOT_FOUND, problem=f"no local log {group}/{stream}")
        # a folder of one execution holds only its lines; any other is shared, so filter
        shared = execution_filter and not self._execution_folder(folder, execution_filter)
        kept = execution_filter if shared else None
        scope = "\0".join((group, stream, prefix, kept or ""))
        try:
            start, restart = self._tokens.resume(next_token, files, scope)
        except TokenRefused as refused:
            return LogPage(LogReadStatus.ERROR, problem=f"{TOKEN_REFUSED}{refused}")
        page, mark = _page(_marked_lines(files, restart), kept, restart, start, limit)
        token = None if mark is None else self._tokens.issue(start + limit, mark, files, scope)
        return LogPage(
            LogReadStatus.READ if page else LogReadStatus.EMPTY,
            events=tuple(LogEvent(message=line) for line in page),
            next_token=token,
        )

    def read_each(self, reads: Sequence[LogRead]) -> list[LogPage]:
        """One after another: each is a few local files, no round trip to wait for."""
        return [read.made_by(self.read) for read in reads]

    def _inside(self, relative: str, field: str, base: Path | None = None) -> Path:
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
        path = (base or self._root) / relative
        resolved, root = path.resolve(), self._root.resolve()
        if resolved != root and not resolved.is_relative_to(root):
            raise _Refused(f"{field} {relative!r}: leads out of the logs root")
        return path

    def _files(self, folder: Path, stream: str, prefix: str) -> list[Path] | None:
        if not folder.is_dir():
            return None
        if stream:
            path = self._inside(stream, "stream", base=folder)
            return [path] if path.is_file() else None
        found = []
        for path in sorted(folder.iterdir()):
            if path.name.startswith(_HIDDEN) or not path.name.startswith(prefix):
                continue
            if path.is_file():
                self._inside(str(path.relative_to(self._root).as_posix()), "stream")
                found.append(path)
        return found

    def _execution_folder(self, folder: Path, workflow_execution_id: str) -> bool:
        return folder.resolve() == (self._root / workflow_execution_id).resolve()


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


def _marked_lines(files: list[Path], restart: Restart) -> Iterator[str | Restart]:
    """The redacted lines of the files from `restart` on, and each restart point (its line left
    for the caller to count): before a piece read where the redactor holds nothing, or, where
    it holds back only body-looking lines, once those are given out (StoredTextRedactor's
    restart_wait).

    Redacted from a restart point, as the whole would be: a page lying inside a key block would
    look like any other text. wfx's own step logs are redacted already; registered files may not
    be. Only a piece, a line and a cut-off key body are held at a time."""
    for number in range(restart.file, len(files)):
        offset = restart.offset if number == restart.file else 0
        with open(files[number], "rb") as file:
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
