"""The earlier table's items from a JSON file (V1Items): a list of items, or a Scan answer
(`{"Items": [...]}`), each plain (`"databaseId": "db"`) or DynamoDB-typed (`{"S": "db"}`)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

from domain.errors import InvalidInputError

_TYPES = frozenset({"S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS"})
MAX_FILE_BYTES = 256 * 2**20


def _is_typed(value: Any) -> bool:
    return isinstance(value, dict) and len(value) == 1 and next(iter(value)) in _TYPES


# What each DynamoDB type holds in JSON (the wire form a Scan answer and `aws dynamodb` print).
_HOLDS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "S": ("text", lambda inner: isinstance(inner, str)),
    "B": ("base64 text", lambda inner: isinstance(inner, str)),
    "N": ("a number as text", lambda inner: _is_number(inner)),
    "BOOL": ("true or false", lambda inner: isinstance(inner, bool)),
    "NULL": ("true", lambda inner: inner is True),
    "L": ("a list", lambda inner: isinstance(inner, list)),
    "M": ("an object", lambda inner: isinstance(inner, dict)),
    "SS": ("a list of text", lambda inner: _all(inner, lambda v: isinstance(v, str))),
    "NS": ("a list of numbers as text", lambda inner: _all(inner, _is_number)),
    "BS": ("a list of base64 text", lambda inner: _all(inner, lambda v: isinstance(v, str))),
}


def _cut(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:40]}..."


def _is_number(inner: Any) -> bool:
    if isinstance(inner, bool) or not isinstance(inner, (str, int, float)):
        return False
    try:
        return Decimal(str(inner)).is_finite()
    except ArithmeticError:
        return False


def _all(inner: Any, holds: Callable[[Any], bool]) -> bool:
    return isinstance(inner, list) and all(holds(v) for v in inner)


def plain_value(value: Any, where: str) -> Any:
    """A DynamoDB-typed value as a plain one; a plain value as it is. ValueError names the
    attribute (`where`) of a typed value its type cannot hold."""
    if not _is_typed(value):
        return value
    ((kind, inner),) = value.items()
    expected, holds = _HOLDS[kind]
    if not holds(inner):
        raise ValueError(f"{where}: a {kind} value is {expected}, not {_cut(repr(inner))}")
    match kind:
        case "S" | "B" | "BOOL":
            return inner
        case "N":
            return Decimal(str(inner))
        case "NULL":
            return None
        case "L":
            return [plain_value(v, where) for v in inner]
        case "M":
            return {k: plain_value(v, f"{where}.{k}") for k, v in inner.items()}
        case _:  # the sets
            return list(inner)


def plain_item(item: Mapping[str, Any]) -> dict[str, Any]:
    return {name: plain_value(value, name) for name, value in item.items()}


class JsonFileV1Items:
    """Reads the file once, up front, so a malformed file is refused before anything is written."""

    def __init__(self, path: Path) -> None:
        self._items = _load(path)

    def items(self) -> Iterator[Mapping[str, Any]]:
        return iter(self._items)


def _load(path: Path) -> list[dict[str, Any]]:
    where = f"--from-file {path}"
    try:
        with path.open("rb") as stream:
            # bounded: the file is read whole, and /dev/zero or a runaway pipe never ends
            data = stream.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise InvalidInputError(
                f"{where}: holds more than {MAX_FILE_BYTES // 2**20} MiB, more than is read "
                "whole; migrate from the table itself (--source-table), which is read in pages"
            )
        document = json.loads(data.decode("utf-8"))
    except OSError as error:
        raise InvalidInputError(f"{where}: cannot be read ({error.strerror or error})") from None
    except UnicodeDecodeError:
        raise InvalidInputError(f"{where}: must be UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise InvalidInputError(
            f"{where}: not JSON ({error.msg} at line {error.lineno} column {error.colno})"
        ) from None
    except RecursionError:
        raise InvalidInputError(f"{where}: nested deeper than a table's items can be") from None
    if isinstance(document, dict) and isinstance(document.get("Items"), list):
        document = document["Items"]
    if not isinstance(document, list):
        raise InvalidInputError(
            f"{where}: must be a JSON list of items, or a Scan answer with an Items list"
        )
    items: list[dict[str, Any]] = []
    for number, item in enumerate(document):
        if not isinstance(item, dict):
            raise InvalidInputError(f"{where}: item {number} must be an object of attributes")
        try:
            plain = plain_item(item)
        except ValueError as error:
            raise InvalidInputError(f"{where}: item {number}: {error}") from None
        for name, value in plain.items():
            found = _first_surrogate(name) or _first_surrogate(value)
            if found is not None:
                # valid JSON (`"\ud800"`), but no text: no store or terminal can hold it
                raise InvalidInputError(
                    f"{where}: item {number}: {_shown(name)} holds \\u{ord(found):04x}, "
                    "a lone surrogate (not text)"
                )
        items.append(plain)
    return items


_SURROGATE = re.compile("[\ud800-\udfff]")


def _first_surrogate(value: Any) -> str | None:
    if isinstance(value, str):
        found = _SURROGATE.search(value)
        return None if found is None else found.group()
    if isinstance(value, list):
        return next((s for v in value if (s := _first_surrogate(v)) is not None), None)
    if isinstance(value, dict):
        return next(
            (
                s
                for k, v in value.items()
                if (s := _first_surrogate(k) or _first_surrogate(v)) is not None
            ),
            None,
        )
    return None


def _shown(name: str) -> str:
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", name)
