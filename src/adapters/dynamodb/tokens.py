"""List tokens: the LastEvaluatedKey of a page, as base64url JSON, checked when it comes back."""

from __future__ import annotations

from collections.abc import Mapping, Set
from typing import Any

from domain.errors import InvalidInputError
from domain.paging import is_timestamp, page_token, token_fields

_REFUSED = "startingToken: not a token issued by this list"


def encode_token(last_evaluated_key: Mapping[str, Any]) -> str:
    return page_token(dict(last_evaluated_key))


def decode_token(token: str, key_names: Set[str], partition: tuple[str, str]) -> dict[str, str]:
    """The ExclusiveStartKey a token stands for, refused unless it continues this very list.

    `key_names` are the attributes the index's LastEvaluatedKey carries (table and index keys);
    `partition` is (index partition attribute, the value this list is querying).
    """
    try:
        decoded: Any = token_fields(token)
    except ValueError as exc:
        raise InvalidInputError(_REFUSED) from exc
    if (
        not isinstance(decoded, dict)
        or set(decoded) != set(key_names)
        or not all(isinstance(value, str) and value for value in decoded.values())
        or not all(is_timestamp(value) for name, value in decoded.items() if name.endswith("Date"))
    ):
        raise InvalidInputError(_REFUSED)
    attribute, value = partition
    if decoded[attribute] != value:
        raise InvalidInputError("startingToken: the token belongs to another list")
    return decoded
