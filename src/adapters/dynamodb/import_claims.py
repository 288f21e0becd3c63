"""A claim on a run while an import writes it on DynamoDB, so two imports of two states of one
run never mix their rows (docs/architecture.md, "Importing a run on DynamoDB").

A run's items are more than one transaction holds, so an import looks at the run (its main row,
its steps' ids) and then writes item by item; another import of the run landing in between
would find its own look untrue. Each import therefore first puts one claim item, on condition
that none is there, and holds it until it has written the run: the other import waits for it
(`wait_seconds`), then looks at what the first left, as on SQLite, where the second waits for
the first's write transaction. The item lives in wfx's own authorization table, under a
partition prefix no read there takes (adapters/authorization_records.py).

A killed import cannot delete its claim: a claim past its expiry (CLAIM_SECONDS after its last
renewal) may be taken over, and DynamoDB's TTL removes a dead one later. The import renews its
claim once RENEW_SECONDS have passed since the last renewal, before its next write, so a live
import keeps it however long it takes; only a single request that hangs longer than
CLAIM_SECONDS - RENEW_SECONDS could lose it (wfx's clients give up on one within a minute,
entrypoints/aws_clients.py), and then the import is refused at its next write.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from botocore.exceptions import ClientError

from adapters.authorization_records import (
    PARTITION,
    build_import_claim_record,
    import_claim_key,
)
from adapters.dynamodb.codec import to_wire
from adapters.dynamodb.requests import get_item
from adapters.records import format_table_date
from adapters.run_archive import ClaimLapsedError
from adapters.tables import REVOKED_TOKEN_EXPIRY, ResourceKeys, TableNames
from application.ports.migration import RunRefusedError

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

# Ten minutes: far past anything one request may take with its retries, short enough that an
# import of a run a killed import claimed need not wait long.
CLAIM_SECONDS = 600
RENEW_SECONDS = 60
# How long an import waits for another import of the same run to end, as SQLite's busy
# timeout (5 s) lets the second import wait for the first's write transaction; longer, as
# DynamoDB writes a run item by item.
WAIT_SECONDS = 10.0
_POLL_SECONDS = 0.25


class ImportClaims:
    """Claims on runs being imported: `held(run)` around an import, `keep()` before each write."""

    def __init__(
        self,
        client: DynamoDBClient,
        tables: TableNames,
        wait_seconds: float = WAIT_SECONDS,
    ) -> None:
        self._client = client
        self._table = tables.get_table_name(ResourceKeys.AUTHORIZATION)
        self._wait_seconds = wait_seconds
        self._held: tuple[str, str, float, int] | None = None  # run, token, renewed, line

    @contextmanager
    def held(self, workflow_execution_id: str, line: int) -> Iterator[None]:
        """The run claimed while the block runs, or RunRefusedError (`line`: the run's first)
        once another import has held it for `wait_seconds`."""
        token = uuid.uuid4().hex
        self._take(workflow_execution_id, token, line)
        self._held = (workflow_execution_id, token, time.monotonic(), line)
        try:
            yield
        finally:
            self._held = None
            self._release(workflow_execution_id, token)

    def keep(self) -> None:
        """Renew the claim held when RENEW_SECONDS have passed; refused if it was taken over."""
        if self._held is None:
            return
        run_id, token, renewed, line = self._held
        if time.monotonic() - renewed < RENEW_SECONDS:
            return
        try:
            self._client.update_item(
                TableName=self._table,
                Key=to_wire(import_claim_key(run_id)),
                UpdateExpression="SET #expires = :expires",
                ConditionExpression="#token = :token",
                ExpressionAttributeNames={"#expires": REVOKED_TOKEN_EXPIRY, "#token": "claimToken"},
                ExpressionAttributeValues=to_wire({":expires": self._expiry(), ":token": token}),
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            raise ClaimLapsedError(
                line,
                f"this import's claim on run {run_id!r} lapsed and another import took it over "
                "(one of its writes took longer than the claim lasts): the run may hold rows "
                f"of both; delete it (wfx executions delete {run_id}) and import it again",
            ) from exc
        self._held = (run_id, token, time.monotonic(), line)

    def _take(self, run_id: str, token: str, line: int) -> None:
        deadline = time.monotonic() + self._wait_seconds
        while True:
            now = time.time()
            claimed_at = format_table_date(datetime.fromtimestamp(now, UTC))
            record = build_import_claim_record(run_id, token, claimed_at, self._expiry())
            try:
                self._client.put_item(
                    TableName=self._table,
                    Item=to_wire(record),
                    # none, or a claim a killed import left to expire
                    ConditionExpression="attribute_not_exists(#pk) OR #expires < :now",
                    ExpressionAttributeNames={"#pk": PARTITION, "#expires": REVOKED_TOKEN_EXPIRY},
                    ExpressionAttributeValues=to_wire({":now": int(now)}),
                )
                return
            except ClientError as exc:
                if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                    raise
            if time.monotonic() >= deadline:
                raise RunRefusedError(line, self._taken(run_id))
            time.sleep(_POLL_SECONDS)

    def _taken(self, run_id: str) -> str:
        holder = get_item(self._client, self._table, import_claim_key(run_id)) or {}
        since = holder.get("claimedAt", "a moment ago")
        expires = holder.get(REVOKED_TOKEN_EXPIRY)
        lapses = (
            f"; if it was killed, its claim lapses at "
            f"{format_table_date(datetime.fromtimestamp(int(expires), UTC))}"
            if isinstance(expires, int)
            else ""
        )
        return (
            f"another import of run {run_id!r} has been writing it since {since} (nothing of "
            f"the run imported by this one); import the file again once that one has ended{lapses}"
        )

    def _release(self, run_id: str, token: str) -> None:
        try:
            self._client.delete_item(
                TableName=self._table,
                Key=to_wire(import_claim_key(run_id)),
                # never another import's, which took over a claim this one let lapse
                ConditionExpression="#token = :token",
                ExpressionAttributeNames={"#token": "claimToken"},
                ExpressionAttributeValues=to_wire({":token": token}),
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise

    def _expiry(self) -> int:
        return int(time.time()) + CLAIM_SECONDS
