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

The claim names the state the import writes (a digest of its main row). An import cut short
(Ctrl-C, the network) keeps it, with no expiry, as a mark of the part it left: the same state's
next import takes it over and finishes the run; another state's, finding that part with no main
row, is refused, so the two are never mixed.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from botocore.exceptions import ClientError

from adapters.authorization_records import (
    IMPORT_CLAIM_STATE,
    PARTITION,
    build_import_claim_record,
    import_claim_key,
)
from adapters.dynamodb.codec import from_wire, to_wire
from adapters.dynamodb.requests import get_item
from adapters.records import Item, format_table_date
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
    def held(
        self, workflow_execution_id: str, line: int, state: str, part_stored: Callable[[], bool]
    ) -> Iterator[None]:
        """The run claimed while the block imports its `state` (a digest of its main row), or
        RunRefusedError (`line`: the run's first) once another import has held it for
        `wait_seconds`, or when an import of another state was cut short and left part of it
        (`part_stored`: the run has items of its own but no main row)."""
        run_id, token = workflow_execution_id, uuid.uuid4().hex
        left = self._take(run_id, token, state, line)
        if left is not None and left.get(IMPORT_CLAIM_STATE) != state and part_stored():
            # it still marks what that import left, with no expiry now: a killed import's too
            self._put_back({k: v for k, v in left.items() if k != REVOKED_TOKEN_EXPIRY}, token)
            raise RunRefusedError(line, _cut_short(run_id, left))
        self._held = (run_id, token, time.monotonic(), line)
        try:
            yield
        except RunRefusedError:
            self._release(run_id, token)  # a refused import took back what it wrote of its own
            raise
        except BaseException:
            self._lapse(run_id, token)  # cut short: part of this state may be stored
            raise
        else:
            self._release(run_id, token)
        finally:
            self._held = None

    def keep(self) -> None:
        """Renew the claim held when RENEW_SECONDS have passed; refused if it was taken over."""
        if self._held is None:
            return
        run_id, token, renewed, line = self._held
        if time.monotonic() - renewed < RENEW_SECONDS:
            return
        try:
            self._update_own(run_id, token, "SET #expires = :expires", {":expires": self._expiry()})
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

    def _take(self, run_id: str, token: str, state: str, line: int) -> Item | None:
        """The claim put; the one it replaced (a killed or cut-short import's), if any."""
        deadline = time.monotonic() + self._wait_seconds
        while True:
            now = time.time()
            claimed_at = format_table_date(datetime.fromtimestamp(now, UTC))
            record = build_import_claim_record(run_id, token, claimed_at, self._expiry(), state)
            try:
                response = self._client.put_item(
                    TableName=self._table,
                    Item=to_wire(record),
                    # none, a cut-short import's mark, or a claim a killed import left to expire
                    ConditionExpression=(
                        "attribute_not_exists(#pk) OR attribute_not_exists(#expires) "
                        "OR #expires < :now"
                    ),
                    ExpressionAttributeNames={"#pk": PARTITION, "#expires": REVOKED_TOKEN_EXPIRY},
                    ExpressionAttributeValues=to_wire({":now": int(now)}),
                    ReturnValues="ALL_OLD",
                )
                old = response.get("Attributes")
                return from_wire(old) if old else None
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

    def _put_back(self, left: Item, token: str) -> None:
        self._client.put_item(
            TableName=self._table,
            Item=to_wire(left),
            ConditionExpression="#token = :token",
            ExpressionAttributeNames={"#token": "claimToken"},
            ExpressionAttributeValues=to_wire({":token": token}),
        )

    def _lapse(self, run_id: str, token: str) -> None:
        """The claim kept with no expiry, a mark of what this import left: the next import of
        this state takes it over at once and finishes the run; one of another state finds that
        part (best effort: the store may be what cut it short, and then the claim expires as a
        killed import's does). Without its TTL, DynamoDB keeps the mark until an import of the
        run takes it over."""
        try:
            self._update_own(run_id, token, "REMOVE #expires", {})
        except Exception:  # on the way out of another error, the one that must surface
            return

    def _update_own(self, run_id: str, token: str, update: str, values: dict[str, object]) -> None:
        """The claim's expiry updated, on condition the claim is this import's."""
        self._client.update_item(
            TableName=self._table,
            Key=to_wire(import_claim_key(run_id)),
            UpdateExpression=update,
            ConditionExpression="#token = :token",
            ExpressionAttributeNames={"#expires": REVOKED_TOKEN_EXPIRY, "#token": "claimToken"},
            ExpressionAttributeValues=to_wire({":token": token, **values}),
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


def _cut_short(run_id: str, left: Item) -> str:
    return (
        f"an import of another state of run {run_id!r} was cut short (it began at "
        f"{left.get('claimedAt', '?')}) and left part of it (nothing of the run imported by this "
        "one): import that file again to finish it, or delete what it left (wfx executions "
        f"delete {run_id}), then import this file"
    )
