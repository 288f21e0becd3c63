"""Which tables a DynamoDB request used, on the ResourceNotFoundException it got back.

DynamoDB's answer ("Requested resource not found") names no table, so the request's table names
are put in the error, at `error.response["Error"]["TableNames"]`, for the message that says
which table to create.
"""

from __future__ import annotations

from typing import Any

TABLE_NAMES = "TableNames"
_REQUESTED = "wfx_requested_tables"


def name_missing_tables(client: Any) -> Any:
    """`client`, its ResourceNotFoundExceptions naming the tables of their request."""
    client.meta.events.register("before-parameter-build.dynamodb", _remember_tables)
    client.meta.events.register("after-call.dynamodb", _name_tables)
    return client


def _remember_tables(params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
    names = [params["TableName"]] if "TableName" in params else []
    names += list(params.get("RequestItems", {}))
    for item in params.get("TransactItems", []):
        names += [action["TableName"] for action in item.values() if "TableName" in action]
    context[_REQUESTED] = list(dict.fromkeys(names))


def _name_tables(parsed: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
    error = parsed.get("Error")
    if isinstance(error, dict) and error.get("Code") == "ResourceNotFoundException":
        error[TABLE_NAMES] = context.get(_REQUESTED, [])
