"""Cut every collection of a run's details to its bound, and say what was cut (seed 000)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from application.detail_collections import (
    INPUTS,
    MAX_ATTEMPTS,
    MAX_AVAILABLE_LOGS,
    MAX_INPUTS,
    MAX_REGISTERED,
    MAX_STEP_ROWS,
    MAX_STEPS,
    SELECTIONS,
    STEPS,
    Cursor,
    StepCollection,
    encode_cursor,
    step_path,
)
from application.ports.executions import Row
from domain.execution import ExecutionDetails, StepDetails
from domain.truncation import NOT_COUNTED, TruncatedCollection

T = TypeVar("T")
R = TypeVar("R", bound=Row)


class _Cuts:
    """The truncatedCollections of one response, in document order."""

    def __init__(self) -> None:
        self.found: list[TruncatedCollection] = []

    def rows(self, path: str, rows: Sequence[R], bound: int) -> tuple[R, ...]:
        """Rows read one past the bound: one more than the bound means more exist, uncounted."""
        if len(rows) <= bound:
            return tuple(rows)
        kept = tuple(rows[:bound])
        token = encode_cursor(path, Cursor(after=kept[-1].row_key))
        self.found.append(
            TruncatedCollection(
                collection=path, returned=bound, total=NOT_COUNTED, next_token=token
            )
        )
        return kept

    def capped(self, path: str, items: Sequence[T], cap: int) -> tuple[T, ...]:
        """A list its writer keeps at `cap` entries: full, it may have left later ones out (a
        registration past the cap is taken without them), so it is flagged, uncounted."""
        if len(items) >= cap:
            self.found.append(
                TruncatedCollection(collection=path, returned=len(items), total=NOT_COUNTED)
            )
        return tuple(items)

    def whole(
        self, path: str, items: Sequence[T], bound: int, total: int | None = None
    ) -> tuple[T, ...]:
        """A list read whole, or its first `bound` at least of a `total` counted: its total is
        known."""
        total = len(items) if total is None else total
        if total <= bound:
            return tuple(items)
        token = encode_cursor(path, Cursor(offset=bound))
        self.found.append(
            TruncatedCollection(collection=path, returned=bound, total=total, next_token=token)
        )
        return tuple(items[:bound])


def bound_steps(
    details: ExecutionDetails, total: int | None = None
) -> tuple[tuple[StepDetails, ...], TruncatedCollection | None]:
    """The first MAX_STEPS steps (already in chain order) of the run's `total` (those of
    `details` when not given), and the cut if there was one: made before anything is derived
    per step, so that a dropped step costs no further reads."""
    cuts = _Cuts()
    kept = cuts.whole(STEPS, details.steps, MAX_STEPS, total)
    return kept, next(iter(cuts.found), None)


def bound_details(
    details: ExecutionDetails, steps_cut: TruncatedCollection | None = None
) -> ExecutionDetails:
    """Each collection at most its bound; row collections are expected read with
    ROW_READ_LIMIT rows (one past the bound), lists whole."""
    cuts = _Cuts()
    inputs = cuts.rows(INPUTS, details.inputs, MAX_INPUTS)
    selections = cuts.rows(SELECTIONS, details.selections, MAX_INPUTS)
    if steps_cut is not None:
        cuts.found.append(steps_cut)
    steps = tuple(_bound_step(entry, cuts) for entry in details.steps)
    return details.model_copy(
        update={
            "inputs": inputs,
            "selections": selections,
            "steps": steps,
            "truncated_collections": (*details.truncated_collections, *cuts.found),
        }
    )


def _bound_step(entry: StepDetails, cuts: _Cuts) -> StepDetails:
    step, outputs = entry.step, entry.outputs

    def path(name: StepCollection) -> str:
        return step_path(step.pipeline_execution_id, name.value)

    bounded_step = step.model_copy(
        update={
            "registered_logs": cuts.capped(
                path(StepCollection.REGISTERED_LOGS), step.registered_logs, MAX_REGISTERED
            ),
            "registered_sub_executions": cuts.capped(
                path(StepCollection.REGISTERED_SUB_EXECUTIONS),
                step.registered_sub_executions,
                MAX_REGISTERED,
            ),
        }
    )
    return entry.model_copy(
        update={
            "step": bounded_step,
            "input_metadata": cuts.rows(
                path(StepCollection.INPUT_METADATA), entry.input_metadata, MAX_STEP_ROWS
            ),
            "outputs": outputs.model_copy(
                update={
                    "files": cuts.rows(
                        path(StepCollection.OUTPUT_FILES), outputs.files, MAX_STEP_ROWS
                    ),
                    "metadata": cuts.rows(
                        path(StepCollection.OUTPUT_METADATA), outputs.metadata, MAX_STEP_ROWS
                    ),
                    "results": cuts.rows(
                        path(StepCollection.OUTPUT_RESULTS), outputs.results, MAX_STEP_ROWS
                    ),
                    "logs": cuts.rows(path(StepCollection.LOGS), outputs.logs, MAX_STEP_ROWS),
                    "artifacts": cuts.rows(
                        path(StepCollection.ARTIFACTS), outputs.artifacts, MAX_STEP_ROWS
                    ),
                }
            ),
            "attempts": cuts.whole(path(StepCollection.ATTEMPTS), entry.attempts, MAX_ATTEMPTS),
            "available_logs": cuts.whole(
                path(StepCollection.AVAILABLE_LOGS), entry.available_logs, MAX_AVAILABLE_LOGS
            ),
        }
    )
