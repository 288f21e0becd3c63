"""An item's compact ASCII JSON, the text `json.JSONEncoder(separators=(",", ":"))` gives, cheaper.

`JSONEncoder.encode` builds its C encoder anew on every call, with a fresh memo of the objects it
is inside (the circular-reference check); for the small dicts a store writes, 40-odd a warm run,
that set-up cost more than the encoding itself (~3x the encode alone). Here the C encoder is built
once, without the memo: an item is a tree the record builders made, and a cycle would end in a
RecursionError as with `check_circular=False`. Same text, same TypeError for a value JSON has no
form for; where the C encoder is missing (another Python), the plain encoder does it.

Its strings are escaped by the C escaper that keeps characters past ASCII as they are, ~10% less
work a character than the ASCII one (the escaping is half of an item's encoding). On ASCII text
the two differ in DEL alone (`\\u007f` against the raw character), so a text all ASCII with no
DEL is the ASCII encoder's own; any other (a name with an accent) is encoded again by it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable
from json import encoder as _encoder_module
from operator import itemgetter
from typing import Any, NamedTuple, Protocol, TypeVar

_PLAIN = json.JSONEncoder(separators=(",", ":"))
_DEL = "\x7f"


def _unencodable(value: object) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _built_once() -> Callable[[Any], str]:
    make = getattr(_encoder_module, "c_make_encoder", None)
    if make is None:
        return _PLAIN.encode
    try:  # markers, default, string encoder, indent, separators, sort_keys, skipkeys, allow_nan
        ascii_encoder, raw_encoder = (
            make(None, _unencodable, escape, None, ":", ",", False, False, True)
            for escape in (
                _encoder_module.encode_basestring_ascii,
                _encoder_module.encode_basestring,
            )
        )
    except TypeError:  # another signature: not this Python's C encoder
        return _PLAIN.encode

    def encode(value: Any) -> str:
        text = "".join(raw_encoder(value, 0))
        if text.isascii() and _DEL not in text:
            return text
        return "".join(ascii_encoder(value, 0))

    return encode


encode_compact: Callable[[Any], str] = _built_once()


_escaped = _encoder_module.encode_basestring_ascii  # a string's text in the ASCII encoder's form
_FIRST_SLOT = 0xE000  # a private-use character per varying value, quoted and escaped in a template


class IdTemplates:
    """`encode_compact`'s text of items that differ only in a few string values (their ids),
    from one template per rest: the encoder's text of the item with each varying value a
    placeholder, cut at the placeholders, joined again with the values' texts between. A
    launch writes a step configuration a step, the same item but for its two ids; ~900 bytes a
    C encode of which escapes every key again (~70 k instructions) where the template escapes
    the two ids. A join copies a few pieces; a %-format would read the whole template a
    character at a time (~5x the time for a step row's 1.5 KB).

    `rest` only finds a template: one is used when the item has the template's keys in the
    same order and the same other values (C getters and comparisons), so a value the builder
    left out of `rest` costs a new template, never a wrong text. Equal values are encoded
    alike as long as a field keeps its type (a record's fields do: 1 == True would not).
    `varying` are named in the item's order; an item whose own text holds a mark's character,
    or a varying value missing or not a str, is encoded whole. The text is the ASCII
    encoder's, as encode_compact's is for any text (ASCII without DEL: the two encoders agree).
    At most `size` templates are kept; when full, they are all dropped (a process launches few
    workflows).
    """

    __slots__ = ("_marks", "_size", "_templates", "_varying", "_varying_of")

    def __init__(self, varying: tuple[str, ...], size: int = 64) -> None:
        self._varying = varying
        self._varying_of = _getter(varying)
        self._marks = tuple(chr(_FIRST_SLOT + index) for index in range(len(varying)))
        self._size = size
        self._templates: dict[Any, _Template] = {}

    def text(self, rest: Any, item: dict[str, Any]) -> str:
        try:  # a varying value missing (KeyError) or not a str (TypeError): the encoder's
            texts = tuple(map(_escaped, self._varying_of(item)))
        except (KeyError, TypeError):
            return encode_compact(item)
        template = self._templates.get(rest)
        if (
            template is None
            or template.keys != tuple(item)
            or template.fixed_of(item) != template.fixed
        ):
            template = self._made(rest, item)
        if template.parts is None:
            return encode_compact(item)
        parts = template.parts.copy()
        parts[1::2] = texts
        return "".join(parts)

    def _made(self, rest: Any, item: dict[str, Any]) -> _Template:
        marked = item.copy()
        marked.update(zip(self._varying, self._marks, strict=True))
        fixed_of = _getter(tuple(name for name in item if name not in self._varying))
        # the ASCII encoder's text, as the marks are past ASCII
        parts = _cut_at(encode_compact(marked), [_escaped(mark) for mark in self._marks])
        if len(self._templates) >= self._size:
            self._templates.clear()
        template = self._templates[rest] = _Template(tuple(item), fixed_of, fixed_of(item), parts)
        return template


class _Fitted(Protocol):
    """A row as its builder fits it (item_budget.Record): its text, when whole, and what of it
    went to the object store."""

    @property
    def json_text(self) -> str | None: ...

    @property
    def offloads(self) -> tuple[Any, ...]: ...


_Record = TypeVar("_Record", bound=_Fitted)


class RowTemplates:
    """Whole rows a builder makes again and again, alike but for a few string attributes (ids,
    the paths named by them, dates): each row kept, item and `encode_compact` text, by `key`,
    and given again with the new values put in. A launch writes a step row a step, ~35
    attributes read from the step's fields one by one and its text from an `IdTemplates`
    template; a kept row is a copy of its item and a join of its text's pieces: none of its
    other values is read, built, compared or encoded again.

    `key` must be every other input of the row - the fields it is built from, but those the
    values come from - so that two rows of equal keys differ in `names` alone; a builder takes
    it from its record's fields by name (not a hand-picked few: one left out would give a row
    another record's value). Equal keys must be of the same types (a record's fields are: a
    StrEnum equals its text). `names` are the varying attributes in the item's order: a row
    without one of them, or with one not a str, or whose own text holds a mark's character,
    is not kept (its builder builds it whole again), and a builder asks only for rows that
    hold each of them (one it leaves out when empty is given only when not empty). The kept
    items' nested lists and maps are shared by the rows given from them: a row's values are
    never changed in place (a Record's own setters replace a value). At most `size` rows are
    kept; when full, they are all dropped (a process launches few workflows).
    """

    __slots__ = ("_marks", "_names", "_rows", "_size")

    def __init__(self, names: tuple[str, ...], size: int = 64) -> None:
        self._names = names
        self._marks = tuple(chr(_FIRST_SLOT + index) for index in range(len(names)))
        self._size = size
        self._rows: dict[Hashable, tuple[dict[str, Any], list[str]]] = {}

    def row(self, key: Hashable, values: tuple[str, ...]) -> tuple[dict[str, Any], str] | None:
        """The row kept under `key` with `values` (in `names`' order) put in, and its text;
        None when none is kept."""
        kept = self._rows.get(key)
        if kept is None:
            return None
        kept_item, kept_parts = kept
        item = kept_item.copy()
        item.update(zip(self._names, values, strict=True))
        parts = kept_parts.copy()
        parts[1::2] = map(_escaped, values)
        return item, "".join(parts)

    def record(
        self,
        key: Hashable,
        values: tuple[str, ...],
        build: Callable[[], dict[str, Any]],
        fit: Callable[[dict[str, Any], str | None], _Record],
    ) -> _Record:
        """The row kept under `key` with `values` put in, fitted by `fit` with its text; when
        none is kept, the row `build` makes, fitted, and kept when it holds all of itself."""
        kept = self.row(key, values)
        if kept is not None:
            return fit(*kept)
        item = build()
        record = fit(item, None)
        if record.json_text is not None and not record.offloads:
            self.keep(key, item)
        return record

    def keep(self, key: Hashable, item: dict[str, Any]) -> None:
        """Keep `item`, as built from its record's fields, as the row of `key`."""
        if any(not isinstance(item.get(name), str) for name in self._names):
            return
        marked = item.copy()
        marked.update(zip(self._names, self._marks, strict=True))
        # the ASCII encoder's text, as the marks are past ASCII
        parts = _cut_at(encode_compact(marked), [_escaped(mark) for mark in self._marks])
        if parts is None:
            return
        if len(self._rows) >= self._size:
            self._rows.clear()
        self._rows[key] = (item.copy(), parts)


def _getter(names: tuple[str, ...]) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    """The values of `names` in an item, as a tuple (one C call; KeyError for one missing)."""
    if len(names) > 1:
        return itemgetter(*names)
    if names:
        (name,) = names
        return lambda item: (item[name],)
    return lambda item: ()


class _Template(NamedTuple):
    keys: tuple[str, ...]  # the item's, in order
    fixed_of: Callable[[dict[str, Any]], tuple[Any, ...]]  # an item's values but the varying
    fixed: tuple[Any, ...]  # the item's, those the template holds
    parts: list[str] | None  # its pieces, a "" between two; None: a mark's character in its text


def _cut_at(text: str, marks: list[str]) -> list[str] | None:
    """`text` cut at each mark in turn, a "" in each mark's place; None unless each is there
    once, in that order (a mark's character in the item's own text)."""
    parts: list[str] = []
    for mark in marks:
        head, *tail = text.split(mark)
        if len(tail) != 1:
            return None
        parts += (head, "")
        text = tail[0]
    parts.append(text)
    return parts
