"""A run's steps for a bounded read of its details: every row read as far as its head, the
first in chain order whole (ExecutionQueries.get_details' detailed_steps)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from adapters.item_budget import Item
from adapters.step_records import parse_pipeline_execution_record, parse_step_head
from domain.errors import UnreadableRowError
from domain.execution import PipelineExecution, StepHead, UnreadableRow, chain_order


def shown_run_steps(
    head_items: Sequence[Item],
    whole_items: Callable[[list[str]], Mapping[str, Item]],
    shown: int,
    left_out: list[UnreadableRow] | None,
) -> tuple[list[PipelineExecution], tuple[StepHead, ...]]:
    """The first `shown` steps in chain order, parsed whole, and every step's head in chain
    order: what chain_order(parse_run_steps(rows)) gives, whole for the first `shown` alone.

    `head_items` are the run's step rows in the order parse_run_steps would take them, whole or
    only their STEP_HEAD_ATTRIBUTES; `whole_items` gives whole rows by their step's id (the
    `pipelineExecutionId` of its head item). A row is left out (named in `left_out`, in the
    rows' order, else its UnreadableRowError raised) as parse_run_steps leaves it out, but for a
    step past those shown whose head reads and the rest of whose row does not: read no further,
    it is counted and not named (a page of the steps, which reads each row whole, names it).
    """
    numbered = all("stepIndex" in item for item in head_items)
    position = {str(item.get("pipelineExecutionId")): n for n, item in enumerate(head_items)}
    heads: list[StepHead] = []
    to_read: list[str] = []  # a head that does not read: its row whole names what is wrong
    for item in head_items:
        try:
            heads.append(parse_step_head(item))
        except UnreadableRowError:
            to_read.append(str(item.get("pipelineExecutionId")))
    whole: dict[str, PipelineExecution] = {}
    refused: list[tuple[int, UnreadableRowError]] = []
    while True:
        ordered = _in_run_order(heads, numbered)
        first = ordered[:shown]
        to_read += [h.pipeline_execution_id for h in first if h.pipeline_execution_id not in whole]
        if not to_read:
            break
        failed = _parse_whole(sorted(to_read, key=position.__getitem__), whole_items, whole)
        if failed and left_out is None:
            raise failed[0][1]
        refused += [(position[step_id], error) for step_id, error in failed]
        gone = {step_id for step_id, _ in failed}
        heads = [head for head in heads if head.pipeline_execution_id not in gone]
        to_read = []
    if left_out is not None:
        left_out += [UnreadableRow.of(error) for _, error in sorted(refused, key=lambda r: r[0])]
    steps = [whole[head.pipeline_execution_id] for head in first]
    if not numbered:  # numbered by their chain, as parse_run_steps numbers them
        steps = [
            step.model_copy(update={"step_index": head.step_index})
            for step, head in zip(steps, first, strict=True)
        ]
    return steps, tuple(ordered)


def _in_run_order(heads: list[StepHead], numbered: bool) -> list[StepHead]:
    if numbered:
        return chain_order(sorted(heads, key=lambda head: head.step_index))
    chained = chain_order(heads)
    return chain_order([replace(head, step_index=n) for n, head in enumerate(chained)])


def _parse_whole(
    ids: list[str],
    whole_items: Callable[[list[str]], Mapping[str, Item]],
    whole: dict[str, PipelineExecution],
) -> list[tuple[str, UnreadableRowError]]:
    """Parse these steps' whole rows into `whole`; each of those that do not read, with why."""
    items = whole_items(ids)
    failed = []
    for step_id in ids:
        try:
            whole[step_id] = parse_pipeline_execution_record(items[step_id])
        except UnreadableRowError as error:
            failed.append((step_id, error))
    return failed
