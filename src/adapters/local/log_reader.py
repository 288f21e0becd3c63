"""LogReader over the local runner's log files: a group is a folder under the logs root, a stream
a file in it. Group and stream names come from registrations, so they are hostile input: nothing
outside the root is ever opened (no absolute path, no `..`, no symlink leading out)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path, PurePosixPath

from application.ports.logs import LogEvent, LogPage
from domain.available_logs import LogReadStatus
from domain.bounds import is_whole_number
from domain.redaction import redacted_lines

_HIDDEN = "."  # the log store's own bookkeeping (`.order`) is no log
_PIECE_CHARACTERS = 256 * 1024  # read at a time: a page holds this, not the file


class _Refused(Exception):
    pass


class LocalFileLogReader:
    """Reads `<root>/<group>/<stream>` files; the execution filter keeps the execution's lines."""

    def __init__(self, root: Path) -> None:
        self._root = Path(root)

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
        start = _offset(next_token)
        if start is None:
            return LogPage(LogReadStatus.ERROR, problem=f"next token {next_token!r}: not ours")
        # a folder of one execution holds only its lines; any other is shared, so filter
        shared = execution_filter and not self._execution_folder(folder, execution_filter)
        page, more = _page(_lines(files), execution_filter if shared else None, start, limit)
        return LogPage(
            LogReadStatus.READ if page else LogReadStatus.EMPTY,
            events=tuple(LogEvent(message=line) for line in page),
            next_token=str(start + limit) if more else None,
        )

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


def _offset(token: str | None) -> int | None:
    if token is None:
        return 0
    # ASCII only: str.isdigit() holds for "²", which int() refuses, and for other scripts' digits
    return int(token) if is_whole_number(token) else None


def _page(lines: Iterator[str], kept: str | None, start: int, limit: int) -> tuple[list[str], bool]:
    """Lines start to start + limit of those holding `kept` (all when None), and whether any
    follows: read up to the one after the page, never further."""
    page: list[str] = []
    index = 0
    for line in lines:
        if kept is not None and kept not in line:
            continue
        if index == start + limit:
            return page, True
        if index >= start:
            page.append(line)
        index += 1
    return page, False


def _lines(files: list[Path]) -> Iterator[str]:
    # Redacted from its start up to the page, as it would be whole: a page lying inside a key
    # block would look like any other text. wfx's own step logs are redacted already; registered
    # files may not be. Only a piece, a line and a cut-off key body are held at a time.
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as file:
            yield from redacted_lines(iter(partial(file.read, _PIECE_CHARACTERS), ""))
