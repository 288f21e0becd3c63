"""The collections of a run's details: their paths, their bounds, and the tokens that page them.

Seed 000: every response that bounds a collection names what it dropped in truncatedCollections,
so that the caller can page the rest through the details/metadata route. A path names one
collection of the details document (`inputs`, `pipelineExecutions`, or one step's own as
`pipelineExecutions[<pipelineExecutionId>].outputFiles`); the same path selects it for paging.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from application.ports.executions import RowCollection
from domain.errors import InvalidInputError
from domain.paging import page_token, token_fields

# -- the bounds of GetExecutionDetails: one place ----------------------------------------------

MAX_INPUTS = 100
MAX_STEPS = 100
MAX_STEP_ROWS = 100  # each of a step's row collections (input metadata, outputs, logs, artifacts)
MAX_ATTEMPTS = 100
MAX_AVAILABLE_LOGS = 100
MAX_REGISTERED = 50  # the registration cap (seed 000): a stored list is never cut in practice

# What the details read of each row collection: one row past the bound says that more exist.
ROW_READ_LIMIT = max(MAX_INPUTS, MAX_STEP_ROWS) + 1

# -- paging -------------------------------------------------------------------------------------

DEFAULT_PAGE_ITEMS = 100
MAX_PAGE_ITEMS = 1000

INPUTS = "inputs"
SELECTIONS = RowCollection.SELECTIONS.value  # the run's selections: VAMS's inputFiles
STEPS = "pipelineExecutions"


class StepCollection(StrEnum):
    """A step's collections: its row tables, then the lists kept on or derived from its row."""

    INPUT_METADATA = RowCollection.INPUT_METADATA.value
    OUTPUT_FILES = RowCollection.OUTPUT_FILES.value
    OUTPUT_METADATA = RowCollection.OUTPUT_METADATA.value
    OUTPUT_RESULTS = RowCollection.OUTPUT_RESULTS.value
    LOGS = RowCollection.LOGS.value
    ARTIFACTS = RowCollection.ARTIFACTS.value
    ATTEMPTS = "attempts"
    AVAILABLE_LOGS = "availableLogs"
    REGISTERED_LOGS = "registeredLogs"
    REGISTERED_SUB_EXECUTIONS = "registeredSubExecutions"

    @property
    def row_collection(self) -> RowCollection | None:
        """The store table it pages through, or None for a list read whole (and cut here)."""
        return RowCollection(self.value) if self.value in set(RowCollection) else None


ALLOWED_PATHS = (
    "input",  # VAMS's run-wide collections (application.run_metadata_pages)
    "inputDatabase",
    "output",
    INPUTS,
    STEPS,
    SELECTIONS,
    *(f"{STEPS}[<pipelineExecutionId>].{name.value}" for name in StepCollection),
)
_STEP_PATH = re.compile(r"pipelineExecutions\[(?P<step>[^\[\]]+)\]\.(?P<name>\w+)")


@dataclass(frozen=True)
class CollectionPath:
    """A parsed path: a step's collection when `step_id` is set, else `inputs` or the steps."""

    name: str
    step_id: str | None = None

    @property
    def text(self) -> str:
        return self.name if self.step_id is None else step_path(self.step_id, self.name)

    @property
    def row_collection(self) -> RowCollection | None:
        if self.step_id is None:
            return _RUN_ROWS.get(self.name)
        return StepCollection(self.name).row_collection


_RUN_ROWS = {INPUTS: RowCollection.INPUTS, SELECTIONS: RowCollection.SELECTIONS}


def step_path(step_id: str, name: str) -> str:
    return f"{STEPS}[{step_id}].{name}"


def parse_collection(text: str) -> CollectionPath:
    """The path `text` names; InvalidInputError naming the field and what it may be."""
    if text in (INPUTS, SELECTIONS, STEPS):
        return CollectionPath(text)
    matched = _STEP_PATH.fullmatch(text)
    if matched is None or matched["name"] not in set(StepCollection):
        raise InvalidInputError(
            f"collection: must be one of {', '.join(ALLOWED_PATHS)}; got {text!r}"
        )
    return CollectionPath(matched["name"], matched["step"])


# -- tokens: the position after the last item returned ----------------------------------------


@dataclass(frozen=True)
class Cursor:
    """Where a page starts: past a row's sort key (row collections), or at an offset."""

    after: str | None = None
    offset: int = 0


def encode_cursor(path: str, cursor: Cursor) -> str:
    position: dict[str, str | int] = {"collection": path}
    if cursor.after is not None:
        position["after"] = cursor.after
    else:
        position["offset"] = cursor.offset
    return page_token(position)


def decode_cursor(token: str | None, path: CollectionPath) -> Cursor:
    """The cursor a token stands for, refused unless it continues this very collection."""
    if token is None:
        return Cursor()
    refused = InvalidInputError("startingToken: not a token this collection returned")
    try:
        position = token_fields(token)
    except ValueError:
        raise refused from None
    if not isinstance(position, dict) or position.get("collection") != path.text:
        raise refused
    by_rows = path.row_collection is not None
    if by_rows and set(position) == {"collection", "after"}:
        after = position["after"]
        if isinstance(after, str) and after:
            return Cursor(after=after)
    if not by_rows and set(position) == {"collection", "offset"}:
        offset = position["offset"]
        if isinstance(offset, int) and not isinstance(offset, bool) and offset > 0:
            return Cursor(offset=offset)
    raise refused
