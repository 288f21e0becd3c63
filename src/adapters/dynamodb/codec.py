"""Plain record dicts to DynamoDB attribute values and back, and the key guards run before writes.

boto3 is imported lazily: importing this package must stay cheap for a process that never talks to
DynamoDB (the container names these classes on the SQLite path too).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from functools import cache
from typing import TYPE_CHECKING, Any

from adapters.tables import KeyAttribute, TableSpec

if TYPE_CHECKING:
    from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

Item = dict[str, Any]
WireItem = dict[str, Any]


@cache
def _serializer() -> TypeSerializer:
    from boto3.dynamodb.types import TypeSerializer

    return TypeSerializer()


@cache
def _deserializer() -> TypeDeserializer:
    from boto3.dynamodb.types import TypeDeserializer

    return TypeDeserializer()


def to_wire(item: Mapping[str, Any]) -> WireItem:
    serialize = _serializer().serialize
    return {name: serialize(_numbers(value)) for name, value in item.items()}


def _numbers(value: Any) -> Any:
    """boto3 refuses a float (a retry policy's backoffRate): send it as the Decimal it reads as."""
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, list):
        return [_numbers(element) for element in value]
    if isinstance(value, dict):
        return {name: _numbers(element) for name, element in value.items()}
    return value


def from_wire(item: Mapping[str, Any]) -> Item:
    deserialize = _deserializer().deserialize
    return {name: _plain(deserialize(value)) for name, value in item.items()}


def _plain(value: Any) -> Any:
    """DynamoDB numbers come back as Decimal; the record parsers expect ints."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, list):
        return [_plain(element) for element in value]
    if isinstance(value, dict):
        return {name: _plain(element) for name, element in value.items()}
    return value


def key_of(spec: TableSpec, item: Mapping[str, Any]) -> Item:
    """The table key of a record, as plain values."""
    return {attribute.name: item[attribute.name] for attribute in spec.key_attributes}


def check_key_values(table_name: str, spec: TableSpec, values: Mapping[str, Any]) -> None:
    """Refuse a table or index key attribute that is empty or of the wrong type.

    AWS rejects both; moto lets an empty string through an aliased UpdateItem and accepts a
    number where the index declares a string, so the check cannot be left to the service.
    """
    for attribute in spec.all_key_attributes:
        if attribute.name in values:
            _check_key_value(table_name, attribute, values[attribute.name])


def check_item(table_name: str, spec: TableSpec, item: Mapping[str, Any]) -> None:
    """A whole item: every table key attribute present, every key attribute well formed."""
    for attribute in spec.key_attributes:
        if attribute.name not in item:
            raise ValueError(f"{table_name}: the item has no key attribute {attribute.name!r}")
    check_key_values(table_name, spec, item)


def _check_key_value(table_name: str, attribute: KeyAttribute, value: Any) -> None:
    if attribute.type == "S":
        if not isinstance(value, str):
            raise ValueError(
                f"{table_name}: key attribute {attribute.name!r} must be a string, "
                f"got {type(value).__name__}"
            )
        if value == "":
            raise ValueError(
                f"{table_name}: key attribute {attribute.name!r} must not be an empty string"
            )
    elif isinstance(value, bool) or not isinstance(value, int | Decimal):
        raise ValueError(
            f"{table_name}: key attribute {attribute.name!r} must be a number, "
            f"got {type(value).__name__}"
        )
