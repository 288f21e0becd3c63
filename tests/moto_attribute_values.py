"""moto's DynamoDB answers, each attribute value put on the wire as the plain dict it already is.

moto 5.2 answers a DynamoDB request by turning its items into plain `{type: value}` dicts
(`dynamo_to_dict`), then walking them down the output's botocore shape: for every attribute
value, a structure of ten members (S, N, B, SS, NS, BS, M, L, NULL, BOOL), it reads each
member's value through its attribute picker and serializes what it finds, nested maps and lists
member by member. For a value whose one member is a string, a number, a boolean, a list of
strings or a map or list of such values, what that walk writes is the dict itself: the JSON
serializer writes strings and booleans as they are (`str()` of a str), a map as a map and a list
as a list, member by member. So the tests' moto writes those values as they are, copied, and
hands anything else to moto's own walk: binary values (base64 on the wire), any other type,
a dict of more than one key or of a key that is no member's name, a value the serializer would
transform (a picker with response transformers), a shape that is not DynamoDB's.
`tests/integration/test_moto_attribute_values.py` checks the answer is moto's own.
"""

from __future__ import annotations

from typing import Any

_TEXT = frozenset({"S", "N"})
_FLAG = frozenset({"NULL", "BOOL"})
_TEXTS = frozenset({"SS", "NS"})


def attribute_value(value: Any) -> Any:
    """`value` as moto's JSON serializer writes an AttributeValue, or None where this does
    not know (moto's own walk then writes it)."""
    if type(value) is not dict or len(value) != 1:
        return None
    ((kind, member),) = value.items()
    if kind in _TEXT:
        return {kind: member} if type(member) is str else None
    if kind in _FLAG:
        return {kind: member} if type(member) is bool else None
    if kind in _TEXTS:
        if type(member) is not list or any(type(text) is not str for text in member):
            return None
        return {kind: list(member)}
    if kind == "M" and type(member) is dict:
        written = {name: attribute_value(entry) for name, entry in member.items()}
        return None if None in written.values() else {kind: written}
    if kind == "L" and type(member) is list:
        items = [attribute_value(entry) for entry in member]
        return None if None in items else {kind: items}
    return None


def _plain(serializer: Any, shape: Any, key: str) -> bool:
    """Whether moto's walk of this structure would write the values as they are."""
    picker = serializer._value_picker
    return (
        bool(key)
        and shape.name == "AttributeValue"
        and serializer.service_model.service_name == "dynamodb"
        and not getattr(picker, "response_transformers", None)
    )


def write_attribute_values_as_they_are() -> None:
    from moto.core import serialize

    serializer_class: Any = getattr(serialize, "BaseJSONSerializer", None)
    walk: Any = getattr(serializer_class, "_serialize_type_structure", None)
    known_to_work = walk is not None and hasattr(serializer_class, "_default_serialize")
    if not known_to_work:
        return  # another moto's serializer: left as it is, slower and never wrong
    if getattr(walk, "wfx_moto_walk", None) is not None:
        return

    def serialize_structure(
        serializer: Any, serialized: Any, value: Any, shape: Any, key: str
    ) -> None:
        """BaseJSONSerializer._serialize_type_structure, an attribute value written as it is."""
        if _plain(serializer, shape, key):
            wire = attribute_value(value)
            if wire is not None:
                serializer._default_serialize(serialized, wire, shape, key)
                return
        walk(serializer, serialized, value, shape, key)

    serialize_structure.wfx_moto_walk = walk  # type: ignore[attr-defined]
    serializer_class._serialize_type_structure = serialize_structure
