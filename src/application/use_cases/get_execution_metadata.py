"""GetExecutionMetadata: one page of one collection of a run's details (details/metadata)."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from application.available_logs import AvailableLogFinder
from application.detail_collections import (
    DEFAULT_PAGE_ITEMS,
    INPUTS,
    MAX_PAGE_ITEMS,
    CollectionPath,
    Cursor,
    StepCollection,
    decode_cursor,
    encode_cursor,
    parse_collection,
)
from application.ports.executions import ExecutionStore, Row, RowCollection
from application.run_metadata_pages import (
    RUN_COLLECTIONS,
    StepRow,
    row_text_size,
    run_metadata_page,
)
from domain.attempts import TaskExecution
from domain.available_logs import AvailableLog, step_available_logs
from domain.errors import InvalidInputError, PipelineExecutionNotFoundError
from domain.execution import PipelineExecution, WorkflowExecution, chain_order
from domain.logs import RegisteredLog, RegisteredSubExecution
from domain.paging import PAGE_TEXT_BUDGET, Page, fitting

# What a page may hold: the items of whichever collection was asked for. A metadata row comes
# with its step (StepRow): the details document names the pipeline beside each one.
DetailItem = (
    Row
    | StepRow
    | PipelineExecution
    | TaskExecution
    | AvailableLog
    | RegisteredLog
    | RegisteredSubExecution
)
_WITH_STEP = (RowCollection.INPUT_METADATA, RowCollection.OUTPUT_METADATA)


class GetExecutionMetadataQuery(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str = Field(min_length=1)
    collection: str  # a path of application.detail_collections; checked by the use case
    max_items: int = Field(default=DEFAULT_PAGE_ITEMS, ge=1, le=MAX_PAGE_ITEMS)
    starting_token: str | None = None
    pipeline_id: str | None = Field(default=None, min_length=1)  # with VAMS's run-wide ones


class GetExecutionMetadata:
    """Page any collection of a run's details, from its start or from a token (the
    nextToken of a truncatedCollections entry, or of the previous page).

    VAMS's run-wide collections (`input`, `inputDatabase`, `output`) page every step's rows
    (application.run_metadata_pages). Row collections are read from the store a page at a
    time, past the last row's sort key;
    the short lists (steps, attempts, registered and available logs) are read whole and paged
    by offset.
    """

    def __init__(
        self,
        store: ExecutionStore,
        available_logs: AvailableLogFinder | None = None,
        text_budget: int = PAGE_TEXT_BUDGET,
    ) -> None:
        self._store, self._available_logs = store, available_logs
        self._text_budget = text_budget

    def execute(self, query: GetExecutionMetadataQuery) -> Page[DetailItem]:
        if query.collection in RUN_COLLECTIONS:
            page = run_metadata_page(
                self._store,
                query.workflow_execution_id,
                query.collection,
                query.pipeline_id,
                query.max_items,
                query.starting_token,
                self._text_budget,
            )
            return Page(items=page.items, next_token=page.next_token)
        if query.pipeline_id is not None:
            raise InvalidInputError(
                f"pipelineId: only with collection {', '.join(RUN_COLLECTIONS)}"
            )
        path = parse_collection(query.collection)
        cursor = decode_cursor(query.starting_token, path)
        execution = self._store.get_execution(query.workflow_execution_id)  # not found: 404
        step = None if path.step_id is None else self._step(execution, path.step_id)
        collection = path.row_collection
        if collection is not None:
            partition = (
                execution.workflow_execution_id if step is None else step.pipeline_execution_id
            )
            rows = self._store.list_rows(collection, partition, cursor.after, query.max_items + 1)
            kept = rows[: fitting(rows[: query.max_items], row_text_size, self._text_budget)]
            more = len(rows) > len(kept)
            token = encode_cursor(path.text, Cursor(after=kept[-1].row_key)) if more else None
            if step is not None and collection in _WITH_STEP:
                return Page(items=tuple(StepRow(row, step) for row in kept), next_token=token)
            if step is not None and collection is RowCollection.OUTPUT_FILES:
                configuration = self._store.get_configuration(execution.workflow_execution_id)
                target = None if configuration is None else configuration.output_asset
                return Page(
                    items=tuple(StepRow(row, step, target) for row in kept), next_token=token
                )
            return Page(items=tuple(kept), next_token=token)
        items = self._whole(path, execution, step)
        end = cursor.offset + query.max_items
        token = encode_cursor(path.text, Cursor(offset=end)) if end < len(items) else None
        return Page(items=tuple(items[cursor.offset : end]), next_token=token)

    def _step(self, execution: WorkflowExecution, step_id: str) -> PipelineExecution:
        try:
            step = self._store.get_step(step_id)
        except PipelineExecutionNotFoundError:
            step = None
        if step is None or step.workflow_execution_id != execution.workflow_execution_id:
            raise PipelineExecutionNotFoundError(step_id, execution.workflow_execution_id)
        return step

    def _whole(
        self, path: CollectionPath, execution: WorkflowExecution, step: PipelineExecution | None
    ) -> Sequence[DetailItem]:
        if step is None:
            assert path.name != INPUTS  # a row collection
            return chain_order(self._store.list_steps(execution.workflow_execution_id))
        name = StepCollection(path.name)
        if name is StepCollection.ATTEMPTS:
            return self._store.list_attempts([step.pipeline_execution_id])
        if name is StepCollection.REGISTERED_LOGS:
            return step.registered_logs
        if name is StepCollection.REGISTERED_SUB_EXECUTIONS:
            return step.registered_sub_executions
        assert name is StepCollection.AVAILABLE_LOGS
        if self._available_logs is None:  # no catalog to derive the invocation log from
            return step_available_logs(step.pipeline_execution_id, step.registered_logs)
        found = self._available_logs.find(execution, [step])
        return found.by_step[step.pipeline_execution_id]
