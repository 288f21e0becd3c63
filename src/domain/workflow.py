"""Workflow definitions and their immutable published versions (seed 003)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, StringConstraints, model_validator

Identifier = Annotated[
    str, StringConstraints(min_length=1, max_length=256, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
]


class ExecutionType(StrEnum):
    PYTHON = "python"
    COMMAND = "command"


class InputFileArity(StrEnum):
    ONE = "one"
    MANY = "many"
    NONE = "none"


class StepDefinition(BaseModel):
    """One pipeline step of a workflow version."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pipeline_id: Identifier
    pipeline_database_id: Identifier
    execution_type: ExecutionType
    handler: str | None = None
    command: tuple[str, ...] | None = None
    input_file_arity: InputFileArity = InputFileArity.MANY
    metadata_inputs: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _target_matches_type(self) -> StepDefinition:
        if self.execution_type is ExecutionType.PYTHON:
            if not self.handler or ":" not in self.handler:
                raise ValueError("handler: a python step needs handler: package.module:function")
            if self.command is not None:
                raise ValueError("command: only a command step takes a command")
        else:
            if not self.command:
                raise ValueError("command: a command step needs a non-empty argv list")
            if self.handler is not None:
                raise ValueError("handler: only a python step takes a handler")
        return self

    @property
    def pipeline_key(self) -> str:
        return f"{self.pipeline_database_id}:{self.pipeline_id}"


class WorkflowVersion(BaseModel):
    """A published, immutable snapshot of a workflow: its ordered steps."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    database_id: Identifier
    workflow_id: Identifier
    version: int = Field(ge=1)
    description: str = ""
    steps: tuple[StepDefinition, ...] = Field(min_length=1)
    published_at: AwareDatetime
    digest: str

    @property
    def workflow_key(self) -> str:
        return f"{self.database_id}:{self.workflow_id}"
