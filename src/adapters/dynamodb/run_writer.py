"""`RunWriter` on DynamoDB: a run's write as one TransactWriteItems, its outputs, its permanent
delete."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from botocore.exceptions import ClientError

from adapters.dynamodb.approval_items import approval_action
from adapters.dynamodb.codec import (
    Item,
    WireItem,
    check_item,
    check_key_values,
    from_wire,
    key_of,
    to_wire,
)
from adapters.dynamodb.cost_ledger import cost_entry_put
from adapters.dynamodb.known_rows import version_guard
from adapters.dynamodb.requests import batch_delete, batch_put, query_partition, unique_puts
from adapters.dynamodb.store_base import DynamoDbStoreBase, Put, error_code
from adapters.dynamodb.unit_of_work import Action, TransactionRefusedError
from adapters.event_records import LAST_SEQUENCE_NUMBER, build_execution_event_record
from adapters.item_budget import Record
from adapters.output_records import (
    build_artifact_record,
    build_output_file_record,
    build_output_metadata_record,
    build_output_result_record,
    build_step_log_record,
)
from adapters.records import format_date
from adapters.registration import (
    REGISTRATION_VERSION,
    list_sizes_condition,
    step_lists_attributes,
)
from adapters.run_records import (
    ABORT_REQUESTED_DATE,
    FINISHING_DATE,
    LEASE_EXPIRES_DATE,
    LEASE_OWNER,
    build_execution_configuration_record,
    build_execution_input_record,
    build_execution_record,
    build_input_selection_record,
    execution_changed_attributes,
    lease_guard_values,
    parse_execution_record,
)
from adapters.step_records import (
    STEP_STATUS,
    build_pipeline_execution_record,
    build_step_input_configuration_record,
    build_step_input_metadata_record,
    build_task_execution_record,
    step_move_attributes,
    step_move_removals,
    step_mutable_attributes,
    task_execution_close_of,
)
from adapters.tables import RUN_ROW_TABLES, STEP_ROW_TABLES, ResourceKeys
from application.ports.executions import EventNumberTakenError, Refused
from domain.attempts import TaskExecution
from domain.contention import pause_before_retry
from domain.errors import (
    ExecutionAlreadyExistsError,
    ExecutionNotFoundError,
    ExecutionStillRunningError,
    NotFoundError,
    PipelineExecutionNotFoundError,
)
from domain.events import NewEvent
from domain.execution import LaunchRecords, StepOutputs, WorkflowExecution
from domain.migration import migrated_pipeline_execution_id
from domain.run import RunChange, StepMove
from domain.run_write import RunWrite, StepLists, StepRow
from domain.statuses import OPEN_EXECUTION_STATUSES, TERMINAL_STATUSES, StepStatus, is_terminal

TRANSACTION_ITEM_LIMIT = 100
# a launch's rows that its runner changes afterwards (the rest stay as the launch wrote them)
_CHANGED_AFTER_LAUNCH = (ResourceKeys.PIPELINE_EXECUTIONS, ResourceKeys.TASK_EXECUTIONS)
# TransactWriteItems also caps the request at 4 MB; stay well under it, since the estimate below
# is rough (UTF-8 JSON of the plain item, close to DynamoDB's own accounting for strings).
TRANSACTION_BYTE_BUDGET = 3_500_000
_ARTIFACT_CONFLICT_TRIES = 5

_MAIN_ROW_CONDITION = "attribute_not_exists(#id)"
_RUNNING = frozenset({StepStatus.RUNNING})
_MAIN_KEY_CACHE = 1024


def _main_key_of(execution: WorkflowExecution) -> dict[str, str]:
    return {
        "workflowExecutionId": execution.workflow_execution_id,
        "workflowDatabaseId:workflowId": execution.workflow_key,
    }


def _add_run_guard(request: dict[str, Any], change: RunChange) -> None:
    """The run guard's terms beyond the status, added to a main-row update's condition."""
    guard = change.guard
    names, values = request["ExpressionAttributeNames"], request["ExpressionAttributeValues"]
    terms = [request["ConditionExpression"]]
    if guard.not_stopping:
        names["#abort"] = ABORT_REQUESTED_DATE
        terms.append("attribute_not_exists(#abort)")
    if guard.not_finishing:
        names["#finishing"] = FINISHING_DATE
        terms.append("attribute_not_exists(#finishing)")
    if guard.lease_held_by is not None:
        names["#owner"] = LEASE_OWNER
        terms.append("#owner = :held")
        values[":held"] = {"S": guard.lease_held_by}
    if guard.lease_as_read:
        owner, expires = lease_guard_values(change.before)
        names["#owner"] = LEASE_OWNER
        if owner is None:
            terms.append("attribute_not_exists(#owner)")
        else:
            names["#expires"] = LEASE_EXPIRES_DATE
            terms.append("#owner = :readowner AND #expires = :readexpires")
            values[":readowner"], values[":readexpires"] = {"S": owner}, {"S": str(expires)}
    if guard.lease_takeable is not None:
        owner, now = guard.lease_takeable
        names["#owner"], names["#expires"] = LEASE_OWNER, LEASE_EXPIRES_DATE
        terms.append(
            "(attribute_not_exists(#owner) OR #owner = :taker OR #expires < :now"
            " OR begins_with(#owner, :handover))"
        )
        values[":taker"], values[":now"] = {"S": owner}, {"S": format_date(now)}
        values[":handover"] = {"S": guard.handover_prefix}
    request["ConditionExpression"] = " AND ".join(terms)


def _add_open_terms(request: dict[str, Any]) -> None:
    """A main-row update that holds only while the run is open and no abort was requested."""
    names, values = request["ExpressionAttributeNames"], request["ExpressionAttributeValues"]
    names["#status"], names["#abort"] = "executionStatus", ABORT_REQUESTED_DATE
    allowed = sorted(status.value for status in OPEN_EXECUTION_STATUSES)
    for n, status in enumerate(allowed):
        values[f":open{n}"] = {"S": status}
    terms = ", ".join(f":open{n}" for n in range(len(allowed)))
    request["ConditionExpression"] = (
        f"({request['ConditionExpression']}) AND #status IN ({terms}) "
        "AND attribute_not_exists(#abort)"
    )


def _approximate_size(item: Item) -> int:
    return len(json.dumps(item, default=str).encode("utf-8"))


@dataclass(frozen=True, slots=True)
class _ExistsCheck:
    """A transaction's check that another run's main row is there (a rerun's launch)."""

    workflow_execution_id: str
    request: dict[str, Any]


class DynamoDbRunWriter(DynamoDbStoreBase):
    """RunWriter on DynamoDB, with the other writes of a run (its outputs, its delete)."""

    # -- launch -------------------------------------------------------------------------------

    def _launch(
        self,
        records: LaunchRecords,
        events: Sequence[NewEvent],
        attempts: Sequence[TaskExecution] = (),
        rerun_of: str | None = None,
    ) -> None:
        """A new run's rows, its first events and the attempts it opens (a launch's lease and
        first start written with it); ExecutionAlreadyExistsError when the id is taken, and a
        rerun's ExecutionNotFoundError when the run it reruns is gone."""
        main_table, main_spec = self._table(ResourceKeys.WORKFLOW_EXECUTIONS)
        still_there = None if rerun_of is None else self._exists_check(main_table, rerun_of)
        built = build_execution_record(records.execution)
        # the run's first events: the counter starts at the last of them
        main = Record({**built, LAST_SEQUENCE_NUMBER: len(events)}, built.offloads)
        check_item(main_table, main_spec, main)
        numbered = [
            build_execution_event_record(event.numbered(number))
            for number, event in enumerate(events, 1)
        ]
        supporting = self._supporting_puts(records, attempts)
        execution_id = records.execution.workflow_execution_id
        self._bodies.put([main, *numbered, *(item for _, _, item in supporting)])
        size = _approximate_size(main) + sum(_approximate_size(item) for _, _, item in supporting)
        items = 1 + len(numbered) + len(supporting) + (still_there is not None)
        if items <= TRANSACTION_ITEM_LIMIT and size <= TRANSACTION_BYTE_BUDGET:
            self._launch_in_one_transaction(
                execution_id, main_table, main, numbered, supporting, still_there
            )
        else:
            self._launch_main_row_last(
                execution_id, main_table, main, numbered, supporting, still_there
            )
        # The launch knows the main row's key and its event counter: the first step's start
        # need not look either up.
        key = _main_key_of(records.execution)
        self._keep_main_key(execution_id, key)
        self._unit_of_work.launched(key, last_sequence_number=len(numbered))

    def _supporting_puts(
        self, records: LaunchRecords, attempts: Sequence[TaskExecution]
    ) -> list[Put]:
        """The launch's rows beside the main row and its events, each key once."""
        return unique_puts(
            [
                *self._puts(
                    ResourceKeys.WORKFLOW_EXECUTION_INPUTS,
                    map(build_input_selection_record, records.selections),
                ),
                *self._puts(
                    ResourceKeys.RESOLVED_INPUT_FILES,
                    map(build_execution_input_record, records.inputs),
                ),
                *self._puts(
                    ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION,
                    [build_execution_configuration_record(records.configuration)],
                ),
                *self._puts(
                    ResourceKeys.PIPELINE_EXECUTIONS,
                    map(build_pipeline_execution_record, records.steps),
                ),
                *self._puts(
                    ResourceKeys.PIPELINE_INPUT_CONFIGURATION,
                    map(build_step_input_configuration_record, records.step_configurations),
                ),
                *self._puts(
                    ResourceKeys.PIPELINE_INPUT_METADATA,
                    map(build_step_input_metadata_record, records.step_metadata),
                ),
                *self._puts(
                    ResourceKeys.TASK_EXECUTIONS, map(build_task_execution_record, attempts)
                ),
            ]
        )

    def _event_put(self, event: Item) -> dict[str, Any]:
        table_name, spec = self._table(ResourceKeys.EXECUTION_EVENTS)
        return {
            "TableName": table_name,
            "Item": to_wire(event),
            "ConditionExpression": "attribute_not_exists(#pk)",
            "ExpressionAttributeNames": {"#pk": spec.partition.name},
        }

    def _launch_in_one_transaction(
        self,
        execution_id: str,
        main_table: str,
        main: Item,
        events: Sequence[Item],
        supporting: Sequence[Put],
        still_there: _ExistsCheck | None = None,
    ) -> None:
        actions: list[Any] = [
            {
                "Put": {
                    "TableName": main_table,
                    "Item": to_wire(main),
                    "ConditionExpression": _MAIN_ROW_CONDITION,
                    "ExpressionAttributeNames": {"#id": "workflowExecutionId"},
                }
            },
            *({"Put": self._event_put(event)} for event in events),
            *({"Put": {"TableName": t, "Item": to_wire(item)}} for t, _, item in supporting),
        ]
        if still_there is not None:
            actions.append({"ConditionCheck": still_there.request})
        try:
            self._client.transact_write_items(TransactItems=actions)
        except ClientError as exc:
            if error_code(exc) != "TransactionCanceledException":
                raise
            reasons = exc.response.get("CancellationReasons", [])
            if reasons and reasons[0].get("Code") == "ConditionalCheckFailed":
                raise ExecutionAlreadyExistsError(execution_id) from exc
            last = reasons[-1].get("Code") if len(reasons) == len(actions) else None
            if still_there is not None and last == "ConditionalCheckFailed":
                raise ExecutionNotFoundError(still_there.workflow_execution_id) from exc
            for number, reason in enumerate(reasons[1 : 1 + len(events)], 1):
                if reason.get("Code") == "ConditionalCheckFailed":
                    raise EventNumberTakenError(
                        f"execution {execution_id}: event {number}"
                    ) from exc
            raise

    def _launch_main_row_last(
        self,
        execution_id: str,
        main_table: str,
        main: Item,
        events: Sequence[Item],
        supporting: Sequence[Put],
        still_there: _ExistsCheck | None = None,
    ) -> None:
        """Too big for one transaction: the supporting rows in batches, then the main row with
        the run's first events in one transaction.

        Every read and list starts from the main row (asset refs resolve through it and skip a
        ref without one), so a crash part-way leaves unreachable rows, never a visible
        half-launch, and no event: the retry writes the same rows again and completes it.

        The rows a runner changes once the run is there (its steps and attempts) are put on
        condition they are absent, 100 to a transaction: another launch of the id (a retry with
        its client token while this one writes) may have landed since the look below, and its
        runner started a step; a row found is that launch's, or an earlier try's of this one,
        and kept.
        """
        if self._main_rows(execution_id):
            raise ExecutionAlreadyExistsError(execution_id)
        changing = {self._table(key)[0] for key in _CHANGED_AFTER_LAUNCH}
        batch_put(
            self._client, [(t, to_wire(item)) for t, _, item in supporting if t not in changing]
        )
        absent = [(t, spec.partition.name, item) for t, spec, item in supporting if t in changing]
        for start in range(0, len(absent), TRANSACTION_ITEM_LIMIT):
            self._put_all_if_absent(absent[start : start + TRANSACTION_ITEM_LIMIT])
        self._launch_in_one_transaction(execution_id, main_table, main, events, (), still_there)

    def _exists_check(self, main_table: str, workflow_execution_id: str) -> _ExistsCheck:
        """A ConditionCheck that the run's main row is there; ExecutionNotFoundError at once
        when it is gone already."""
        key = self._main_key(workflow_execution_id)
        if key is None:
            raise ExecutionNotFoundError(workflow_execution_id)
        request = {
            "TableName": main_table,
            "Key": to_wire(key),
            "ConditionExpression": "attribute_exists(#id)",
            "ExpressionAttributeNames": {"#id": "workflowExecutionId"},
        }
        return _ExistsCheck(workflow_execution_id, request)

    def _put_all_if_absent(self, rows: Sequence[tuple[str, str, Item]]) -> None:
        """Up to 100 rows in one transaction, each on condition it is absent; when one is there
        already (the transaction is refused whole), each row on its own, keeping those found."""
        actions = [
            {
                "Put": {
                    "TableName": table_name,
                    "Item": to_wire(item),
                    "ConditionExpression": "attribute_not_exists(#pk)",
                    "ExpressionAttributeNames": {"#pk": partition},
                }
            }
            for table_name, partition, item in rows
        ]
        try:
            self._client.transact_write_items(TransactItems=actions)  # type: ignore[arg-type]
            return
        except ClientError as exc:
            reasons = exc.response.get("CancellationReasons", [])
            if error_code(exc) != "TransactionCanceledException" or not any(
                reason.get("Code") == "ConditionalCheckFailed" for reason in reasons
            ):
                raise
        for table_name, partition, item in rows:
            self._put_if_absent(table_name, partition, item)

    def _put_if_absent(self, table_name: str, partition: str, item: Item) -> None:
        try:
            self._client.put_item(
                TableName=table_name,
                Item=to_wire(item),
                ConditionExpression="attribute_not_exists(#pk)",
                ExpressionAttributeNames={"#pk": partition},
            )
        except ClientError as exc:
            if error_code(exc) != "ConditionalCheckFailedException":
                raise

    def _execution_update(
        self, change: RunChange, values: Item, removed: Sequence[str]
    ) -> tuple[dict[str, str], dict[str, Any]]:
        self._bodies.put([values])
        key = _main_key_of(change.after)
        request = self._guarded_update(
            ResourceKeys.WORKFLOW_EXECUTIONS,
            key,
            values,
            removed,
            ("executionStatus", change.guard.statuses),
        )
        _add_run_guard(request, change)
        return key, request

    def _change_main_row(self, change: RunChange, events: Sequence[NewEvent]) -> bool | Refused:
        """A write of the main row alone: one plain conditional update when it is no transition,
        else a transaction with its events; refused, with the row as stored, when the guard
        refused it."""
        execution_id = change.after.workflow_execution_id
        values, removed = execution_changed_attributes(change.before, change.after)
        key, request = self._execution_update(change, values, removed)
        not_found = ExecutionNotFoundError(execution_id)
        if not events:  # a lease, a sync stamp: no transition, no event, one plain update
            return self._update_or_refused(request, not_found)
        try:
            self._unit_of_work.transact(
                execution_id, key, [("Update", None, request)], 0, events, not_found
            )
        except TransactionRefusedError as refused:
            # the guard did not hold: nothing written, its events neither
            return self._refused(refused.main_row)
        return True

    def _refused(self, main_row: Item | None) -> Refused:
        """A refusal saying the main row's old image DynamoDB returned with it, if any (the
        next write's counter guessed from it, as from any read of the row)."""
        if main_row is None:
            return Refused()
        self._unit_of_work.main_row_read(main_row)
        return Refused(parse_execution_record(self._whole(main_row)))

    # -- permanent delete ---------------------------------------------------------------------

    def delete_execution(self, workflow_execution_id: str, *, ended_only: bool = False) -> bool:
        """`ended_only`: refused before anything goes when the main row is open, and the main
        row's own delete is conditional on its status still being terminal. Between the two
        (the waves below) no write of the run's is held off: a redrive that lands there finds
        its steps' rows going, and the refused main row says so."""
        if not workflow_execution_id:
            return False
        main_rows = self._main_rows(workflow_execution_id)
        if ended_only:
            self._refuse_unless_ended(workflow_execution_id, main_rows)
        steps = self._step_items(workflow_execution_id)
        step_ids = [item["pipelineExecutionId"] for item in steps] or [
            # no step: a migrated run, its input files under the id the migration derives
            migrated_pipeline_execution_id(workflow_execution_id)
        ]
        # In four waves, each's reads sent at once and its deletes batched: the steps' own rows
        # (found through the step rows, so before them), the run-keyed rows, the main row, the
        # run's cost entries (an append holds only while the main row is there, so one landing
        # during the waves is read here). Cut short before the main row, the run is still
        # listed, and deleting it again finds what is left.
        step_keyed = [(key, step_id) for key in STEP_ROW_TABLES for step_id in step_ids]
        found = self._reads.each([partial(self._step_rows, *where) for where in step_keyed])
        batch_delete(
            self._client,
            [
                self._wire_key(key, item)
                for (key, _), items in zip(step_keyed, found, strict=True)
                for item in items
            ],
        )
        run_keyed = [
            key
            for key in RUN_ROW_TABLES
            if key not in (ResourceKeys.COST_LEDGER, ResourceKeys.PIPELINE_EXECUTIONS)
        ]
        reads = [partial(self._run_rows, key, workflow_execution_id) for key in run_keyed]
        run_rows: dict[ResourceKeys, list[Item]] = dict(
            zip(run_keyed, self._reads.each(reads), strict=True)
        )
        run_rows[ResourceKeys.PIPELINE_EXECUTIONS] = steps
        batch_delete(
            self._client,
            [
                self._wire_key(key, item)
                for key in RUN_ROW_TABLES
                if key is not ResourceKeys.COST_LEDGER
                for item in run_rows[key]
            ],
        )
        main_keys = [self._wire_key(ResourceKeys.WORKFLOW_EXECUTIONS, item) for item in main_rows]
        if ended_only:
            for table_name, key in main_keys:
                self._delete_if_ended(workflow_execution_id, table_name, key)
        else:
            batch_delete(self._client, main_keys)
        costs = self._run_rows(ResourceKeys.COST_LEDGER, workflow_execution_id)
        batch_delete(self._client, [self._wire_key(ResourceKeys.COST_LEDGER, i) for i in costs])
        self._main_keys.pop(workflow_execution_id, None)
        self._unit_of_work.forget(workflow_execution_id)
        return bool(main_rows)

    def _refuse_unless_ended(self, workflow_execution_id: str, main_rows: Sequence[Item]) -> None:
        for item in main_rows:
            status = str(item.get("executionStatus", ""))
            if not is_terminal(status):
                raise ExecutionStillRunningError(workflow_execution_id, status)

    def _delete_if_ended(self, workflow_execution_id: str, table_name: str, key: WireItem) -> None:
        names = {"#id": "workflowExecutionId", "#status": "executionStatus"}
        ended = {f":s{index}": {"S": status} for index, status in enumerate(TERMINAL_STATUSES)}
        while True:
            try:
                self._client.delete_item(
                    TableName=table_name,
                    Key=key,
                    # gone meanwhile (another delete) is no refusal: the row is not there either way
                    ConditionExpression=(
                        f"attribute_not_exists(#id) OR #status IN ({', '.join(ended)})"
                    ),
                    ExpressionAttributeNames=names,
                    ExpressionAttributeValues=ended,
                )
                return
            except ClientError as exc:
                if error_code(exc) != "ConditionalCheckFailedException":
                    raise
            # open when read: refused; ended again (redriven and ended meanwhile): tried again
            self._refuse_unless_ended(workflow_execution_id, self._main_rows(workflow_execution_id))

    def _wire_key(self, key: ResourceKeys, item: Item) -> tuple[str, WireItem]:
        table_name, spec = self._table(key)
        return table_name, to_wire(key_of(spec, item))

    def _run_rows(self, key: ResourceKeys, workflow_execution_id: str) -> list[Item]:
        table_name, spec = self._table(key)
        return query_partition(self._client, table_name, spec.partition.name, workflow_execution_id)

    def _main_key(self, workflow_execution_id: str) -> dict[str, str] | None:
        """The main row's key; its sort key (the workflow) never changes, so it is looked up
        once per run and kept."""
        key = self._main_keys.get(workflow_execution_id)
        if key is None:
            rows = self._main_rows(workflow_execution_id)
            if not rows:
                return None
            key = {
                "workflowExecutionId": workflow_execution_id,
                "workflowDatabaseId:workflowId": rows[0]["workflowDatabaseId:workflowId"],
            }
            self._keep_main_key(workflow_execution_id, key)
        return key

    def _keep_main_key(self, workflow_execution_id: str, key: dict[str, str]) -> None:
        if len(self._main_keys) >= _MAIN_KEY_CACHE:
            self._main_keys.pop(next(iter(self._main_keys)))
        self._main_keys[workflow_execution_id] = key

    def commit(self, write: RunWrite) -> bool | Refused:
        """RunWriter: the whole write as one TransactWriteItems, its events numbered by the
        run's counter. Past DynamoDB's 100 items a transaction is refused by the service, so a
        larger write is refused here (ValueError) before anything is sent: a run end closing
        more open steps than fit is the one write that could come near it."""
        run_id = write.workflow_execution_id
        if write.launch is not None:  # a new run: nothing to guard but its id
            launch = write.launch
            self._launch(launch.records, write.events, launch.attempts, launch.rerun_of)
            return True
        if write.change is not None and not (
            write.moves or write.approval or write.step_logs or write.step_rows or write.step_lists
        ):
            return self._change_main_row(write.change, write.events)
        not_found = ExecutionNotFoundError(run_id)
        # a write changing the main row names its key (the workflow, which never changes): no
        # look-up, a cold process's end of a run (an abort) included
        main_key = (
            _main_key_of(write.change.after) if write.change is not None else self._main_key(run_id)
        )
        if main_key is None:
            raise not_found
        actions = self._main_row_actions(write, main_key)
        main_position = 0 if actions else None
        step_at = self._add_step_actions(write, actions)
        if write.approval is not None:
            table_name = self._tables.get_table_name(ResourceKeys.APPROVAL_REQUESTS)
            kind, request = approval_action(table_name, write.approval)
            actions.append((kind, None, request))
        logs = self._puts(ResourceKeys.PIPELINE_LOGS, map(build_step_log_record, write.step_logs))
        self._bodies.put(item for _, _, item in logs)
        actions.extend(
            ("Put", None, {"TableName": table, "Item": to_wire(item)}) for table, _, item in logs
        )
        items = len(actions) + len(write.events) + (1 if main_position is None else 0)
        if items > TRANSACTION_ITEM_LIMIT:
            raise ValueError(
                f"execution {run_id}: a write of {items} items is more than one transaction "
                f"holds ({TRANSACTION_ITEM_LIMIT}); nothing was written"
            )
        try:
            self._unit_of_work.transact(
                run_id, main_key, actions, main_position, write.events, not_found
            )
        except TransactionRefusedError as refused:
            refused_step = step_at.get(refused.position)
            if refused_step is not None and not refused.reason.get("Item"):
                raise PipelineExecutionNotFoundError(refused_step, run_id) from refused
            return self._refused(refused.main_row)
        return True

    def _main_row_actions(self, write: RunWrite, main_key: Mapping[str, str]) -> list[Action]:
        """The write's action on the main row, if any: its change, or the check that the run is
        open when a move or a decision is made only while it is."""
        actions: list[Action] = []
        while_open = any(move.while_open for move in write.moves) or (
            write.approval is not None and write.approval.while_open
        )
        if write.change is not None:
            change = write.change
            values, removed = execution_changed_attributes(change.before, change.after)
            _, update = self._execution_update(change, values, removed)
            if while_open:  # one action per item: the moves' guard joins the change's
                _add_open_terms(update)
            actions.append(("Update", None, update))
        elif while_open:
            actions.append(("ConditionCheck", None, self._run_open_check(main_key)))
        return actions

    def _add_step_actions(self, write: RunWrite, actions: list[Action]) -> dict[int, str]:
        """Add the write's actions on step rows to `actions`; the step of each by its position
        (a refused one names the step that is missing)."""
        step_at: dict[int, str] = {}
        for move in write.moves:
            step_id = move.pipeline_execution_id
            step_at[len(actions)] = step_id
            actions.extend(self._move_actions(move))
        for row in write.step_rows:
            step_at[len(actions)] = row.step.pipeline_execution_id
            actions.append(("Update", None, self._step_row_update(row)))
        if write.step_lists is not None:
            step_at[len(actions)] = write.step_lists.step.pipeline_execution_id
            actions.append(("Update", None, self._step_lists_update(write.step_lists)))
        return step_at

    def _step_row_update(self, row: StepRow) -> dict[str, Any]:
        step = row.step
        values, removed = step_mutable_attributes(step)
        self._bodies.put([values])
        key = {
            "pipelineExecutionId": step.pipeline_execution_id,
            "workflowExecutionId": step.workflow_execution_id,
        }
        if not (row.expected and all(key.values())):
            raise PipelineExecutionNotFoundError(step.pipeline_execution_id)
        update = self._guarded_update(
            ResourceKeys.PIPELINE_EXECUTIONS, key, values, removed, (STEP_STATUS, row.expected)
        )
        version_guard(update)  # every write of a step row moves its version on
        return update

    def _step_lists_update(self, lists: StepLists) -> dict[str, Any]:
        """A step's lists, while its row is at the version read; the version moves on."""
        values, removed = step_lists_attributes(lists)
        self._bodies.put([values])
        step = lists.step
        key = {
            "pipelineExecutionId": step.pipeline_execution_id,
            "workflowExecutionId": step.workflow_execution_id,
        }
        if not all(key.values()):
            raise PipelineExecutionNotFoundError(step.pipeline_execution_id)
        names = {f"#a{n}": name for n, name in enumerate(values)}
        plain: dict[str, Any] = {f":a{n}": value for n, value in enumerate(values.values())}
        plain[":next"] = lists.version + 1
        sets = "".join(f"{name} = :{name[1:]}, " for name in names)
        expression = f"SET {sets}#version = :next"
        if removed:
            gone = {f"#r{n}": name for n, name in enumerate(removed)}
            names.update(gone)
            expression += f" REMOVE {', '.join(gone)}"
        if lists.version:
            plain[":read"] = lists.version
        condition = "attribute_exists(#pk) AND " + (
            "#version = :read" if lists.version else "attribute_not_exists(#version)"
        )
        sizes, size_names, size_values = list_sizes_condition(lists)
        if sizes:
            condition += f" AND {sizes}"
            names.update(size_names)
            plain.update(size_values)
        table_name, _ = self._table(ResourceKeys.PIPELINE_EXECUTIONS)
        return {
            "TableName": table_name,
            "Key": to_wire(key),
            "UpdateExpression": expression,
            "ConditionExpression": condition,
            "ExpressionAttributeNames": {
                **names,
                "#pk": "pipelineExecutionId",
                "#version": REGISTRATION_VERSION,
            },
            "ExpressionAttributeValues": to_wire(plain),
            # an old item back on a refusal: the version moved; none: no such step
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }

    def _move_actions(self, move: StepMove) -> list[Action]:
        """A step's move in a run's write: its row (updated, or checked when it stays as it
        is), the attempt it opens and the one it closes, its cost entries."""
        step_id = move.pipeline_execution_id
        key = {"pipelineExecutionId": step_id, "workflowExecutionId": move.workflow_execution_id}
        if not (move.expected and all(key.values())):
            raise PipelineExecutionNotFoundError(step_id, move.workflow_execution_id)
        moved = step_move_attributes(move)
        self._bodies.put([moved])
        removals = tuple(step_move_removals(moved))
        update = self._guarded_update(
            ResourceKeys.PIPELINE_EXECUTIONS, key, moved, removals, (STEP_STATUS, move.expected)
        )
        version_guard(update)  # every write of a step row moves its version on
        actions: list[Action] = []
        if update.get("UpdateExpression"):
            actions.append(("Update", None, update))
        else:
            del update["UpdateExpression"]
            actions.append(("ConditionCheck", None, update))
        actions.extend(self._attempt_actions(move))
        if move.cost_entries:
            ledger = self._tables.get_table_name(ResourceKeys.COST_LEDGER)
            actions.extend(("Put", None, cost_entry_put(ledger, e)) for e in move.cost_entries)
        return actions

    def _attempt_actions(self, move: StepMove) -> list[Action]:
        """The attempt a move opens (a put, refused when its number exists) and the one it
        closes (guarded on its still running)."""
        step_id = move.pipeline_execution_id
        actions: list[Action] = []
        if move.open_attempt is not None:
            actions.append(("Put", None, self._attempt_put(move.open_attempt)))
        if move.close_attempt is not None:
            values, removed = task_execution_close_of(move)
            self._bodies.put([values])
            close = self._guarded_update(
                ResourceKeys.TASK_EXECUTIONS,
                {"pipelineExecutionId": step_id, "attempt": move.close_attempt},
                values,
                removed,
                ("status", _RUNNING),
            )
            actions.append(("Update", None, close))
        return actions

    def _update_or_refused(
        self, request: dict[str, Any], not_found: NotFoundError
    ) -> bool | Refused:
        """One conditional UpdateItem of the main row: True, or refused with the row as stored
        when its condition failed on it (ALL_OLD tells that from no row at all)."""
        try:
            self._client.update_item(**request)
        except ClientError as exc:
            if error_code(exc) != "ConditionalCheckFailedException":
                raise
            response: Mapping[str, Any] = exc.response  # ALL_OLD's item, beside the error
            stored = response.get("Item")
            if not stored:
                raise not_found from exc
            return self._refused(from_wire(stored))
        return True

    def _run_open_check(self, main_key: Mapping[str, str]) -> dict[str, Any]:
        table_name, _ = self._table(ResourceKeys.WORKFLOW_EXECUTIONS)
        allowed = sorted(status.value for status in OPEN_EXECUTION_STATUSES)
        values = {f":o{n}": status for n, status in enumerate(allowed)}
        return {
            "TableName": table_name,
            "Key": to_wire(main_key),
            "ConditionExpression": f"#status IN ({', '.join(values)}) "
            "AND attribute_not_exists(#abort)",
            "ExpressionAttributeNames": {
                "#status": "executionStatus",
                "#abort": ABORT_REQUESTED_DATE,
            },
            "ExpressionAttributeValues": to_wire(values),
        }

    def _guarded_update(
        self,
        table: ResourceKeys,
        key: Mapping[str, Any],
        values: Mapping[str, Any],
        removed: Sequence[str],
        status: tuple[str, frozenset[str]],
    ) -> dict[str, Any]:
        """An update of `values` and `removed` on condition that the item exists and its status is
        one of those expected (at least one): an UpdateItem request, or a transaction's Update.

        ALL_OLD on a failed condition tells "wrong status" (an old item comes back) from "no such
        item" without a second read.
        """
        table_name, spec = self._table(table)
        check_key_values(table_name, spec, values)
        status_attribute, expected = status
        names = {"#pk": spec.partition.name, "#status": status_attribute}
        plain_values: dict[str, Any] = {}
        assignments: list[str] = []
        for n, (attribute, value) in enumerate(values.items()):
            names[f"#s{n}"], plain_values[f":s{n}"] = attribute, value
            assignments.append(f"#s{n} = :s{n}")
        removals: list[str] = []
        for n, attribute in enumerate(removed):
            names[f"#r{n}"] = attribute
            removals.append(f"#r{n}")
        allowed: list[str] = []
        for n, state in enumerate(sorted(expected)):
            plain_values[f":e{n}"] = str(state)
            allowed.append(f":e{n}")
        clauses = [f"SET {', '.join(assignments)}"] if assignments else []
        clauses += [f"REMOVE {', '.join(removals)}"] if removals else []
        return {
            "TableName": table_name,
            "Key": to_wire(key),
            "UpdateExpression": " ".join(clauses),
            "ConditionExpression": f"attribute_exists(#pk) AND #status IN ({', '.join(allowed)})",
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": to_wire(plain_values),
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }

    # -- attempts -----------------------------------------------------------------------------

    def _attempt_put(self, attempt: TaskExecution) -> dict[str, Any]:
        """A put of a new attempt that a taken attempt number refuses (PutItem or transaction)."""
        table_name, spec = self._table(ResourceKeys.TASK_EXECUTIONS)
        item = build_task_execution_record(attempt)
        check_item(table_name, spec, item)
        self._bodies.put([item])
        return {
            "TableName": table_name,
            "Item": to_wire(item),
            "ConditionExpression": "attribute_not_exists(#pk)",
            "ExpressionAttributeNames": {"#pk": spec.partition.name},
        }

    # -- outputs ------------------------------------------------------------------------------

    def add_step_outputs(self, outputs: StepOutputs) -> None:
        files = unique_puts(
            self._puts(
                ResourceKeys.PIPELINE_OUTPUT_FILES, map(build_output_file_record, outputs.files)
            )
        )
        # as an insert-if-absent would, the first of two artifacts of one key is the one kept
        artifacts = unique_puts(
            self._puts(ResourceKeys.ARTIFACTS, map(build_artifact_record, outputs.artifacts[::-1]))
        )[::-1]
        puts = unique_puts(
            [
                *self._puts(
                    ResourceKeys.PIPELINE_OUTPUT_METADATA,
                    map(build_output_metadata_record, outputs.metadata),
                ),
                *self._puts(
                    ResourceKeys.PIPELINE_OUTPUT_RESULTS,
                    map(build_output_result_record, outputs.results),
                ),
                *self._puts(ResourceKeys.PIPELINE_LOGS, map(build_step_log_record, outputs.logs)),
            ]
        )
        self._bodies.put(item for _, _, item in (*files, *artifacts, *puts))
        if artifacts:
            self._put_files_with_artifacts(files, artifacts)
        else:
            puts = [*files, *puts]
        batch_put(self._client, [(table_name, to_wire(item)) for table_name, _, item in puts])

    def _put_files_with_artifacts(self, files: Sequence[Put], artifacts: Sequence[Put]) -> None:
        """The seed's file rows and the artifacts in transactions of at most the item limit,
        each file beside its own artifact (both are built in the files' order)."""
        half = TRANSACTION_ITEM_LIMIT // 2
        for start in range(0, max(len(files), len(artifacts)), half):
            self._transact_artifacts(files[start : start + half], artifacts[start : start + half])

    def _transact_artifacts(self, files: Sequence[Put], artifacts: Sequence[Put]) -> None:
        pending, conflicts = list(artifacts), 0
        while files or pending:
            actions: list[Any] = [
                *({"Put": {"TableName": t, "Item": to_wire(item)}} for t, _, item in files),
                *(
                    {
                        "Put": {
                            "TableName": t,
                            "Item": to_wire(item),
                            # never replaced: an attempt's artifact stays as it was first written
                            "ConditionExpression": "attribute_not_exists(#pk)",
                            "ExpressionAttributeNames": {"#pk": spec.partition.name},
                        }
                    }
                    for t, spec, item in pending
                ),
            ]
            try:
                self._client.transact_write_items(TransactItems=actions)
                return
            except ClientError as exc:
                if error_code(exc) != "TransactionCanceledException":
                    raise
                reasons = exc.response.get("CancellationReasons", [])
                taken = {
                    position - len(files)
                    for position, reason in enumerate(reasons)
                    if position >= len(files) and reason.get("Code") == "ConditionalCheckFailed"
                }
                if taken:
                    # recorded already (a delivery repeated): the rest goes without them
                    pending = [put for n, put in enumerate(pending) if n not in taken]
                    continue
                conflicts += 1
                codes = {reason.get("Code") for reason in reasons}
                if "TransactionConflict" not in codes or conflicts >= _ARTIFACT_CONFLICT_TRIES:
                    raise
                pause_before_retry(conflicts)
