"""SQL text rendered once per store from the table specs, and the row <-> item conversions.

Plain strings, built when a store is made and run on the `sqlite3` connection as they are:
compiling a SQL expression per call would cost more than the SQLite work of a small launch.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from adapters.compact_json import encode_compact
from adapters.records import Item
from adapters.sqlite.schema import ITEM_COLUMN, SqliteTable

# Far below SQLite's bound-variable limit, and enough that an IN list is one query in practice.
MAX_IN_VALUES = 500


def dump_json(value: Any) -> str:
    """The compact JSON every row's item is written as: the text the record builders carry."""
    return encode_compact(value)


def quote(identifier: str) -> str:
    """A double-quoted SQL identifier: our names hold `:` and `.`, which bare names cannot."""
    return '"' + identifier.replace('"', '""') + '"'


# json.loads adds two whitespace regex matches and a call layer per row to this C scanner; our
# items are compact JSON we wrote ourselves, so the scanner alone reads them (~25% faster).
# (scan_once is set in JSONDecoder.__init__, so the stubs do not know it)
_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def load_item(text: str) -> Item:
    try:
        item, end = _SCAN(text, 0)
    except StopIteration:  # not JSON at all: let json.loads say why
        return _strict_item(text)
    if end != len(text) or not isinstance(item, dict):
        return _strict_item(text)
    return item


def _strict_item(text: str) -> Item:
    loaded = json.loads(text)  # raises the usual JSONDecodeError on text we did not write
    if not isinstance(loaded, dict):
        raise ValueError(f"a stored item is not a JSON object: {text[:80]!r}")
    return loaded


def json_path(attribute: str) -> str:
    """A SQL literal of the JSON path to one top-level attribute, quoted so `a:b` is one key."""
    if "'" in attribute or '"' in attribute:
        raise ValueError(f"attribute name {attribute!r}: quotes are not allowed")
    return f"'$.\"{attribute}\"'"


def placeholders(count: int) -> str:
    return ", ".join("?" * count)


def chunks(values: Sequence[str], size: int = MAX_IN_VALUES) -> Iterator[Sequence[str]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


@dataclass(frozen=True)
class TableSql:
    """The quoted names and fixed statements of one table."""

    table: SqliteTable
    name: str
    columns: tuple[str, ...]
    quoted: dict[str, str]
    insert: str
    upsert: str
    insert_if_absent: str  # unless the key is taken (only a key conflict is ignored)

    @classmethod
    def render(cls, table: SqliteTable) -> TableSql:
        columns = table.key_columns
        quoted = {column: quote(column) for column in (*columns, ITEM_COLUMN)}
        column_list = ", ".join(quoted[column] for column in (*columns, ITEM_COLUMN))
        values = placeholders(len(columns) + 1)
        name = quote(table.name)
        return cls(
            table=table,
            name=name,
            columns=columns,
            quoted=quoted,
            insert=f"INSERT INTO {name} ({column_list}) VALUES ({values})",
            upsert=f"INSERT OR REPLACE INTO {name} ({column_list}) VALUES ({values})",
            insert_if_absent=f"INSERT INTO {name} ({column_list}) VALUES ({values}) "
            "ON CONFLICT DO NOTHING",
        )

    def q(self, column: str) -> str:
        """The quoted name of a key column (or `item`)."""
        return self.quoted[column]

    def row(self, item: Item) -> tuple[Any, ...]:
        """Insert parameters: each key column (an absent sparse key is NULL), then the JSON (as
        fit_item encoded it to size it, when the item is its unchanged Record)."""
        text = getattr(item, "json_text", None)
        return (*map(item.get, self.columns), text or encode_compact(item))

    def rows(self, items: Iterable[Item]) -> list[tuple[Any, ...]]:
        return [self.row(item) for item in items]

    def select_items_in(self, column: str, count: int) -> str:
        return f"SELECT item FROM {self.name} WHERE {self.q(column)} IN ({placeholders(count)})"

    def delete_in(self, column: str, count: int) -> str:
        return f"DELETE FROM {self.name} WHERE {self.q(column)} IN ({placeholders(count)})"
