"""The export file: JSON Lines, one document a line, a run's lines together, its main row last.

    {"format": "wfx-export", "version": 1}                                   the first line
    {"run": ID, "table": "PIPELINE_EXECUTIONS", "item": {...}}               one stored item
    {"run": ID, "object": "executions/ID/bodies/...", "base64": "..."}       one offloaded body

`table` is the ResourceKeys name, not the physical name (the target may use another
WFX_TABLE_PREFIX). Items are in the store-neutral form of adapters/run_archive.py. Bodies are
carried inline (base64): the file alone moves a run, whatever object store either side uses.
A run whose lines break a rule is rejected whole, naming the first bad line and the rule.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from adapters.dynamodb.codec import check_item
from adapters.run_archive import (
    ARCHIVED_TABLES,
    ASSET_KEYS,
    EXECUTION_ID,
    SHARED_TABLES,
    STEP_ID,
    WORKFLOW_KEY,
)
from adapters.run_records import parse_execution_record
from adapters.tables import STEP_ROW_TABLES, TABLE_SPECS, ResourceKeys
from application.ports.migration import ArchivedBody, ArchivedItem, ArchivedRun, RejectedRun
from domain.errors import InvalidInputError, UnreadableRowError
from domain.execution import execution_object_prefix
from domain.names import execution_id_problem

FORMAT = "wfx-export"
VERSION = 1
_HEADER = {"format": FORMAT, "version": VERSION}
_TABLES = {key.value: key for key in ARCHIVED_TABLES}
# The tables whose items belong to one run by their own workflowExecutionId attribute.
_RUN_KEYED = frozenset(
    key
    for key in ARCHIVED_TABLES
    if EXECUTION_ID in {a.name for a in TABLE_SPECS[key].key_attributes}
)
# Keyed by a step alone: the run they belong to is the one whose step it is.
_STEP_KEYED = frozenset(table.value for table in STEP_ROW_TABLES)


# No item (400 KB, its JSON at most a few MB) nor any body wfx offloads comes near it; a line
# is held whole while it is parsed (about four times its size), so it bounds the memory too.
MAX_LINE_BYTES = 256 * 2**20


class _LineError(ValueError):
    pass


@dataclass(frozen=True)
class _Overlong:
    """A line past MAX_LINE_BYTES, skipped unread but for its start (the run it names)."""

    head: bytes


def bounded_lines(stream: IO[bytes], limit: int = MAX_LINE_BYTES) -> Iterator[bytes | _Overlong]:
    """The stream's lines, none held longer than `limit` bytes: a longer one is skipped to its
    end and stands as a bad line."""
    while line := stream.readline(limit + 1):
        if line.endswith(b"\n") or len(line) <= limit:
            yield line
            continue
        head = line[:4096]
        while not line.endswith(b"\n") and (line := stream.readline(2**20)):
            pass
        yield _Overlong(head)


def _dumps(document: Any) -> str:
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def write_header(stream: IO[str]) -> None:
    stream.write(_dumps(_HEADER) + "\n")


def write_run(stream: IO[str], run: ArchivedRun) -> None:
    """The run's bodies, then its items in the archive's order (main row last)."""
    run_id = run.workflow_execution_id
    for body in run.bodies:
        encoded = base64.b64encode(body.data).decode("ascii")
        stream.write(_dumps({"run": run_id, "object": body.key, "base64": encoded}) + "\n")
    for archived in run.items:
        line = {"run": run_id, "table": archived.table, "item": dict(archived.item)}
        stream.write(_dumps(line) + "\n")


def _refuse_constant(name: str) -> Any:
    raise _LineError(f"{name} is not a JSON number DynamoDB or SQLite can store")


def _check_value(value: Any, path: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise _LineError(f"{path}: {value} is not a storable number")
    if isinstance(value, str):
        _check_text(value, path)
    elif isinstance(value, list):
        for index, element in enumerate(value):
            _check_value(element, f"{path}[{index}]")
    elif isinstance(value, dict):
        for name, element in value.items():
            _check_text(name, f"{path}: a name")
            _check_value(element, f"{path}.{name}")


def _check_text(text: str, path: str) -> None:
    # `"\ud800"` is valid JSON but no text: no store, terminal or answer could hold the run
    found = _SURROGATE.search(text)
    if found is not None:
        raise _LineError(f"{path}: holds \\u{ord(found.group()):04x}, a lone surrogate (not text)")


_SURROGATE = re.compile("[\ud800-\udfff]")
_LEADING_RUN = re.compile(r'\{\s*"run"\s*:\s*("(?:[^"\\]|\\.)*")')


def _parse(text: str) -> tuple[str, ArchivedItem | ArchivedBody]:
    try:
        document = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise _LineError(f"not JSON ({exc.msg} at column {exc.colno})") from exc
    if not isinstance(document, dict):
        raise _LineError("a line is one JSON object")
    run_id = document.get("run")
    if not isinstance(run_id, str) or not run_id:
        raise _LineError("run: a non-empty string is required")
    problem = execution_id_problem(run_id)
    if problem is not None:
        raise _LineError(f"run: {problem}")
    if "table" in document:
        return run_id, _item_line(run_id, document)
    if "object" in document:
        return run_id, _body_line(run_id, document)
    raise _LineError("a line has either a table and an item, or an object and its base64")


def _item_line(run_id: str, document: dict[str, Any]) -> ArchivedItem:
    unknown = set(document) - {"run", "table", "item"}
    if unknown:
        raise _LineError(f"{sorted(unknown)[0]}: not a field of an item line")
    table_name, item = document["table"], document.get("item")
    if table_name not in _TABLES:
        raise _LineError(f"table: {table_name!r} is not a table a run's archive holds")
    if not isinstance(item, dict):
        raise _LineError("item: a JSON object is required")
    table = _TABLES[table_name]
    try:
        check_item(table_name, TABLE_SPECS[table], item)
    except ValueError as exc:
        raise _LineError(f"item: {exc}") from exc
    for name, value in item.items():
        if value is None and name in {a.name for a in TABLE_SPECS[table].all_key_attributes}:
            raise _LineError(f"item.{name}: an index key is absent when unset, never null")
        _check_value(value, f"item.{name}")
    if table is ResourceKeys.PIPELINE_EXECUTIONS:
        problem = execution_id_problem(item[STEP_ID])
        if problem is not None:
            raise _LineError(f"item.{STEP_ID}: {problem}")
    # a row of the run's own that names a run (a step's log, an attempt) names this one
    owned = table in _RUN_KEYED or (table not in SHARED_TABLES and EXECUTION_ID in item)
    if owned and item.get(EXECUTION_ID) != run_id:
        raise _LineError(f"item.{EXECUTION_ID}: must be the line's run {run_id!r}")
    if table is ResourceKeys.WORKFLOW_EXECUTIONS:
        try:
            parse_execution_record(item)
        except UnreadableRowError as exc:
            # stored, the run would be left out of every list, and shown or deleted by none
            raise _LineError(f"item: wfx cannot read it as a run: {exc.problem}") from exc
    return ArchivedItem(table_name, item, shared=table in SHARED_TABLES)


def _body_line(run_id: str, document: dict[str, Any]) -> ArchivedBody:
    unknown = set(document) - {"run", "object", "base64"}
    if unknown:
        raise _LineError(f"{sorted(unknown)[0]}: not a field of an object line")
    key, encoded = document["object"], document.get("base64")
    prefix = f"{execution_object_prefix(run_id)}bodies/"
    if not isinstance(key, str) or not key.startswith(prefix) or ".." in key.split("/"):
        raise _LineError(f"object: a body's key starts with {prefix!r}")
    if not isinstance(encoded, str):
        raise _LineError("base64: a base64 string is required")
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise _LineError("base64: not valid base64") from exc
    return ArchivedBody(key, data)


def read_runs(
    lines: Iterable[str | bytes | _Overlong],
) -> Iterator[ArchivedRun | RejectedRun]:
    """The file's runs in order; a run that breaks a rule comes back as a RejectedRun (the first
    bad line and its rule) and none of its lines is used. A bad first line rejects the file.
    Lines read as bytes are decoded one by one: a line that is not UTF-8 is a bad line."""
    numbered = enumerate(lines, start=1)
    _check_header(next(numbered, None))
    runs = _RunsRead()
    for number, line in numbered:
        runs.last_line = number
        if not isinstance(line, _Overlong) and not line.strip():
            continue
        try:
            run_id, parsed = _parse(_text(line))
        except (_LineError, RecursionError) as exc:
            named = _run_of(line) or runs.current or f"(line {number})"
            if named != runs.current:
                yield from runs.start(named)
            runs.refuse(number, _problem(exc))
            continue
        if run_id != runs.current:
            yield from runs.start(run_id)
        runs.add(number, parsed)
    yield from runs.finish()


def _check_header(first: tuple[int, str | bytes | _Overlong] | None) -> None:
    try:
        header = json.loads(_text(first[1])) if first is not None else None
    except (_LineError, json.JSONDecodeError):
        header = None
    if header != _HEADER:
        raise InvalidInputError(
            f"line 1: the first line must be {_dumps(_HEADER)} (a file written by wfx export)"
        )


class _RunsRead:
    """The run being read (its lines so far, its first bad line) and every step id of the file
    so far with its run."""

    def __init__(self) -> None:
        self.current: str | None = None
        self.last_line = 1
        self._steps: set[str] = set()  # the current run's, from its PIPELINE_EXECUTIONS lines
        self._claimed: dict[str, str] = {}
        self._items: list[ArchivedItem] = []
        self._bodies: list[ArchivedBody] = []
        self._error: tuple[int, str] | None = None

    def start(self, run_id: str) -> Iterator[ArchivedRun | RejectedRun]:
        """The run read until now, if any; then `run_id`'s lines are read."""
        yield from self.finish()
        self.current, self._items, self._bodies, self._error = run_id, [], [], None
        self._steps = set()

    def refuse(self, number: int, problem: str) -> None:
        if self._error is None:
            self._error = (number, problem)

    def add(self, number: int, parsed: ArchivedItem | ArchivedBody) -> None:
        if isinstance(parsed, ArchivedBody):
            self._bodies.append(ArchivedBody(parsed.key, parsed.data, number))
            return
        if parsed.table == ResourceKeys.PIPELINE_EXECUTIONS.value:
            step_id = parsed.item[STEP_ID]
            owner = self._claimed.setdefault(step_id, self.current or "")
            if owner != self.current:
                # its step rows are keyed by the step alone: two runs would share them
                self.refuse(number, f"item.{STEP_ID}: already a step of run {owner!r}")
                return
            self._steps.add(step_id)
        elif parsed.table in _STEP_KEYED and parsed.item[STEP_ID] not in self._steps:
            # stored, it would be a row of whichever run has that step, or of none
            self.refuse(number, _NOT_A_STEP)
            return
        self._items.append(ArchivedItem(parsed.table, parsed.item, number, parsed.shared))

    def finish(self) -> Iterator[ArchivedRun | RejectedRun]:
        if self.current is None:
            return
        if self._error is not None:
            yield RejectedRun(self.current, *self._error)
            return
        items = self._items
        main = [i for i in items if i.table == ResourceKeys.WORKFLOW_EXECUTIONS.value]
        if len(main) != 1 or items[-1] is not main[0]:
            line = items[-1].line if items else self.last_line
            yield RejectedRun(
                self.current, line, "a run's lines end with its one WORKFLOW_EXECUTIONS item"
            )
            return
        stray = _not_named(items)
        if stray is not None:
            yield RejectedRun(self.current, *stray)
            return
        yield ArchivedRun(self.current, tuple(items), tuple(self._bodies))


