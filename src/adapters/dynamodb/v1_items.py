"""The earlier table's items on DynamoDB (V1Items): a paged Scan, the one-off read of the
migration's source, which no run-time path reads (seed 000)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from adapters.dynamodb.codec import from_wire
from domain.errors import InvalidInputError

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient


class DynamoDbV1Items:
    def __init__(self, client: DynamoDBClient, table_name: str, page_size: int = 100) -> None:
        self._client, self._table, self._page_size = client, table_name, page_size

    def items(self) -> Iterator[Mapping[str, Any]]:
        # a Scan of an unchanged table visits its items in the same order every time, which
        # is what lets the checkpoint name the last item done
        start: dict[str, Any] | None = None
        while True:
            request: dict[str, Any] = {"TableName": self._table, "Limit": self._page_size}
            if start:
                request["ExclusiveStartKey"] = start
            try:
                page = self._client.scan(**request)
            except ClientError as error:
                if error.response.get("Error", {}).get("Code") != "ResourceNotFoundException":
                    raise
                # the one table wfx never creates: saying "create the tables" would mislead
                raise InvalidInputError(
                    f"--source-table: no table {self._table!r} on this DynamoDB; name the "
                    "previous release's table, or migrate from an export with --from-file"
                ) from None
            for item in page.get("Items", []):
                yield from_wire(item)
            start = page.get("LastEvaluatedKey")
            if not start:
                return
