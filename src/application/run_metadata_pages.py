"""VAMS's run-wide metadata collections of details/metadata: `input` (the asset and file metadata
handed to the steps), `inputDatabase` (a metadata source database's own metadata, the input
metadata rows of scope `database`: VAMS writes them, wfx records none yet) and `output` (the
metadata the steps wrote), every step's rows in chain order, or one pipeline's with `pipelineId`.

Each item is a row with the step it belongs to (`StepRow`): VAMS's page items name their pipeline,
as the same rows do in the details document.

A token holds the collection it pages, the step it stopped in and that step's last row key."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from application.ports.executions import ExecutionStore, Row, RowCollection
from domain.authorization import AssetKey
from domain.errors import InvalidInputError
from domain.execution import PipelineExecution, StepInputMetadata, chain_order
from domain.paging import PAGE_TEXT_BUDGET, Page, page_token, token_fields


def row_text_size(row: Row) -> int:
    """A row's size on a page: its JSON text."""
    return len(row.model_dump_json())


def _of_scope(scope: str) -> Callable[[Row], bool]:
    return lambda row: isinstance(row, StepInputMetadata) and row.scope == scope


# each collection: the rows it pages, and which of them it keeps
RUN_COLLECTIONS: dict[str, tuple[RowCollection, Callable[[Row], bool]]] = {
    "input": (RowCollection.INPUT_METADATA, _of_scope("asset")),
    "inputDatabase": (RowCollection.INPUT_METADATA, _of_scope("database")),
    "output": (RowCollection.OUTPUT_METADATA, lambda row: True),
}


@dataclass(frozen=True)
class StepRow:
    """A row and the step that wrote or read it; an output file also with the run's output
    asset (None for a results-only run), which the details name beside each file."""

    row: Row
    step: PipelineExecution
    output_asset: AssetKey | None = None


@dataclass(frozen=True)
class _Position:
    step: int = 0
    after: str | None = None


def _label(collection: str, pipeline_id: str | None) -> str:
    return collection if pipeline_id is None else f"{collection}[{pipeline_id}]"


def _encode(label: str, position: _Position) -> str:
    return page_token({"collection": label, "step": position.step, "after": position.after})


def _decode(token: str | None, label: str) -> _Position:
    if token is None:
        return _Position()
    refused = InvalidInputError("startingToken: not a token this collection returned")
    try:
        fields: Any = token_fields(token)
    except ValueError:
        raise refused from None
    if not isinstance(fields, dict) or set(fields) != {"collection", "step", "after"}:
        raise refused
    step, after = fields["step"], fields["after"]
    if (
        fields["collection"] != label
        or not isinstance(step, int)
        or isinstance(step, bool)
        or step < 0
        or not (after is None or (isinstance(after, str) and after))
    ):
        raise refused
    return _Position(step, after)


def run_metadata_page(
    store: ExecutionStore,
    workflow_execution_id: str,
    collection: str,
    pipeline_id: str | None,
    max_items: int,
    starting_token: str | None,
    text_budget: int = PAGE_TEXT_BUDGET,
) -> Page[StepRow]:
    label = _label(collection, pipeline_id)
    position = _decode(starting_token, label)
    store.get_execution(workflow_execution_id)  # not found: 404
    rows_of, keep = RUN_COLLECTIONS[collection]
    steps = [
        step
        for step in chain_order(store.list_steps(workflow_execution_id))
        if pipeline_id is None or step.pipeline_id == pipeline_id
    ]
    found: list[StepRow] = []
    used = 0
    index, after = position.step, position.after
    while index < len(steps):
        rows = store.list_rows(rows_of, steps[index].pipeline_execution_id, after, max_items + 1)
        for row in rows:
            if not keep(row):
                continue
            used += row_text_size(row)
            if len(found) == max_items or (found and used > text_budget):
                # this step has more than the page holds: resume inside it
                taken_here = found[-1].step is steps[index]
                resume = _Position(index, found[-1].row.row_key if taken_here else after)
                return Page(items=tuple(found), next_token=_encode(label, resume))
            found.append(StepRow(row, steps[index]))
        if len(rows) > max_items:  # read on in this step (rows left out may hide the rest)
            after = rows[-1].row_key
            continue
        index, after = index + 1, None
        if len(found) == max_items:
            more = index < len(steps)
            return Page(
                items=tuple(found), next_token=_encode(label, _Position(index)) if more else None
            )
    return Page(items=tuple(found))
