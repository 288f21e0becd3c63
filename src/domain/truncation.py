"""What a bounded read left out (seed 000: "never return a partially populated collection
without flagging it")."""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# `total` when the rest was not counted: counting would read what the bound is there to spare.
NOT_COUNTED = "more"


class TruncatedCollection(BaseModel):
    """One collection cut to its bound: where it is, how many were returned, how many exist."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    collection: str  # a collection path: `inputs`, `pipelineExecutions[<id>].outputFiles`, ...
    returned: int = Field(ge=0)
    total: int | Literal["more"]
    # the GetExecutionMetadata token that continues right after the returned items
    next_token: str | None = None