def _not_named(items: list[ArchivedItem]) -> tuple[int, str] | None:
    """The first definition or asset file the run does not name (its line and the rule): one
    carried in by hand would be stored beside the target's own (a version past the latest
    takes the number the next publish claims)."""
    main = items[-1].item
    workflow, version = main.get(WORKFLOW_KEY), main.get("workflowVersion")
    assets = {
        item.item.get(attribute)
        for table, attribute in ASSET_KEYS
        for item in items
        if item.table == table.value
    }
    for archived in items:
        if not archived.shared:
            continue
        table, item = ResourceKeys(archived.table), archived.item
        partition = item[TABLE_SPECS[table].partition.name]
        if table is ResourceKeys.ASSET_FILES:
            if partition not in assets:
                return archived.line, (
                    f"an ASSET_FILES item of {partition!r}, an asset the run neither reads "
                    "nor writes"
                )
            continue
        named = {
            ResourceKeys.WORKFLOW_DEFINITIONS: partition == workflow,
            ResourceKeys.WORKFLOW_VERSIONS: (partition, item.get("workflowVersion"))
            == (workflow, version),
            ResourceKeys.STEP_DEFINITIONS: partition == f"{workflow}:{version}",
        }[table]
        if not named:
            return archived.line, (
                f"a {table.value} item the run does not name (the run's is {workflow} "
                f"version {version})"
            )
    return None


