"""One page of details/metadata (`{"Items", "collection", "NextToken"}`, as VAMS's paged metadata
read answers; `wfx executions metadata --json` prints the same): each item in the shape the details
document (entrypoints.vams_details) gives the same record, so a collection reads alike on the
details answer and on every page that continues it.

VAMS's keys for the rows its details show: input metadata (`input`, `inputDatabase`, a step's
`inputMetadata`), output metadata (`output`, a step's `outputMetadata`), a step's output files
(`outputFiles`, as `outputs.files`) and input files (`inputs`, `inputSelections`). wfx's own
collections (steps, results without their text, logs, artifacts, attempts, registered and
available logs) keep wfx's row shapes.
"""

from __future__ import annotations

from typing import Self

from pydantic import Field

from application.run_metadata_pages import StepRow
from application.use_cases.get_execution_metadata import DetailItem
from domain.attempts import TaskExecution
from domain.available_logs import AvailableLog
from domain.execution import (
    Artifact,
    ExecutionInput,
    OutputFile,
    OutputMetadata,
    OutputResult,
    PipelineExecution,
    StepInputMetadata,
    StepLog,
)
from domain.logs import RegisteredLog, RegisteredSubExecution
from domain.paging import Page
from entrypoints.responses import (
    ArtifactResponse,
    AttemptResponse,
    AvailableLogResponse,
    OutputResultResponse,
    PipelineExecutionResponse,
    RegisteredLogResponse,
    RegisteredSubExecutionResponse,
    StepLogResponse,
)
from entrypoints.vams_details import (
    VamsInputFile,
    VamsInputMetadata,
    VamsOutputFile,
    VamsOutputMetadata,
)
from entrypoints.vams_responses import VamsResponse

PageItem = (
    VamsInputMetadata
    | VamsOutputMetadata
    | VamsInputFile
    | PipelineExecutionResponse
    | VamsOutputFile
    | OutputResultResponse
    | StepLogResponse
    | ArtifactResponse
    | AttemptResponse
    | AvailableLogResponse
    | RegisteredLogResponse
    | RegisteredSubExecutionResponse
)


def page_item(item: DetailItem) -> PageItem:
    """The shape of one item: the details document's for the record, else wfx's row."""
    match item:
        case StepRow(row=StepInputMetadata() as row, step=step):
            return VamsInputMetadata.of(row, step)
        case StepRow(row=OutputMetadata() as row, step=step):
            return VamsOutputMetadata.of(row, step)
        case StepRow(row=OutputFile() as row, step=step, output_asset=target):
            return VamsOutputFile.of(row, step, target)
        case ExecutionInput():
            return VamsInputFile.of(item)
        case PipelineExecution():
            return PipelineExecutionResponse.of(item)
        case OutputResult():
            return OutputResultResponse.of(item)
        case StepLog():
            return StepLogResponse.of(item)
        case Artifact():
            return ArtifactResponse.of(item)
        case TaskExecution():
            return AttemptResponse.of(item)
        case AvailableLog():
            return AvailableLogResponse.of(item)
        case RegisteredLog():
            return RegisteredLogResponse.of(item)
        case RegisteredSubExecution():
            return RegisteredSubExecutionResponse.of(item)
    raise TypeError(f"not an item of a details collection: {type(item).__name__}")


class MetadataPage(VamsResponse):
    """`NextToken` continues the collection and is left out on the last page, as VAMS leaves it
    out (its presence is what says there is more)."""

    items: tuple[PageItem, ...] = Field(alias="Items")
    collection: str  # the collection paged, as asked (VAMS echoes it)
    next_token: str | None = Field(default=None, alias="NextToken")

    @classmethod
    def of(cls, page: Page[DetailItem], collection: str) -> Self:
        return cls(
            items=tuple(map(page_item, page.items)),
            collection=collection,
            next_token=page.next_token,
        )
