"""DynamoDB's item size, and fitting an item under a budget by moving bodies to the object store.

DynamoDB refuses an item over 400 KB ("Item size has exceeded the maximum allowed size"). Every
record builder passes its item through `fit_item`: a field named by the record's `RecordBudget`
that does not fit is cut on the row, flagged `<field>Truncated`, and its complete body goes to
the object store under the key `<field>ObjectKey` names (under the run's own prefix, so a
permanent delete removes it). SQLite stores the same items, so both stores hold the same rows.

Sizes follow AWS's "DynamoDB item sizes and formats": an attribute is the UTF-8 bytes of its
name plus its value; strings are their UTF-8 bytes, binary its raw bytes, a number about one byte
per two significant digits plus one, a boolean or null one byte, a list or map 3 bytes plus one
byte per element plus the elements (a map's entries also count their names).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from functools import cached_property
from typing import Any, Self

from adapters.compact_json import encode_compact
from application.ports.files import ObjectStore
from domain.execution import execution_object_prefix

Item = dict[str, Any]

# DynamoDB counts in binary units: 400 KB is 409,600 bytes.
ITEM_SIZE_LIMIT = 400 * 1024
# The margin: the number rule is approximate, and writes after the build (a lease, a date, a
# registration) add attributes to an item fitted once.
ITEM_BUDGET = 350 * 1024
# What a field cut for the item's sake keeps on the row: enough to read it in a table console.
KEPT_BYTES = 16 * 1024
# A field smaller than this is not worth cutting: cutting it frees next to nothing.
_WORTH_CUTTING = 1024

TRUNCATED_SUFFIX = "Truncated"
OBJECT_KEY_SUFFIX = "ObjectKey"


class ItemTooLargeError(ValueError):
    """An item over the budget with nothing left to cut (keys and ids alone are too big)."""


# -- sizes ---------------------------------------------------------------------------------------


def _text_size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def _number_size(number: int | float | Decimal) -> int:
    # leading and trailing zeroes are not stored: 1000 and 0.001 both have one significant digit
    digits = Decimal(str(number)).normalize().as_tuple().digits
    return (len(digits) + 1) // 2 + 1


def value_size(value: Any) -> int:
    """The size DynamoDB counts for one attribute value (its name not included)."""
    if isinstance(value, str):
        return _text_size(value)
    if value is None or isinstance(value, bool):
        return 1
    if isinstance(value, int | float | Decimal):
        return _number_size(value)
    if isinstance(value, bytes | bytearray):
        return len(value)
    if isinstance(value, Mapping):
        return 3 + sum(1 + _text_size(name) + value_size(v) for name, v in value.items())
    if isinstance(value, set | frozenset):  # a string, number or binary set: its members
        return sum(value_size(member) for member in value)
    if isinstance(value, list | tuple):
        return 3 + sum(1 + value_size(element) for element in value)
    raise TypeError(f"no DynamoDB size for a {type(value).__name__}")


def attribute_size(name: str, value: Any) -> int:
    return _text_size(name) + value_size(value)


def item_size(item: Mapping[str, Any]) -> int:
    """The size DynamoDB counts for the whole item, against its 400 KB limit."""
    return sum(attribute_size(name, value) for name, value in item.items())


# The item's compact ASCII JSON as the SQLite store writes it is encode_compact's; the same
# with anything else as its str (a Decimal, a set: DynamoDB's values) is for the bound alone.
_BOUND_ENCODER = json.JSONEncoder(separators=(",", ":"), default=str)


def size_upper_bound(item: Mapping[str, Any]) -> int:
    """A bound never below item_size(), one C-speed encode of the whole item: twice its compact
    ASCII JSON. Each part's JSON is at least half its DynamoDB size: a name or string is its
    characters (at least 1 byte of JSON for each ASCII byte, an escape 6 or 12 characters for at
    most 4 bytes) plus quotes; a number's digits give at least half its size; null, true and
    false are 1 byte; a list's or map's brackets, commas and colons at least half its overhead."""
    return _bound(_BOUND_ENCODER.encode(item))


def _bound(text: str) -> int:
    return 2 * len(text) + 2


# -- budgets -------------------------------------------------------------------------------------


class Keep(Enum):
    HEAD = "head"
    TAIL = "tail"  # a log: its end says how it ended


@dataclass(frozen=True)
class Offloadable:
    """A field the builder may cut. `cap`: the most the row keeps of it whatever the rest of the
    item is, for a field also written by updates that see only themselves (an error message).
    `restore`: reads get the complete body back; False where the row's cut value is what readers
    get by design (the run log's tail; the whole log goes through the narrower logs route)."""

    name: str
    keep: Keep = Keep.HEAD
    cap: int | None = None
    restore: bool = True

    @property
    def flag(self) -> str:
        return f"{self.name}{TRUNCATED_SUFFIX}"

    @property
    def key_attribute(self) -> str:
        return f"{self.name}{OBJECT_KEY_SUFFIX}"


@dataclass(frozen=True)
class RecordBudget:
    """The fields of one record kind that may be cut; `kind` names the folder of their bodies."""

    kind: str
    fields: tuple[Offloadable, ...] = ()

    @cached_property
    def quick_limit(self) -> int:
        """Below it, the quick bound proves that nothing is to be cut: not the item, no cap."""
        return min([ITEM_BUDGET, *(f.cap for f in self.fields if f.cap is not None)])

    def flag_attributes(self) -> tuple[str, ...]:
        return self._flag_attributes

    @cached_property
    def field_names(self) -> frozenset[str]:
        return frozenset(f.name for f in self.fields)

    def within_caps(self, values: Mapping[str, Any]) -> bool:
        """Whether each of its fields in `values` is a capped one within its cap: a partial
        item that fit_item, which fits one by the caps alone, would keep as it is."""
        for field in self.fields:
            if field.name in values and (
                field.cap is None or value_size(values[field.name]) > field.cap
            ):
                return False
        return True

    @cached_property
    def _flag_attributes(self) -> tuple[str, ...]:  # asked on every update of the record kind
        return tuple(name for f in self.fields for name in (f.flag, f.key_attribute))


@dataclass(frozen=True)
class Offload:
    """A complete body the object store must hold before the item naming it is written."""

    attribute: str  # the field it is the body of
    key: str
    body: bytes


class Record(dict[str, Any]):
    """An item as the builder made it, and the bodies it moved out, to be stored first.

    `json_text`: the item's compact JSON as `fit_item` encoded it to size it, for a store that
    writes JSON (SQLite) to reuse rather than encode the item a second time; any change to the
    item drops it."""

    __slots__ = ("json_text", "offloads")  # no instance dict: 40-odd are built per run

    offloads: tuple[Offload, ...]
    json_text: str | None

    def __init__(
        self,
        item: Mapping[str, Any],
        offloads: Iterable[Offload] = (),
        json_text: str | None = None,
    ) -> None:
        dict.__init__(self, item)
        # most records move no body out: their () is kept as it is
        self.offloads = offloads if offloads.__class__ is tuple else tuple(offloads)
        self.json_text = json_text

    def __setitem__(self, key: str, value: Any) -> None:
        self.json_text = None
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self.json_text = None
        super().__delitem__(key)

    # (typeshed gives dict's |= overloads mypy will not take one signature for)
    def __ior__(self, other: Any) -> Self:  # type: ignore[override,misc]
        self.json_text = None
        return super().__ior__(other)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self.json_text = None
        super().update(*args, **kwargs)

    def pop(self, *args: Any) -> Any:
        self.json_text = None
        return super().pop(*args)

    def popitem(self) -> tuple[str, Any]:
        self.json_text = None
        return super().popitem()

    def setdefault(self, key: str, default: Any = None) -> Any:
        self.json_text = None
        return super().setdefault(key, default)

    def clear(self) -> None:
        self.json_text = None
        super().clear()


# dict's own, not Record's: Record.update would drop a JSON text kept (none yet on a new one)
_blank_record = dict.__new__
_fill_record = dict.update


def new_record(
    item: Mapping[str, Any], offloads: tuple[Offload, ...] = (), json_text: str | None = None
) -> Record:
    """`Record(item, offloads, json_text)` without its `__init__`'s Python frame (a record is
    made by type_call, then `dict.__init__` looked up and called): for the builders that make
    ~40 a warm run, each with its offloads as a tuple already."""
    record: Record = _blank_record(Record)
    _fill_record(record, item)
    record.offloads = offloads
    record.json_text = json_text
    return record


def body_key(execution_id: str, kind: str, field: str, body: bytes) -> str:
    """Named by its content: a write whose item write then fails leaves a body that any row
    naming the key still matches, and a rewrite of the same row names the same key."""
    digest = hashlib.sha256(body).hexdigest()[:32]
    return f"{execution_object_prefix(execution_id)}bodies/{kind}/{field}/{digest}"


def _body_of(value: Any) -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8")
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _value_of(body: bytes, cut: Any) -> Any:
    return body.decode("utf-8") if isinstance(cut, str) else json.loads(body)


def _cut(value: Any, keep: Keep, room: int) -> Any:
    """The part of `value` the row keeps: at most `room` bytes of it by DynamoDB's count."""
    room = max(room, 0)
    if isinstance(value, str):
        encoded = value.encode("utf-8")
        part = encoded[-room:] if keep is Keep.TAIL and room else encoded[:room]
        return part.decode("utf-8", errors="ignore")  # never half a character
    if isinstance(value, Mapping):
        kept: dict[str, Any] = {}
        used = 3
        for name, entry in value.items():
            used += 1 + _text_size(name) + value_size(entry)
            if used > room:
                break
            kept[name] = entry
        return kept
    if isinstance(value, list | tuple):
        elements = list(value) if keep is Keep.HEAD else list(reversed(value))
        chosen: list[Any] = []
        used = 3
        for element in elements:
            used += 1 + value_size(element)
            if used > room:
                break
            chosen.append(element)
        return chosen if keep is Keep.HEAD else chosen[::-1]
    raise TypeError(f"{type(value).__name__}: only text, lists and maps are cut")


def fit_item(
    item: Mapping[str, Any],
    budget: RecordBudget,
    execution_id: str,
    offloads: Iterable[Offload] = (),
    *,
    reserve: int = 0,
    json_text: str | None = None,
) -> Record:
    """`item` as a row may hold it: each capped field within its cap, then, while the item is
    over ITEM_BUDGET less `reserve` (room kept for what later updates add), its largest uncut
    field cut. Raises ItemTooLargeError when cutting every field named by the budget is not
    enough. `item` may be a partial one (an update's values): then only the caps apply.
    `json_text`: encode_compact's text of `item`, when the builder has it already."""
    limit = ITEM_BUDGET - reserve
    text: str | None
    try:  # its JSON (kept for the row) when it is all JSON values
        encoded = encode_compact(item) if json_text is None else json_text
    except TypeError:
        text, bound = None, size_upper_bound(item)
    else:
        text, bound = encoded, _bound(encoded)
    if bound <= limit and bound <= budget.quick_limit:
        # the common case: a small item, one C-speed dump (kept for the row) and no walk
        return new_record(item, tuple(offloads), text)
    return _fit_by_cutting(item, budget, execution_id, offloads, limit)


def _fit_by_cutting(
    item: Mapping[str, Any],
    budget: RecordBudget,
    execution_id: str,
    offloads: Iterable[Offload],
    limit: int,
) -> Record:
    """fit_item's walk of an item that may not fit: the caps, then the largest fields cut
    until it is within `limit`."""
    record = Record(item, offloads)
    moved = list(record.offloads)
    # cut already (a partial fit, or the run log the application cut): its body is stored
    cut = {f.name for f in budget.fields if record.get(f.flag) is True}

    def cut_field(field: Offloadable, room: int) -> None:
        whole = record[field.name]
        body = _body_of(whole)
        key = body_key(execution_id, budget.kind, field.name, body)
        record[field.name] = _cut(whole, field.keep, room)
        record[field.flag] = True
        record[field.key_attribute] = key
        moved.append(Offload(attribute=field.name, key=key, body=body))
        cut.add(field.name)

    for field in budget.fields:
        capped = field.cap is not None and field.name in record and field.name not in cut
        if capped and value_size(record[field.name]) > (field.cap or 0):
            cut_field(field, field.cap or 0)
    total = item_size(record)
    while total > limit:
        candidates = [
            (value_size(record[f.name]), f)
            for f in budget.fields
            if f.name in record and f.name not in cut
        ]
        candidates = [(size, f) for size, f in candidates if size >= _WORTH_CUTTING]
        if not candidates:
            raise ItemTooLargeError(
                f"{budget.kind} item of run {execution_id}: {total} bytes, over the "
                f"{limit}-byte budget with nothing left to cut"
            )
        size, field = max(candidates, key=lambda candidate: candidate[0])
        # the flag and the key name take some room too
        room = min(KEPT_BYTES, limit - (total - size) - 512)
        cut_field(field, room)
        total = item_size(record)
    record.offloads = tuple(moved)
    return record


def fit_values(values: Item, budget: RecordBudget, execution_id: str) -> Item:
    """`fit_item` for an update's values: a status, dates and the record's free-text fields.
    Holding none of the budget's fields, or only capped ones each within its cap, they are
    what fit_item would keep as they are (a partial item is fitted by the caps alone), so they
    are given back as they are: not encoded (an update binds each value by itself and never
    writes their JSON, which is all fit_item's encode would be kept for), nor copied into a
    Record to say that no body moved out (a plain item moves none: OffloadedBodies.put). A
    Record, with the bodies it moved out, when a field was cut."""
    if budget.field_names.isdisjoint(values) or budget.within_caps(values):
        return values
    return fit_item(values, budget, execution_id)


# -- reading back --------------------------------------------------------------------------------

# Every field's flag whose body a read puts back, filled as budgets are declared.
_RESTORED: dict[str, Offloadable] = {}


def declare(budget: RecordBudget) -> RecordBudget:
    """Register a record kind's budget, so that reads know which flags to restore."""
    for field in budget.fields:
        if field.restore:
            _RESTORED[field.flag] = field
    return budget


def restore_item(item: Item, read: Callable[[str], bytes]) -> Item:
    """`item` with each cut field whole again, read from the object store by the key it names;
    the item itself when nothing was cut (no copy, no read).

    A body that is gone leaves the field as the row keeps it, still flagged cut: a delete cut
    short after it removed the run's objects (they go before the rows, so the run stays listed
    to be deleted again) must not make every read of the store, that delete's included, fail."""
    if _RESTORED.keys().isdisjoint(item):
        return item
    whole = dict(item)
    for flag, field in _RESTORED.items():
        if item.get(flag) is True and field.key_attribute in item:
            try:
                body = read(item[field.key_attribute])
            except FileNotFoundError:
                continue
            whole[field.name] = _value_of(body, item.get(field.name))
    return whole


class OffloadedBodies:
    """The object-store side of the budgets, for a store adapter: bodies in before the items
    naming them, and cut fields made whole again on read."""

    def __init__(self, objects: ObjectStore | None) -> None:
        self._objects = objects

    def put(self, items: Iterable[Mapping[str, Any]]) -> None:
        """Store the bodies `items` moved out (their Record.offloads): before the items go in,
        so that no row ever names a body that is not there."""
        for item in items:  # each row written: most move no body out, and put nothing
            for offload in getattr(item, "offloads", ()):
                self._store().put_bytes(offload.key, offload.body)

    def restore(self, item: Item) -> Item:
        return restore_item(item, self._read)

    def _read(self, key: str) -> bytes:
        return self._store().read_bytes(key)

    def _store(self) -> ObjectStore:
        if self._objects is None:
            raise ItemTooLargeError(
                "this store was built without an object store: it can neither write an item over "
                "the DynamoDB item budget nor read one back"
            )
        return self._objects
