"""The event log's writes on DynamoDB: a transition's own actions and its events in one
TransactWriteItems, numbered by a counter on the run's main row.

The transaction holds, beside the caller's actions: one Put per event, conditional on its number
being free, and the main row's `SET lastSequenceNumber = :n` conditional on the counter being
`:n - k` (absent, for the first events). The counter is merged into the caller's own action on
the main row where there is one (a transaction may touch an item once). A writer that loses the
race for the counter learns the stored number from the failed condition (ALL_OLD) and tries
again with the next; a failed condition of the caller's refuses everything, events included.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from adapters.dynamodb.codec import Item, from_wire, to_wire
from adapters.event_records import (
    LAST_SEQUENCE_NUMBER,
    SEQUENCE_NUMBER,
    build_execution_event_record,
    parse_execution_event_record,
)
from adapters.item_budget import OffloadedBodies
from adapters.tables import ResourceKeys, TableNames
from application.ports.executions import EventNumberTakenError
from domain.errors import ExecutionNotFoundError
from domain.events import ExecutionEvent, NewEvent
from domain.paging import Page

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

# kind ("Put", "Update", "ConditionCheck"), the error its failed condition means, the request
Action = tuple[str, Exception | None, dict[str, Any]]

# Each lost race means another writer took the number. A writer that has just won knows the next
# number and tends to win again, so under a flood of writers to one run a loser may lose hundreds
# in a row: it backs off (so its tries cost the table little) and gives up only after this many.
MAX_COUNTER_RACES = 2000
_TRANSACTION_CONFLICT_TRIES = 5
# A counter behind its log is moved up to the log's last number and the write tried again; more
# than this in one write means something keeps writing the log past the counter.
_COUNTER_REPAIRS = 3
_FIRST_BACKOFF_SECONDS = 0.001
_MAX_BACKOFF_SECONDS = 0.05
_MAIN_KEYS_KEPT = 1024


class TransactionRefusedError(Exception):
    """A condition of the caller's own actions failed: nothing was written. `position` is that
    action's index in the caller's list, `reason` its cancellation reason (with ALL_OLD);
    `main_row` the main row as stored (decoded) when the caller's action on it failed its
    condition too, the old image DynamoDB returned with the refusal (None: not known)."""

    def __init__(
        self, position: int, reason: Mapping[str, Any], main_row: Item | None = None
    ) -> None:
        super().__init__(f"action {position}: {reason.get('Code')}")
        self.position, self.reason, self.main_row = position, reason, main_row


def _main_row_image(reasons: Sequence[Mapping[str, Any]], main_position: int | None) -> Item | None:
    """The main row's old image in a refusal's reasons, when the caller's action on it (which
    the counter joins) failed its condition; None when it has none there."""
    if main_position is None or main_position >= len(reasons):
        return None
    reason = reasons[main_position]
    if reason.get("Code") != "ConditionalCheckFailed" or not reason.get("Item"):
        return None
    return from_wire(reason["Item"])


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def _joined_by_counter(
    action: Action,
    counter_term: str,
    counter_names: dict[str, str],
    counter_values: dict[str, Any],
) -> dict[str, Any]:
    """The caller's action on the main row as an Update that moves the counter too."""
    kind, _, request = action
    merged = dict(request)
    expression = str(merged.pop("UpdateExpression", "")) if kind == "Update" else ""
    if expression.startswith("SET "):
        expression = f"SET #lastSeq = :nextSeq, {expression[4:]}"
    else:
        expression = f"SET #lastSeq = :nextSeq {expression}".strip()
    merged["UpdateExpression"] = expression
    merged["ConditionExpression"] = f"({merged['ConditionExpression']}) AND {counter_term}"
    merged["ExpressionAttributeNames"] = {
        **merged.get("ExpressionAttributeNames", {}),
        **counter_names,
    }
    merged["ExpressionAttributeValues"] = {
        **merged.get("ExpressionAttributeValues", {}),
        **counter_values,
    }
    merged["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    return {"Update": merged}


def _backoff_before(race: int) -> None:
    """A random pause, its ceiling doubling with each race lost."""
    ceiling = min(_MAX_BACKOFF_SECONDS, _FIRST_BACKOFF_SECONDS * 2 ** min(race, 8))
    time.sleep(random.uniform(0, ceiling))


def _counter_moved(
    exc: ClientError,
    counter: Mapping[str, Any],
    last: int,
    main_position: int | None,
    not_found: Exception,
) -> int:
    """The counter's condition failed: its number now, when another writer moved it from
    `last`; otherwise the main row is gone, or the caller's condition on it failed."""
    old = counter.get("Item")
    if not old:
        raise not_found from exc
    stored = int(from_wire(old).get(LAST_SEQUENCE_NUMBER, 0))
    if stored != last:
        return stored
    if main_position is not None:  # the caller's own condition on the main row failed
        raise TransactionRefusedError(main_position, counter, from_wire(old)) from exc
    raise not_found from exc


def _refused_on_its_own(
    reasons: Sequence[Mapping[str, Any]], counter_position: int, actions: int
) -> int | None:
    """The first of the caller's actions, the counter's aside, whose condition failed on an item
    that is there (its old image returned): a guard of its own, which no event number changes.
    None when there is none (an item missing is left to the counter's answer, as before)."""
    for position, reason in enumerate(reasons[:actions]):
        failed = reason.get("Code") == "ConditionalCheckFailed" and reason.get("Item")
        if failed and position != counter_position:
            return position
    return None


def _first_failed_condition(
    reasons: Sequence[Mapping[str, Any]], counter_position: int
) -> int | None:
    """The first item whose condition failed, the counter's aside; None when none did."""
    for position, reason in enumerate(reasons):
        if reason.get("Code") == "ConditionalCheckFailed" and position != counter_position:
            return position
    return None


class DynamoDbUnitOfWork:
    """UnitOfWork and ExecutionEvents on DynamoDB; the execution store writes through it too."""

    def __init__(self, client: DynamoDBClient, tables: TableNames, bodies: OffloadedBodies) -> None:
        self._client = client
        self._events_table = tables.get_table_name(ResourceKeys.EXECUTION_EVENTS)
        self._main_table = tables.get_table_name(ResourceKeys.WORKFLOW_EXECUTIONS)
        self._bodies = bodies
        # the last number this process saw per run: a good guess saves a read before each write
        self._last: dict[str, int] = {}
        self._main_keys: dict[str, dict[str, str]] = {}

    # -- ExecutionEvents ----------------------------------------------------------------------

    def events_after(
        self, workflow_execution_id: str, after_sequence: int, limit: int
    ) -> Page[ExecutionEvent]:
        if not workflow_execution_id:
            return Page(items=())
        response = self._client.query(
            TableName=self._events_table,
            KeyConditionExpression="#pk = :pk AND #seq > :after",
            ExpressionAttributeNames={"#pk": "workflowExecutionId", "#seq": SEQUENCE_NUMBER},
            ExpressionAttributeValues={
                ":pk": {"S": workflow_execution_id},
                ":after": {"N": str(after_sequence)},
            },
            ConsistentRead=True,
            Limit=limit,
        )
        events = tuple(
            parse_execution_event_record(self._bodies.restore(from_wire(item)))
            for item in response["Items"]
        )
        more = bool(response.get("LastEvaluatedKey")) and bool(events)
        return Page(items=events, next_token=str(events[-1].sequence_number) if more else None)

    # -- UnitOfWork ---------------------------------------------------------------------------

    def append_events(
        self, workflow_execution_id: str, events: Sequence[NewEvent]
    ) -> tuple[ExecutionEvent, ...]:
        main_key = self.main_key(workflow_execution_id)
        if main_key is None:
            raise ExecutionNotFoundError(workflow_execution_id)
        return self.transact(
            workflow_execution_id,
            main_key,
            [],
            None,
            events,
            ExecutionNotFoundError(workflow_execution_id),
        )

    def main_key(self, workflow_execution_id: str) -> dict[str, str] | None:
        """The main row's key (its sort key, the workflow, never changes: looked up once)."""
        key = self._main_keys.get(workflow_execution_id)
        if key is not None or not workflow_execution_id:
            return key
        response = self._client.query(
            TableName=self._main_table,
            KeyConditionExpression="#pk = :pk",
            ExpressionAttributeNames={"#pk": "workflowExecutionId"},
            ExpressionAttributeValues={":pk": {"S": workflow_execution_id}},
            ConsistentRead=True,
        )
        if not response["Items"]:
            return None
        return self.main_row_read(from_wire(response["Items"][0]))

    def main_row_read(self, item: Mapping[str, Any]) -> dict[str, str]:
        """A main row as read (decoded): its key kept, and its counter, a guess for the next
        write that saves that write its read of the counter (a cold process's first write after
        its read of the row: an abort's request). A counter moved since is learnt from the
        failed condition, as from any guess; the higher of two guesses is kept."""
        key = {
            "workflowExecutionId": str(item["workflowExecutionId"]),
            "workflowDatabaseId:workflowId": str(item["workflowDatabaseId:workflowId"]),
        }
        self._keep(key, int(item.get(LAST_SEQUENCE_NUMBER, 0)))
        return key

    def launched(self, main_key: Mapping[str, str], last_sequence_number: int) -> None:
        """A run this process has just written: its key, and its counter as written (a guess
        like any other: a counter moved since is learnt from the failed condition)."""
        self._keep(dict(main_key), last_sequence_number, replace=True)

    def _keep(self, main_key: dict[str, str], last: int, replace: bool = False) -> None:
        workflow_execution_id = main_key["workflowExecutionId"]
        if len(self._main_keys) >= _MAIN_KEYS_KEPT:
            self._main_keys.pop(next(iter(self._main_keys)))
        self._main_keys[workflow_execution_id] = main_key
        if workflow_execution_id not in self._last and len(self._last) >= _MAIN_KEYS_KEPT:
            # every run read leaves its guess: the oldest go (a guess gone costs a read)
            self._last.pop(next(iter(self._last)))
        if replace:
            self._last[workflow_execution_id] = last
        else:
            self._last[workflow_execution_id] = max(self._last.get(workflow_execution_id, 0), last)

    def forget(self, workflow_execution_id: str) -> None:
        """A deleted run: its numbers start again from nothing if the id is ever reused."""
        self._last.pop(workflow_execution_id, None)
        self._main_keys.pop(workflow_execution_id, None)

    def transact(
        self,
        workflow_execution_id: str,
        main_key: Mapping[str, str],
        actions: Sequence[Action],
        main_position: int | None,
        events: Sequence[NewEvent],
        not_found: Exception,
    ) -> tuple[ExecutionEvent, ...]:
        """`actions` and `events` in one TransactWriteItems; the numbered events.

        `main_position`: the index of the caller's action on the main row, which the counter
        joins; None when the caller does not touch it. Raises TransactionRefusedError for a
        failed condition of the caller's, `not_found` when the main row is gone,
        EventNumberTakenError when an event's number is taken although the counter matched.
        """
        last = self._last.get(workflow_execution_id)
        if last is None:
            last = self._read_last(main_key, not_found)
        conflicts = repairs = 0
        for race in range(MAX_COUNTER_RACES):
            if race:
                _backoff_before(race)
            numbered = tuple(event.numbered(last + n) for n, event in enumerate(events, 1))
            records = [build_execution_event_record(event) for event in numbered]
            self._bodies.put(records)
            items, counter_position = self._items(actions, main_position, main_key, last, records)
            try:
                self._client.transact_write_items(TransactItems=items)  # type: ignore[arg-type]
            except ClientError as exc:
                if _code(exc) != "TransactionCanceledException":
                    raise
                reasons: list[Any] = list(exc.response.get("CancellationReasons", []))
                counter = reasons[counter_position] if counter_position < len(reasons) else {}
                if counter.get("Code") == "ConditionalCheckFailed":
                    held = _refused_on_its_own(reasons, counter_position, len(actions))
                    if held is not None:
                        # refused whatever the number: no try again with the next one (an
                        # abort's end after its runner's: the step's guard, one request fewer)
                        image = _main_row_image(reasons, main_position)
                        raise TransactionRefusedError(held, reasons[held], image) from exc
                    # raises unless another writer took the number: then the next is taken
                    last = _counter_moved(exc, counter, last, main_position, not_found)
                    continue
                refused = _first_failed_condition(reasons, counter_position)
                if refused is None:
                    conflicts += 1
                    # Another write to one of these items was in flight: nothing applied, try
                    # again.
                    codes = {reason.get("Code") for reason in reasons}
                    if (
                        "TransactionConflict" not in codes
                        or conflicts >= _TRANSACTION_CONFLICT_TRIES
                    ):
                        raise
                    last = self._read_last(main_key, not_found)
                elif refused < len(actions):
                    image = _main_row_image(reasons, main_position)
                    raise TransactionRefusedError(refused, reasons[refused], image) from exc
                else:
                    repairs += 1
                    last = self._repair_counter(
                        exc, workflow_execution_id, main_key, last, repairs, not_found
                    )
                continue
            self._last[workflow_execution_id] = last + len(numbered)
            return numbered
        raise EventNumberTakenError(
            f"execution {workflow_execution_id}: lost the race for an event number "
            f"{MAX_COUNTER_RACES} times"
        )

    def _repair_counter(
        self,
        exc: ClientError,
        workflow_execution_id: str,
        main_key: Mapping[str, str],
        last: int,
        repairs: int,
        not_found: Exception,
    ) -> int:
        """An event's number was taken at the counter's `last`: the log is ahead of the counter
        (two transactions landed over each other half-way), so the counter catches up and the
        write goes on; the number to write from. Gives up after _COUNTER_REPAIRS repairs."""
        if repairs > _COUNTER_REPAIRS:
            raise EventNumberTakenError(
                f"execution {workflow_execution_id}: event {last + 1} is "
                f"taken although the run's counter is at {last}, and stays "
                "so; nothing was written"
            ) from exc
        caught_up = self._catch_up(workflow_execution_id, main_key, last)
        return caught_up or self._read_last(main_key, not_found)

    def _catch_up(
        self, workflow_execution_id: str, main_key: Mapping[str, str], last: int
    ) -> int | None:
        """The counter moved from `last` to the log's last number, when the log is ahead of it;
        None when it is not (or the counter is no longer `last`: a writer moved it since)."""
        response = self._client.query(
            TableName=self._events_table,
            KeyConditionExpression="#pk = :pk",
            ExpressionAttributeNames={"#pk": "workflowExecutionId", "#seq": SEQUENCE_NUMBER},
            ExpressionAttributeValues={":pk": {"S": workflow_execution_id}},
            ProjectionExpression="#seq",
            ConsistentRead=True,
            ScanIndexForward=False,
            Limit=1,
        )
        logged = [int(from_wire(item)[SEQUENCE_NUMBER]) for item in response["Items"]]
        if not logged or logged[0] <= last:
            return None
        names = {"#lastSeq": LAST_SEQUENCE_NUMBER, "#mainPk": "workflowExecutionId"}
        values = {":logged": {"N": str(logged[0])}}
        if last:
            values[":lastSeq"] = {"N": str(last)}
        counter_term = "#lastSeq = :lastSeq" if last else "attribute_not_exists(#lastSeq)"
        try:
            self._client.update_item(
                TableName=self._main_table,
                Key=to_wire(main_key),
                UpdateExpression="SET #lastSeq = :logged",
                ConditionExpression=f"attribute_exists(#mainPk) AND {counter_term}",
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=values,
            )
        except ClientError as exc:
            if _code(exc) != "ConditionalCheckFailedException":
                raise
            return None
        self._last[workflow_execution_id] = logged[0]
        return logged[0]

    def _read_last(self, main_key: Mapping[str, str], not_found: Exception) -> int:
        response = self._client.get_item(
            TableName=self._main_table,
            Key=to_wire(main_key),
            ProjectionExpression="#last, #pk",
            ExpressionAttributeNames={"#last": LAST_SEQUENCE_NUMBER, "#pk": "workflowExecutionId"},
            ConsistentRead=True,
        )
        if "Item" not in response:
            raise not_found
        return int(from_wire(response["Item"]).get(LAST_SEQUENCE_NUMBER, 0))

    def _items(
        self,
        actions: Sequence[Action],
        main_position: int | None,
        main_key: Mapping[str, str],
        last: int,
        records: Sequence[Mapping[str, Any]],
    ) -> tuple[list[dict[str, Any]], int]:
        """The transaction's items, and the index of the one carrying the counter."""
        items: list[dict[str, Any]] = []
        for kind, _, request in actions:
            items.append({kind: request})
        counter_names = {"#lastSeq": LAST_SEQUENCE_NUMBER}
        counter_values = {":nextSeq": {"N": str(last + len(records))}}
        if last:
            counter_values[":lastSeq"] = {"N": str(last)}
            counter_term = "#lastSeq = :lastSeq"
        else:
            counter_term = "attribute_not_exists(#lastSeq)"
        if main_position is None:
            items.append(
                self._counter_update(main_key, counter_term, counter_names, counter_values)
            )
            counter_position = len(items) - 1
        else:
            items[main_position] = _joined_by_counter(
                actions[main_position], counter_term, counter_names, counter_values
            )
            counter_position = main_position
        for record in records:
            items.append(self._event_put(record))
        return items, counter_position

    def _counter_update(
        self,
        main_key: Mapping[str, str],
        counter_term: str,
        counter_names: dict[str, str],
        counter_values: dict[str, Any],
    ) -> dict[str, Any]:
        """The counter's own Update, when the caller does not touch the main row."""
        return {
            "Update": {
                "TableName": self._main_table,
                "Key": to_wire(main_key),
                "UpdateExpression": "SET #lastSeq = :nextSeq",
                "ConditionExpression": f"attribute_exists(#mainPk) AND {counter_term}",
                "ExpressionAttributeNames": {
                    **counter_names,
                    "#mainPk": "workflowExecutionId",
                },
                "ExpressionAttributeValues": counter_values,
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            }
        }

    def _event_put(self, record: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "Put": {
                "TableName": self._events_table,
                "Item": to_wire(record),
                "ConditionExpression": "attribute_not_exists(#pk)",
                "ExpressionAttributeNames": {"#pk": "workflowExecutionId"},
            }
        }
