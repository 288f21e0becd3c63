"""Records the domain derives from already-valid parts, built without validating them again.

Validation stays where values enter (commands, request bodies, rows read back, events from
outside). A record the domain builds by its own rules from values that passed it - a step's
attempt, a run's events, a step as a move leaves it - would only pay for the same checks twice
(a whole pydantic validation each, ~59 a warm run before this). `derived` makes the instance as
`_Record._replace` does; each caller says, where it is not plain, why the fields' rules still
hold. `tests/unit/test_derived_records.py` checks each such builder against validation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from datetime import datetime
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform

from pydantic import BaseModel

_Model = TypeVar("_Model", bound=BaseModel)
_Record = TypeVar("_Record")


@dataclass_transform(frozen_default=True, kw_only_default=True)
def written_record(cls: type[_Record]) -> type[_Record]:
    """A record the domain builds by its own rules and the stores write (an event, an
    attempt): a slotted class with its fields as keywords, frozen to the type checker. At run
    time it is not frozen: a frozen dataclass sets each field through `object.__setattr__`
    (26.7 k instructions for an event, against 16.3 k for `derived` and 9.0 k here), and a slot
    is read without pydantic's `__getattr__` hook (1.6 k for an event's 14 fields, against
    4.6 k). Its fields are given by the domain's own rules, unvalidated as `derived` builds
    them; values from outside (a row read back) are validated by a pydantic `TypeAdapter` of
    the class (its annotations carry the rules)."""
    return dataclass(slots=True, kw_only=True, unsafe_hash=True)(cls)


@dataclass_transform(frozen_default=True)
def decided_value(cls: type[_Record]) -> type[_Record]:
    """A value the domain decides and its callers pass on as it is (a step's move, a run's
    change, a write): a slotted dataclass, frozen to the type checker and compared and hashed
    as a frozen one, but not frozen at run time, as `written_record`: a frozen dataclass sets
    each field through `object.__setattr__`, four times the cost of a StepMove's twelve (seven
    moves, three or four writes a warm run)."""
    return dataclass(slots=True, unsafe_hash=True)(cls)


_READERS: dict[type, tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]] = {}


def written_fields(record: object) -> dict[str, Any]:
    """A written record's fields by name, as keywords for a record built from it (an event
    given its number), without `dataclasses.asdict`'s deep copy."""
    kind = type(record)
    reader = _READERS.get(kind)
    if reader is None:
        names = tuple(field.name for field in fields(kind))  # type: ignore[arg-type]
        reader = _READERS[kind] = (names, attrgetter(*names))
    names, values = reader
    return dict(zip(names, values(record), strict=True))


_REQUIRED = object()  # a template's mark for a field with no default


class _Template:
    """A model's fields in their order with their defaults, the names a build must give, and
    the combinations of names already found right (checked once each, not on every build),
    each with the fields set its builds hold: one set for them all when the model is frozen,
    as nothing changes a frozen model's set (assignment is refused, model_copy adds to a copy
    of it), so a build need not allocate its own (~20 a warm run); a copy each otherwise."""

    __slots__ = ("factories", "fields", "fields_sets", "frozen", "required")

    def __init__(self, model: type[BaseModel]) -> None:
        self.fields: dict[str, Any] = {}
        self.factories: dict[str, Any] = {}
        for name, info in model.model_fields.items():
            if info.default_factory is not None:
                self.factories[name] = info.default_factory
                self.fields[name] = _REQUIRED
            else:
                self.fields[name] = _REQUIRED if info.is_required() else info.default
        self.required = frozenset(
            name
            for name, value in self.fields.items()
            if value is _REQUIRED and name not in self.factories
        )
        self.fields_sets: dict[tuple[str, ...], set[str]] = {}
        self.frozen = bool(model.model_config.get("frozen"))

    def check(self, model: type[BaseModel], names: tuple[str, ...]) -> set[str]:
        """The fields set of the builds giving `names`, once they are found right."""
        unknown = sorted(set(names) - self.fields.keys())
        missing = sorted(self.required - set(names))
        if unknown or missing:
            raise TypeError(f"{model.__name__}: unknown fields {unknown}, missing fields {missing}")
        fields_set = self.fields_sets[names] = set(names)
        return fields_set


_TEMPLATES: dict[type[BaseModel], _Template] = {}
# BaseModel's slots, set through their descriptors (cheaper than object.__setattr__ by name)
_set_dict = vars(BaseModel)["__dict__"].__set__
_set_fields_set = vars(BaseModel)["__pydantic_fields_set__"].__set__
_set_extra = vars(BaseModel)["__pydantic_extra__"].__set__
_set_private = vars(BaseModel)["__pydantic_private__"].__set__


def derived(model: type[_Model], /, **fields: Any) -> _Model:
    """An instance of `model` holding `fields` (and the defaults of the rest), unvalidated.

    Only the field names are checked (a misspelt or missing one is a programming error that
    validation would have caught), once per combination: ~1.5 µs against 3-10 µs for a
    validation.
    """
    template = _TEMPLATES.get(model)
    if template is None:
        template = _TEMPLATES[model] = _Template(model)
    names = tuple(fields)
    fields_set = template.fields_sets.get(names)
    if fields_set is None:
        fields_set = template.check(model, names)
    values = template.fields | fields  # the template's order: the model's field order
    if template.factories:
        for name, factory in template.factories.items():
            if name not in fields:
                values[name] = factory()
    # the instance's four parts set here and in `replaced`, not in a helper both call: a call
    # more on each of the ~30 records a warm run derives or copies
    instance = object.__new__(model)
    _set_dict(instance, values)
    _set_fields_set(instance, fields_set if template.frozen else set(fields_set))
    _set_extra(instance, None)
    _set_private(instance, None)
    return instance


def replaced(instance: _Model, changes: dict[str, Any]) -> _Model:
    """`instance.model_copy(update=changes)`, unvalidated as that is, at half its cost (its
    parts set as `derived` sets them, where model_copy passes each through copy.copy): for
    changes derived from valid values. The model has no extras and no private attributes."""
    copy = object.__new__(type(instance))
    _set_dict(copy, instance.__dict__ | changes)
    _set_fields_set(copy, instance.__pydantic_fields_set__ | changes.keys())
    _set_extra(copy, None)
    _set_private(copy, None)
    return copy


def aware(moment: datetime, field: str) -> datetime:
    """`moment` as an AwareDatetime field takes it: the one rule of a clock's reading that a
    derived record would otherwise not check (the domain has no clock; its callers pass one)."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{field}: {moment.isoformat()} has no time zone")
    return moment