_NOT_A_STEP = (
    f"item.{STEP_ID}: names no step of this run (a PIPELINE_EXECUTIONS line of the run, "
    "before this one, names each of its steps)"
)


def _problem(error: Exception) -> str:
    if isinstance(error, RecursionError):  # json's decoder, or the checks walking what it made
        return "nested deeper than a stored item can be"
    return str(error)


def _text(line: str | bytes | _Overlong) -> str:
    if isinstance(line, str):
        return line
    if isinstance(line, _Overlong):
        raise _LineError(f"longer than {MAX_LINE_BYTES // 2**20} MiB, more than a line holds")
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as exc:
        byte = line[exc.start]
        raise _LineError(f"not UTF-8 text (byte 0x{byte:02x} at byte {exc.start + 1})") from None


def _run_of(line: str | bytes | _Overlong) -> str | None:
    """The run a bad line names, when it names one: its run is rejected, not the next."""
    if isinstance(line, _Overlong):
        # every line wfx writes starts with its run
        found = _LEADING_RUN.match(line.head.decode("utf-8", "replace"))
        line = f'{{"run":{found.group(1)}}}' if found else ""
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    try:
        document = json.loads(text)
    except (json.JSONDecodeError, ValueError, RecursionError):
        return None
    run_id = document.get("run") if isinstance(document, dict) else None
    return run_id if isinstance(run_id, str) and run_id else None
