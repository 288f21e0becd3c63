"""ExecutionStore on the seed-000 DynamoDB tables, item for item and index for index."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

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
from adapters.dynamodb.requests import (
    batch_delete,
    batch_get,
    batch_get_tables,
    batch_put,
    get_item,
    query_first,
    query_partition,
    unique_puts,
)
from adapters.dynamodb.schema import create_tables
from adapters.dynamodb.tokens import decode_token, encode_token
from adapters.dynamodb.unit_of_work import Action, DynamoDbUnitOfWork, TransactionRefusedError
from adapters.event_records import LAST_SEQUENCE_NUMBER, build_execution_event_record
from adapters.item_budget import OffloadedBodies, Record
from adapters.records import (
    ABORT_REQUESTED_DATE,
    ALL_LIST_PARTITION,
    CONFIGURATION_RECORD_TYPE,
    LEASE_EXPIRES_DATE,
    LEASE_OWNER,
    STEP_STATUS,
    access_facts_of,
    build_artifact_record,
    build_execution_configuration_record,
    build_execution_input_record,
    build_execution_record,
    build_input_selection_record,
    build_output_file_record,
    build_output_metadata_record,
    build_output_result_record,
    build_pipeline_execution_record,
    build_step_input_configuration_record,
    build_step_input_metadata_record,
    build_step_log_record,
    build_task_execution_record,
    execution_changed_attributes,
    format_date,
    lease_guard_values,
    parse_artifact_record,
    parse_execution_configuration_record,
    parse_execution_input_record,
    parse_execution_record,
    parse_output_file_record,
    parse_output_metadata_record,
    parse_output_result_record,
    parse_pipeline_execution_record,
    parse_run_steps,
    parse_step_input_configuration_record,
    parse_step_input_metadata_record,
    parse_step_log_record,
    parse_task_execution_record,
    step_move_attributes,
    step_move_removals,
    step_mutable_attributes,
    task_execution_close_of,
    workflow_key_of,
)
from adapters.registration import (
    REGISTRATION_VERSION,
    registration_version,
    step_lists_attributes,
)
from adapters.row_collections import ROW_FALLBACKS, ROW_PARSERS, ROW_TABLES
from adapters.tables import (
    RUN_ROW_TABLES,
    STEP_ROW_TABLES,
    TABLE_SPECS,
    ResourceKeys,
    TableNames,
    TableSpec,
)
from application.ports import (
    AssetDirection,
    EventNumberTakenError,
    ExecutionRef,
    ListScope,
    ObjectStore,
    Row,
    RowCollection,
)
from domain.attempts import TaskExecution
from domain.authorization import AccessFacts
from domain.contention import pause_before_retry
from domain.errors import (
    ExecutionAlreadyExistsError,
    ExecutionNotFoundError,
    InvalidInputError,
    NotFoundError,
    PipelineExecutionNotFoundError,
)
from domain.events import (
    NewEvent,
)
from domain.execution import (
    ExecutionConfiguration,
    ExecutionDetails,
    LaunchRecords,
    OutputFile,
    PipelineExecution,
    StepDetails,
    StepOutputs,
    WorkflowExecution,
)
from domain.migration import migrated_pipeline_execution_id
from domain.paging import Page
from domain.run import OPEN_EXECUTION_STATUSES, Run, RunChange, StepMove
from domain.run_write import RunWrite, StepLists, StepRow, VersionedStep
from domain.statuses import StepStatus

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

Put = tuple[str, TableSpec, Item]

TRANSACTION_ITEM_LIMIT = 100
# TransactWriteItems also caps the request at 4 MB; stay well under it, since the estimate below
# is rough (UTF-8 JSON of the plain item, close to DynamoDB's own accounting for strings).
TRANSACTION_BYTE_BUDGET = 3_500_000
_ARTIFACT_CONFLICT_TRIES = 5

_LIST_INDEXES = {
    ListScope.ALL: "WorkflowExecutionsByDateGSI",
    ListScope.WORKFLOW: "WorkflowExecutionsByWorkflowGSI",
    ListScope.GROUP: "WorkflowExecutionsByGroupGSI",
}
_ASSET_INDEXES = {
    AssetDirection.INPUT: (ResourceKeys.WORKFLOW_EXECUTION_INPUTS, "WorkflowExecInputsByAssetGSI"),
    AssetDirection.OUTPUT: (
        ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION,
        "WorkflowExecConfigByOutputAssetGSI",
    ),
}
_STEPS_INDEX = "PipelineExecByWorkflowExecGSI"
_MAIN_ROW_CONDITION = "attribute_not_exists(#id)"
_RUNNING = frozenset({StepStatus.RUNNING})
_MAIN_KEY_CACHE = 1024
# A move made from a known step row that another writer had changed is made again from the row
# its refusal returned; a row changing under every try is left to the caller to read.
_STALE_ROW_TRIES = 3


def _add_run_guard(request: dict[str, Any], change: RunChange) -> None:
    """The run guard's terms beyond the status, added to a main-row update's condition."""
    guard = change.guard
    names, values = request["ExpressionAttributeNames"], request["ExpressionAttributeValues"]
    terms = [request["ConditionExpression"]]
    if guard.not_stopping:
        names["#abort"] = ABORT_REQUESTED_DATE
        terms.append("attribute_not_exists(#abort)")
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


def _error_code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def _approximate_size(item: Item) -> int:
    return len(json.dumps(item, default=str).encode("utf-8"))


def _newest_first(ref: ExecutionRef) -> tuple[str, str]:
    return (ref.execution_start_date, ref.workflow_execution_id)


class DynamoDbExecutionStore:
    """ExecutionStore on DynamoDB: the eleven seed-000 tables through a low-level boto3 client."""

    def __init__(
        self,
        client: DynamoDBClient,
        tables: TableNames,
        *,
        query_page_size: int = 100,
        objects: ObjectStore | None = None,
    ) -> None:
        """`objects` holds the bodies the item budgets move out of rows (adapters/item_budget)."""
        self._client = client
        self._tables = tables
        self._bodies = OffloadedBodies(objects)
        self._whole = self._bodies.restore
        self._query_page_size = query_page_size
        self._main_keys: dict[str, dict[str, str]] = {}
        # every transition's write goes through it, with the transition's events
        self._unit_of_work = DynamoDbUnitOfWork(client, tables, self._bodies)

    def _table(self, key: ResourceKeys) -> tuple[str, TableSpec]:
        return self._tables.get_table_name(key), TABLE_SPECS[key]

    def _puts(self, key: ResourceKeys, items: Iterable[Item]) -> list[Put]:
        table_name, spec = self._table(key)
        return [(table_name, spec, item) for item in items]

    def create_tables(self) -> None:
        create_tables(self._client, self._tables)

    # -- launch -------------------------------------------------------------------------------

    def _launch(
        self,
        records: LaunchRecords,
        events: Sequence[NewEvent],
        attempts: Sequence[TaskExecution] = (),
    ) -> None:
        """A new run's rows, its first events and the attempts it opens (a launch's lease and
        first start written with it); ExecutionAlreadyExistsError when the id is taken."""
        main_table, main_spec = self._table(ResourceKeys.WORKFLOW_EXECUTIONS)
        built = build_execution_record(records.execution)
        # the run's first events: the counter starts at the last of them
        main = Record({**built, LAST_SEQUENCE_NUMBER: len(events)}, built.offloads)
        check_item(main_table, main_spec, main)
        numbered = [
            build_execution_event_record(event.numbered(number))
            for number, event in enumerate(events, 1)
        ]
        supporting = unique_puts(
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
        execution_id = records.execution.workflow_execution_id
        self._bodies.put([main, *numbered, *(item for _, _, item in supporting)])
        size = _approximate_size(main) + sum(_approximate_size(item) for _, _, item in supporting)
        items = 1 + len(numbered) + len(supporting)
        if items <= TRANSACTION_ITEM_LIMIT and size <= TRANSACTION_BYTE_BUDGET:
            self._launch_in_one_transaction(execution_id, main_table, main, numbered, supporting)
        else:
            self._launch_main_row_last(execution_id, main_table, main, numbered, supporting)
        # The launch knows the main row's key and its event counter: the first step's start
        # need not look either up.
        key = {
            "workflowExecutionId": execution_id,
            "workflowDatabaseId:workflowId": records.execution.workflow_key,
        }
        self._keep_main_key(execution_id, key)
        self._unit_of_work.launched(key, last_sequence_number=len(numbered))

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
        try:
            self._client.transact_write_items(TransactItems=actions)
        except ClientError as exc:
            if _error_code(exc) != "TransactionCanceledException":
                raise
            reasons = exc.response.get("CancellationReasons", [])
            if reasons and reasons[0].get("Code") == "ConditionalCheckFailed":
                raise ExecutionAlreadyExistsError(execution_id) from exc
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
    ) -> None:
        """Too big for one transaction: the supporting rows in batches, then the main row with
        the run's first events in one transaction.

        Every read and list starts from the main row (asset refs resolve through it and skip a
        ref without one), so a crash part-way leaves unreachable rows, never a visible
        half-launch, and no event: the retry writes the same rows again and completes it.
        """
        if self._main_rows(execution_id):
            raise ExecutionAlreadyExistsError(execution_id)
        batch_put(self._client, [(t, to_wire(item)) for t, _, item in supporting])
        self._launch_in_one_transaction(execution_id, main_table, main, events, ())

    # -- main rows ----------------------------------------------------------------------------

    def _main_rows(self, workflow_execution_id: str) -> list[Item]:
        if not workflow_execution_id:
            return []
        table_name, spec = self._table(ResourceKeys.WORKFLOW_EXECUTIONS)
        # The sort key (workflowDatabaseId:workflowId) is not known here: query the partition.
        return query_partition(self._client, table_name, spec.partition.name, workflow_execution_id)

    def get_execution(self, workflow_execution_id: str) -> WorkflowExecution:
        rows = self._main_rows(workflow_execution_id)
        if not rows:
            raise ExecutionNotFoundError(workflow_execution_id)
        return parse_execution_record(self._whole(rows[0]))

    def get_executions(self, refs: Sequence[ExecutionRef]) -> list[WorkflowExecution]:
        table_name, _ = self._table(ResourceKeys.WORKFLOW_EXECUTIONS)
        keys = [
            {
                "workflowExecutionId": ref.workflow_execution_id,
                "workflowDatabaseId:workflowId": ref.workflow_key,
            }
            for ref in refs
            if ref.workflow_execution_id and ref.workflow_key
        ]
        items = batch_get(self._client, table_name, keys)
        # a ref from a row VAMS wrote without the workflow (its configuration row): the main
        # row's sort key is not known, so its partition is read
        for ref in refs:
            if ref.workflow_execution_id and not ref.workflow_key:
                items.extend(self._main_rows_of(table_name, ref.workflow_execution_id))
        found = {
            item["workflowExecutionId"]: parse_execution_record(self._whole(item)) for item in items
        }
        return [found[r.workflow_execution_id] for r in refs if r.workflow_execution_id in found]

    def _main_rows_of(self, table_name: str, workflow_execution_id: str) -> list[Item]:
        response = self._client.query(
            TableName=table_name,
            KeyConditionExpression="workflowExecutionId = :id",
            ExpressionAttributeValues={":id": {"S": workflow_execution_id}},
            Limit=1,
        )
        return [from_wire(row) for row in response["Items"]]

    def _execution_update(
        self, change: RunChange, values: Item, removed: Sequence[str]
    ) -> tuple[dict[str, str], dict[str, Any]]:
        execution = change.after
        self._bodies.put([values])
        key = {
            "workflowExecutionId": execution.workflow_execution_id,
            "workflowDatabaseId:workflowId": execution.workflow_key,
        }
        request = self._guarded_update(
            ResourceKeys.WORKFLOW_EXECUTIONS,
            key,
            values,
            removed,
            ("executionStatus", change.guard.statuses),
        )
        _add_run_guard(request, change)
        return key, request

    def _change_main_row(self, change: RunChange, events: Sequence[NewEvent]) -> bool:
        """A write of the main row alone: one plain conditional update when it is no transition,
        else a transaction with its events; False when the guard refused it."""
        execution_id = change.after.workflow_execution_id
        values, removed = execution_changed_attributes(change.before, change.after)
        key, request = self._execution_update(change, values, removed)
        not_found = ExecutionNotFoundError(execution_id)
        if not events:  # a lease, a sync stamp: no transition, no event, one plain update
            return self._update_or_none(request, not_found) is not None
        try:
            self._unit_of_work.transact(
                execution_id, key, [("Update", None, request)], 0, events, not_found
            )
        except TransactionRefusedError:
            return False  # the guard did not hold: nothing written, its events neither
        return True

    def get_run(self, workflow_execution_id: str, pipeline_execution_id: str | None = None) -> Run:
        execution = self.get_execution(workflow_execution_id)
        if pipeline_execution_id is None:
            steps = self.list_steps(workflow_execution_id)
        else:
            step = self.get_step(pipeline_execution_id)
            if step.workflow_execution_id != workflow_execution_id:
                raise PipelineExecutionNotFoundError(pipeline_execution_id, workflow_execution_id)
            steps = [step]
        attempts = self.list_attempts(step.pipeline_execution_id for step in steps)
        return Run(execution=execution, steps=tuple(steps), attempts=tuple(attempts))

    def access_facts(self, workflow_execution_ids: Sequence[str]) -> dict[str, AccessFacts]:
        facts: dict[str, AccessFacts] = {}
        for execution_id in dict.fromkeys(workflow_execution_ids):
            rows = self._main_rows(execution_id)
            if not rows:
                continue
            inputs_table, inputs_spec = self._table(ResourceKeys.WORKFLOW_EXECUTION_INPUTS)
            inputs = query_partition(
                self._client, inputs_table, inputs_spec.partition.name, execution_id
            )
            configuration_table, _ = self._table(ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION)
            configuration = get_item(
                self._client,
                configuration_table,
                {"workflowExecutionId": execution_id, "recordType": CONFIGURATION_RECORD_TYPE},
            )
            metadata = [
                row
                for step in self.list_steps(execution_id)
                for row in self._step_rows(
                    ResourceKeys.PIPELINE_INPUT_METADATA, step.pipeline_execution_id
                )
            ]
            facts[execution_id] = access_facts_of(rows[0], inputs, configuration, metadata)
        return facts

    # -- permanent delete ---------------------------------------------------------------------

    def delete_execution(self, workflow_execution_id: str) -> bool:
        if not workflow_execution_id:
            return False
        main_rows = self._main_rows(workflow_execution_id)
        steps = self._step_items(workflow_execution_id)
        step_ids = [item["pipelineExecutionId"] for item in steps] or [
            # no step: a migrated run, its input files under the id the migration derives
            migrated_pipeline_execution_id(workflow_execution_id)
        ]
        # In three waves, each batched: the steps' own rows (found through the step rows, so
        # before them), the run-keyed rows, the main row. Cut short anywhere, the main row is
        # still there: the run is still listed, and deleting it again finds what is left.
        batch_delete(
            self._client,
            [
                self._wire_key(key, item)
                for key in STEP_ROW_TABLES
                for step_id in step_ids
                for item in self._step_rows(key, step_id)
            ],
        )
        batch_delete(
            self._client,
            [
                self._wire_key(key, item)
                for key in RUN_ROW_TABLES
                for item in (
                    steps
                    if key is ResourceKeys.PIPELINE_EXECUTIONS
                    else self._run_rows(key, workflow_execution_id)
                )
            ],
        )
        batch_delete(
            self._client,
            [self._wire_key(ResourceKeys.WORKFLOW_EXECUTIONS, item) for item in main_rows],
        )
        self._main_keys.pop(workflow_execution_id, None)
        self._unit_of_work.forget(workflow_execution_id)
        return bool(main_rows)

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

    # -- steps --------------------------------------------------------------------------------

    def get_versioned_step(
        self, workflow_execution_id: str, pipeline_execution_id: str
    ) -> VersionedStep:
        table_name, _ = self._table(ResourceKeys.PIPELINE_EXECUTIONS)
        key = {
            "pipelineExecutionId": pipeline_execution_id,
            "workflowExecutionId": workflow_execution_id,
        }
        item = get_item(self._client, table_name, key) if all(key.values()) else None
        if item is None:
            raise PipelineExecutionNotFoundError(pipeline_execution_id, workflow_execution_id)
        step = parse_pipeline_execution_record(self._whole(item))
        return VersionedStep(step, registration_version(item))

    def get_step(self, pipeline_execution_id: str) -> PipelineExecution:
        table_name, spec = self._table(ResourceKeys.PIPELINE_EXECUTIONS)
        rows = (
            query_partition(self._client, table_name, spec.partition.name, pipeline_execution_id)
            if pipeline_execution_id
            else []
        )
        if not rows:
            raise PipelineExecutionNotFoundError(pipeline_execution_id)
        return parse_pipeline_execution_record(self._whole(rows[0]))

    def list_steps(self, workflow_execution_id: str) -> list[PipelineExecution]:
        if not workflow_execution_id:
            return []
        return parse_run_steps(
            [self._whole(row) for row in self._step_items(workflow_execution_id)]
        )

    def _step_items(self, workflow_execution_id: str) -> list[Item]:
        table_name, spec = self._table(ResourceKeys.PIPELINE_EXECUTIONS)
        # A GSI read is eventually consistent: DynamoDB offers nothing stronger for this lookup.
        return query_partition(
            self._client,
            table_name,
            spec.index(_STEPS_INDEX).partition.name,
            workflow_execution_id,
            index_name=_STEPS_INDEX,
        )

    def commit(self, write: RunWrite) -> bool:
        """RunWriter: the whole write as one TransactWriteItems, its events numbered by the
        run's counter. Past DynamoDB's 100 items a transaction is refused by the service, so a
        larger write is refused here (ValueError) before anything is sent: a run end closing
        more open steps than fit is the one write that could come near it."""
        run_id = write.workflow_execution_id
        if write.launch is not None:  # a new run: nothing to guard but its id
            self._launch(write.launch.records, write.events, write.launch.attempts)
            return True
        if write.change is not None and not (
            write.moves or write.approval or write.step_logs or write.step_rows or write.step_lists
        ):
            return self._change_main_row(write.change, write.events)
        not_found = ExecutionNotFoundError(run_id)
        main_key = self._main_key(run_id)
        if main_key is None:
            raise not_found
        actions: list[Action] = []
        while_open = any(move.while_open for move in write.moves)
        if write.change is not None:
            change = write.change
            values, removed = execution_changed_attributes(change.before, change.after)
            _, update = self._execution_update(change, values, removed)
            if while_open:  # one action per item: the moves' guard joins the change's
                _add_open_terms(update)
            actions.append(("Update", None, update))
        elif while_open:
            actions.append(("ConditionCheck", None, self._run_open_check(main_key)))
        main_position = 0 if actions else None
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
            return False
        return True

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
        table_name, _ = self._table(ResourceKeys.PIPELINE_EXECUTIONS)
        return {
            "TableName": table_name,
            "Key": to_wire(key),
            "UpdateExpression": expression,
            "ConditionExpression": "attribute_exists(#pk) AND "
            + ("#version = :read" if lists.version else "attribute_not_exists(#version)"),
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

    def _update_or_none(self, request: dict[str, Any], not_found: NotFoundError) -> Item | None:
        """One conditional UpdateItem: the item as stored afterwards (ALL_NEW), or None when its
        condition failed on an item that exists (ALL_OLD tells that from no item at all)."""
        try:
            response = self._client.update_item(**request, ReturnValues="ALL_NEW")
        except ClientError as exc:
            if _error_code(exc) != "ConditionalCheckFailedException":
                raise
            if not exc.response.get("Item"):
                raise not_found from exc
            return None
        return from_wire(response["Attributes"])

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

    def list_attempts(self, pipeline_execution_ids: Iterable[str]) -> list[TaskExecution]:
        # One consistent query per step; the sort key keeps each step's attempts ascending.
        return [
            parse_task_execution_record(self._whole(row))
            for step_id in dict.fromkeys(pipeline_execution_ids)
            if step_id
            for row in self._step_rows(ResourceKeys.TASK_EXECUTIONS, step_id)
        ]

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
                if _error_code(exc) != "TransactionCanceledException":
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

    def _step_rows(self, table: ResourceKeys, pipeline_execution_id: str) -> list[Item]:
        table_name, spec = self._table(table)
        return query_partition(self._client, table_name, spec.partition.name, pipeline_execution_id)

    def list_output_files(self, pipeline_execution_ids: Iterable[str]) -> list[OutputFile]:
        return [
            parse_output_file_record(row)
            for step_id in pipeline_execution_ids
            if step_id
            for row in self._step_rows(ResourceKeys.PIPELINE_OUTPUT_FILES, step_id)
        ]

    # -- details ------------------------------------------------------------------------------

    def get_configuration(self, workflow_execution_id: str) -> ExecutionConfiguration | None:
        if not workflow_execution_id:
            return None
        configuration_table, _ = self._table(ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION)
        item = get_item(
            self._client,
            configuration_table,
            {"workflowExecutionId": workflow_execution_id, "recordType": CONFIGURATION_RECORD_TYPE},
        )
        return parse_execution_configuration_record(self._whole(item)) if item else None

    def list_rows(
        self, collection: RowCollection, partition: str, after: str | None, limit: int
    ) -> list[Row]:
        parse = ROW_PARSERS[collection]
        items = self._page(collection, partition, after, limit)
        return [parse(self._whole(item)) for item in items]

    def _page(
        self, collection: RowCollection, partition: str, after: str | None, limit: int | None
    ) -> list[Item]:
        """A partition's rows after `after` (all of them, or the first `limit` by sort key), in
        the collection's table, else (it holds none of the partition) in its fallback's."""
        items = self._table_page(ROW_TABLES[collection], partition, after, limit)
        fallback = ROW_FALLBACKS.get(collection)
        if items or fallback is None:
            return items
        if after is not None and self._table_page(ROW_TABLES[collection], partition, None, 1):
            return []  # the end of the collection's own rows
        return self._table_page(fallback, partition, after, limit)

    def _table_page(
        self, key: ResourceKeys, partition: str, after: str | None, limit: int | None
    ) -> list[Item]:
        table_name, spec = self._table(key)
        if limit is None:  # the whole partition: never asked for after a cursor
            return query_partition(self._client, table_name, spec.partition.name, partition)
        assert spec.sort is not None  # every row collection's table has a sort key
        return query_first(
            self._client, table_name, (spec.partition.name, partition), spec.sort.name, after, limit
        )

    def _rows(self, collection: RowCollection, partition: str, limit: int | None) -> list[Item]:
        """A partition's rows: all of them, or the first `limit` by sort key."""
        return self._page(collection, partition, None, limit)

    def get_details(
        self, workflow_execution_id: str, include_outputs: bool = True, row_limit: int | None = None
    ) -> ExecutionDetails:
        execution = self.get_execution(workflow_execution_id)
        selections = self._table_page(
            ROW_TABLES[RowCollection.SELECTIONS], workflow_execution_id, None, row_limit
        )
        resolved = self._table_page(
            ROW_TABLES[RowCollection.INPUTS], workflow_execution_id, None, row_limit
        )
        # a run VAMS launched resolved no files: its inputs are its selections (ROW_FALLBACKS),
        # already read
        inputs = resolved or selections
        steps = self.list_steps(workflow_execution_id)
        # the run's configuration and each step's, in one BatchGetItem
        run_table, _ = self._table(ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION)
        step_table, _ = self._table(ResourceKeys.PIPELINE_INPUT_CONFIGURATION)
        found = batch_get_tables(
            self._client,
            {
                run_table: [
                    {
                        "workflowExecutionId": workflow_execution_id,
                        "recordType": CONFIGURATION_RECORD_TYPE,
                    }
                ],
                step_table: [
                    {
                        "pipelineExecutionId": step.pipeline_execution_id,
                        "recordType": CONFIGURATION_RECORD_TYPE,
                    }
                    for step in steps
                ],
            },
        )
        configurations = {item["pipelineExecutionId"]: item for item in found[step_table]}
        return ExecutionDetails(
            execution=execution,
            configuration=parse_execution_configuration_record(self._whole(found[run_table][0]))
            if found[run_table]
            else None,
            inputs=tuple(parse_execution_input_record(row) for row in inputs),
            selections=tuple(parse_execution_input_record(row) for row in selections),
            steps=tuple(
                self._step_details(
                    step, configurations.get(step.pipeline_execution_id), include_outputs, row_limit
                )
                for step in steps
            ),
        )

    def _step_details(
        self,
        step: PipelineExecution,
        configuration: Item | None,
        include_outputs: bool,
        row_limit: int | None,
    ) -> StepDetails:
        step_id = step.pipeline_execution_id

        def rows(collection: RowCollection) -> list[Item]:
            return [self._whole(row) for row in self._rows(collection, step_id, row_limit)]

        return StepDetails(
            step=step,
            configuration=parse_step_input_configuration_record(self._whole(configuration))
            if configuration
            else None,
            input_metadata=tuple(
                parse_step_input_metadata_record(row) for row in rows(RowCollection.INPUT_METADATA)
            ),
            outputs=StepOutputs(
                files=tuple(map(parse_output_file_record, rows(RowCollection.OUTPUT_FILES))),
                metadata=tuple(
                    map(parse_output_metadata_record, rows(RowCollection.OUTPUT_METADATA))
                ),
                results=tuple(map(parse_output_result_record, rows(RowCollection.OUTPUT_RESULTS))),
                logs=tuple(map(parse_step_log_record, rows(RowCollection.LOGS))),
                artifacts=tuple(map(parse_artifact_record, rows(RowCollection.ARTIFACTS))),
            )
            if include_outputs
            else StepOutputs(),
            attempts=tuple(self.list_attempts([step_id])) if include_outputs else (),
        )

    # -- lists --------------------------------------------------------------------------------

    def list_executions(
        self, scope: ListScope, partition: str | None, limit: int, token: str | None
    ) -> Page[WorkflowExecution]:
        # ListExecutions has checked the arguments: limit in bounds, a non-empty partition
        table_name, spec = self._table(ResourceKeys.WORKFLOW_EXECUTIONS)
        index = spec.index(_LIST_INDEXES[ListScope(scope)])
        if scope is ListScope.ALL:
            partition = ALL_LIST_PARTITION
        assert partition is not None
        request: dict[str, Any] = {
            "TableName": table_name,
            "IndexName": index.name,
            "KeyConditionExpression": "#pk = :pk",
            "ExpressionAttributeNames": {"#pk": index.partition.name},
            "ExpressionAttributeValues": {":pk": {"S": partition}},
            "ScanIndexForward": False,
            "Limit": limit,
        }
        if token:
            key_names = {a.name for a in (*spec.key_attributes, *index.attributes)}
            start = decode_token(token, key_names, (index.partition.name, partition))
            request["ExclusiveStartKey"] = to_wire(start)
        try:
            response = self._client.query(**request)
        except ClientError as exc:
            if token and _error_code(exc) == "ValidationException":
                raise InvalidInputError("startingToken: not a token issued by this list") from exc
            raise
        last_key = response.get("LastEvaluatedKey")
        return Page(
            items=tuple(
                parse_execution_record(self._whole(from_wire(item))) for item in response["Items"]
            ),
            next_token=encode_token(from_wire(last_key)) if last_key else None,
        )

    def asset_execution_refs(
        self,
        asset_key: str,
        direction: AssetDirection,
        older_than: ExecutionRef | None,
        limit: int,
    ) -> list[ExecutionRef]:
        table, index_name = _ASSET_INDEXES[AssetDirection(direction)]
        table_name, spec = self._table(table)
        index = spec.index(index_name)
        assert index.sort is not None  # both asset indexes sort by executionStartDate
        request: dict[str, Any] = {
            "TableName": table_name,
            "IndexName": index.name,
            "KeyConditionExpression": "#pk = :pk",
            "ExpressionAttributeNames": {"#pk": index.partition.name},
            "ExpressionAttributeValues": {":pk": {"S": asset_key}},
            "ScanIndexForward": False,
            "Limit": max(self._query_page_size, 1),
        }
        if older_than is not None:
            request["KeyConditionExpression"] += " AND #date <= :date"
            request["ExpressionAttributeNames"]["#date"] = index.sort.name
            request["ExpressionAttributeValues"][":date"] = {"S": older_than.execution_start_date}
        refs: dict[str, ExecutionRef] = {}
        oldest_seen = ""
        while True:
            response = self._client.query(**request)
            for item in (from_wire(row) for row in response["Items"]):
                ref = ExecutionRef(
                    execution_start_date=item["executionStartDate"],
                    workflow_execution_id=item["workflowExecutionId"],
                    workflow_key=workflow_key_of(item),
                )
                oldest_seen = ref.execution_start_date
                if older_than is None or _newest_first(ref) < _newest_first(older_than):
                    refs.setdefault(ref.workflow_execution_id, ref)
            last_key = response.get("LastEvaluatedKey")
            if not last_key:
                break
            # Rows sharing the oldest date seen may continue on the next page, in any id order:
            # only refs strictly newer than that date are final.
            settled = sum(1 for ref in refs.values() if ref.execution_start_date > oldest_seen)
            if settled >= limit:
                break
            request["ExclusiveStartKey"] = last_key
        return sorted(refs.values(), key=_newest_first, reverse=True)[:limit]
