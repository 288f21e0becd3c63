"""moto's response serializer, asking once per shape which attribute names a member may have.

moto 5.2 builds each answer from its model objects by walking the botocore shape of the output,
and for every member of every structure asks six alias providers which names the value may go
by (`AttributePicker.get_possible_keys`). In a DynamoDB answer each attribute value is such a
structure (ten members: S, N, M, L, ...), so a query of a few rows with lists of maps asked it
tens of thousands of times: three quarters of the CPU of the tests that write large items on
moto went there. The names depend only on the member's shape, the structure it is in, the key
and the class of the object read (its `Meta`, its name), never on the value, so the tests' moto
keeps them, per shape, for every object whose instance carries no `Meta` of its own; the
values are read as before, and the answer is the same.
"""

from __future__ import annotations

from typing import Any


def _names_key(picker: Any, obj: Any, key: str, shape: Any) -> tuple[Any, ...] | None:
    """What the names of `key` in `obj` depend on; None where they may depend on more."""
    if shape is None or "Meta" in getattr(obj, "__dict__", ()):
        return None  # an instance's own aliases: asked each time, as moto does
    parent = getattr(shape, "parent", None)
    place = None if parent is None else (parent.name, parent.type_name)
    return (type(picker), tuple(picker.alias_providers), type(obj), key, place)


def _names(picker: Any, context: Any) -> tuple[str, ...]:
    """`picker.get_possible_keys(context)`, asked once per shape and `_names_key`."""
    key = _names_key(picker, context.obj, context.key, context.shape)
    if key is None:
        return tuple(picker.get_possible_keys(context))
    known: dict[tuple[Any, ...], tuple[str, ...]]
    known = context.shape.__dict__.setdefault("_wfx_attribute_names", {})
    found = known.get(key)
    if found is None:
        found = known[key] = tuple(picker.get_possible_keys(context))
    return found


def _first_reader(missing: Any, get_value: Any) -> Any:
    """AttributePicker's read, with moto's `MISSING` and `get_value` bound once (it runs
    millions of times in the DynamoDB tests): the value of the first of `names` `obj` has,
    or None."""

    def first(obj: Any, names: tuple[str, ...]) -> Any:
        plain = type(obj) is dict  # get_value's answer for a key with no dot in it, sooner
        for name in names:
            value = (
                obj.get(name, missing)
                if plain and "." not in name
                else get_value(obj, name, missing)
            )
            if value is not missing:
                return value
        return None

    return first


def cache_attribute_names() -> None:
    from moto.core import serialize, utils

    picker_class: Any = getattr(serialize, "AttributePicker", None)
    serializer_class: Any = getattr(serialize, "ResponseSerializer", None)
    known_to_work = (
        hasattr(picker_class, "get_possible_keys")
        and hasattr(serializer_class, "get_value")
        and hasattr(utils, "MISSING")
        and hasattr(utils, "get_value")
    )
    if not known_to_work:
        return  # another moto's serializer: left as it is, slower and never wrong
    if getattr(picker_class.__call__, "wfx_cached", False):
        return
    _first = _first_reader(utils.MISSING, utils.get_value)  # type: ignore[attr-defined]

    def pick(picker: Any, context: Any) -> Any:
        """AttributePicker.__call__, its names kept."""
        value = _first(context.obj, _names(picker, context))
        key_path = f"{context.key_path}.{context.key}"
        for transform_path, transform in picker.response_transformers.items():
            if key_path.endswith(transform_path):
                value = transform(value)
                break
        return value

    asked = serializer_class.get_value

    def get_value(serializer: Any, value: Any, key: str, shape: Any) -> Any:
        """ResponseSerializer.get_value, with no context made where the names are known and
        no transformer reads the key's path."""
        picker = serializer._value_picker
        names = None
        if type(picker).__call__ is pick and not picker.response_transformers:
            known = _names_key(picker, value, key, shape)
            if known is not None:
                names = shape.__dict__.get("_wfx_attribute_names", {}).get(known)
        if names is None:
            return asked(serializer, value, key, shape)
        return _first(value, names)

    pick.wfx_cached = True  # type: ignore[attr-defined]
    picker_class.__call__ = pick
    serializer_class.get_value = get_value
