"""`ExecutionQueries` on DynamoDB: pages of runs, a run's details and rows, access facts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TypeVar

from botocore.exceptions import ClientError

from adapters.dynamodb.codec import Item, from_wire, to_wire
from adapters.dynamodb.requests import (
    batch_get,
    batch_get_tables,
    get_item,
    partition_query,
    query_first,
    query_partition,
)
from adapters.dynamodb.run_reads import DynamoDbRunReads
from adapters.dynamodb.store_base import error_code
from adapters.dynamodb.tokens import decode_token, encode_token
from adapters.output_records import (
    parse_artifact_record,
    parse_output_file_record,
    parse_output_metadata_record,
    parse_output_result_record,
    parse_step_log_record,
)
from adapters.records import ALL_LIST_PARTITION, CONFIGURATION_RECORD_TYPE, readable_rows
from adapters.row_collections import ROW_FALLBACKS, ROW_PARSERS, ROW_TABLES
from adapters.run_records import (
    access_facts_of,
    execution_details_of,
    listed_executions,
    parse_execution_configuration_record,
    run_assets_of,
    workflow_key_of,
)
from adapters.step_heads import shown_run_steps
from adapters.step_records import (
    parse_run_steps,
    parse_step_input_configuration_record,
    parse_step_input_metadata_record,
    parse_task_execution_record,
)
from adapters.tables import ResourceKeys
from application.ports.executions import AssetDirection, ExecutionRef, ListScope, Row, RowCollection
from domain.authorization import AccessFacts, AssetKey
from domain.errors import InvalidInputError
from domain.execution import (
    ExecutionConfiguration,
    ExecutionDetails,
    PipelineExecution,
    StepDetails,
    StepHead,
    StepOutputs,
    UnreadableRow,
    WorkflowExecution,
)
from domain.paging import Page

T = TypeVar("T")

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


# What a details read reads for each step shown: its input metadata always, then (with the
# outputs) its output rows and attempts (None)
_STEP_COLLECTIONS: tuple[RowCollection | None, ...] = (
    RowCollection.INPUT_METADATA,
    RowCollection.OUTPUT_FILES,
    RowCollection.OUTPUT_METADATA,
    RowCollection.OUTPUT_RESULTS,
    RowCollection.LOGS,
    RowCollection.ARTIFACTS,
    None,
)


def _newest_first(ref: ExecutionRef) -> tuple[str, str]:
    return (ref.execution_start_date, ref.workflow_execution_id)


class DynamoDbExecutionQueries(DynamoDbRunReads):
    """ExecutionQueries on DynamoDB. A run's details and access facts are made of the run's
    reads (its main row, steps, attempts), hence a part over DynamoDbRunReads."""

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
            execution.workflow_execution_id: execution
            for execution in listed_executions(self._whole(item) for item in items)
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

    def access_facts(self, workflow_execution_ids: Sequence[str]) -> dict[str, AccessFacts]:
        # a page of runs a user may not see all of: each run's few requests one after another,
        # the runs at once
        wanted = list(dict.fromkeys(workflow_execution_ids))
        found = self._reads.each([partial(self._access_facts_of, run) for run in wanted])
        return {run: facts for run, facts in zip(wanted, found, strict=True) if facts is not None}

    def _access_facts_of(self, workflow_execution_id: str) -> AccessFacts | None:
        rows = self._main_rows(workflow_execution_id)
        if not rows:
            return None
        assets = self.run_assets(workflow_execution_id)
        metadata = [
            row
            for step in self.list_steps(workflow_execution_id)
            for row in self._step_rows(
                ResourceKeys.PIPELINE_INPUT_METADATA, step.pipeline_execution_id
            )
        ]
        return access_facts_of(rows[0], assets, metadata)

    def run_assets(
        self, workflow_execution_id: str
    ) -> tuple[tuple[AssetKey, ...], AssetKey | None]:
        if not workflow_execution_id:
            return (), None
        inputs_table, inputs_spec = self._table(ResourceKeys.WORKFLOW_EXECUTION_INPUTS)
        inputs = query_partition(
            self._client, inputs_table, inputs_spec.partition.name, workflow_execution_id
        )
        configuration_table, _ = self._table(ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION)
        configuration = get_item(
            self._client,
            configuration_table,
            {"workflowExecutionId": workflow_execution_id, "recordType": CONFIGURATION_RECORD_TYPE},
        )
        return run_assets_of(inputs, configuration)

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
        self,
        workflow_execution_id: str,
        include_outputs: bool = True,
        row_limit: int | None = None,
        leave_out_unreadable: bool = False,
        detailed_steps: int | None = None,
    ) -> ExecutionDetails:
        # the main row first: every row read after it is at least as new as it
        execution = self.get_execution(workflow_execution_id)
        left_out: list[UnreadableRow] | None = [] if leave_out_unreadable else None
        first = (workflow_execution_id, None, row_limit)
        selections, resolved, step_items = self._reads.each(
            [
                partial(self._table_page, ROW_TABLES[RowCollection.SELECTIONS], *first),
                partial(self._table_page, ROW_TABLES[RowCollection.INPUTS], *first),
                partial(self._step_items, workflow_execution_id),
            ]
        )
        # a run VAMS launched resolved no files: its inputs are its selections (ROW_FALLBACKS),
        # already read
        inputs = resolved or selections
        heads: tuple[StepHead, ...] | None = None
        if detailed_steps is None:
            detailed = parse_run_steps([self._whole(row) for row in step_items], left_out)
        else:
            # the same Query: every row is read, and parsed whole (its cut bodies read back from
            # the object store) only for the steps shown
            by_id = {row["pipelineExecutionId"]: row for row in step_items}
            detailed, heads = shown_run_steps(
                step_items,
                lambda ids: {step_id: self._whole(by_id[step_id]) for step_id in ids},
                detailed_steps,
                left_out,
            )
        collections = _STEP_COLLECTIONS if include_outputs else _STEP_COLLECTIONS[:1]
        step_reads = [
            partial(self._step_collection, collection, step.pipeline_execution_id, row_limit)
            for step in detailed
            for collection in collections
        ]
        (run_configuration, configurations), step_rows = self._reads.beside(
            partial(self._configurations, workflow_execution_id, detailed), step_reads
        )
        width = len(collections)
        steps = tuple(
            self._step_details(
                step,
                configurations.get(step.pipeline_execution_id),
                dict(zip(collections, step_rows[index * width : (index + 1) * width], strict=True)),
                left_out,
            )
            for index, step in enumerate(detailed)
        )
        configuration = self._whole(run_configuration[0]) if run_configuration else None
        return execution_details_of(
            execution, configuration, inputs, selections, steps, heads, left_out
        )

    def _step_collection(
        self, collection: RowCollection | None, step_id: str, row_limit: int | None
    ) -> list[Item]:
        """A step's rows of `collection`; None: its attempts (one consistent query, ascending by
        attempt, as list_attempts reads them)."""
        if collection is None:
            return self._step_rows(ResourceKeys.TASK_EXECUTIONS, step_id)
        return self._rows(collection, step_id, row_limit)

    def _configurations(
        self, workflow_execution_id: str, steps: Sequence[PipelineExecution]
    ) -> tuple[list[Item], dict[str, Item]]:
        """The run's configuration and each of `steps`' by step, in one BatchGetItem."""
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
        return found[run_table], {item["pipelineExecutionId"]: item for item in found[step_table]}

    def _step_details(
        self,
        step: PipelineExecution,
        configuration: Item | None,
        found: dict[RowCollection | None, list[Item]],
        left_out: list[UnreadableRow] | None = None,
    ) -> StepDetails:
        """The step with the rows read for it (`found`: by collection, None its attempts; the
        outputs and attempts are empty when they were not read)."""

        def rows(collection: RowCollection | None, parse: Callable[[Item], T]) -> tuple[T, ...]:
            items = [self._whole(row) for row in found.get(collection, ())]
            return tuple(readable_rows(parse, items, left_out))

        configurations = readable_rows(
            parse_step_input_configuration_record,
            [self._whole(configuration)] if configuration else [],
            left_out,
        )
        return StepDetails(
            step=step,
            configuration=next(iter(configurations), None),
            input_metadata=rows(RowCollection.INPUT_METADATA, parse_step_input_metadata_record),
            outputs=StepOutputs(
                files=rows(RowCollection.OUTPUT_FILES, parse_output_file_record),
                metadata=rows(RowCollection.OUTPUT_METADATA, parse_output_metadata_record),
                results=rows(RowCollection.OUTPUT_RESULTS, parse_output_result_record),
                logs=rows(RowCollection.LOGS, parse_step_log_record),
                artifacts=rows(RowCollection.ARTIFACTS, parse_artifact_record),
            ),
            attempts=rows(None, parse_task_execution_record),
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
        request = partition_query(
            table_name, index.partition.name, partition, index.name, newest_first=True
        )
        request["Limit"] = limit
        if token:
            key_names = {a.name for a in (*spec.key_attributes, *index.attributes)}
            start = decode_token(token, key_names, (index.partition.name, partition))
            request["ExclusiveStartKey"] = to_wire(start)
        try:
            response = self._client.query(**request)
        except ClientError as exc:
            if token and error_code(exc) == "ValidationException":
                raise InvalidInputError("startingToken: not a token issued by this list") from exc
            raise
        last_key = response.get("LastEvaluatedKey")
        return Page(
            items=listed_executions(self._whole(from_wire(item)) for item in response["Items"]),
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
        request = partition_query(
            table_name, index.partition.name, asset_key, index.name, newest_first=True
        )
        request["Limit"] = max(self._query_page_size, 1)
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
