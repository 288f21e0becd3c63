"""Workflow definitions and their immutable published versions (seed 003)."""

from __future__ import annotations

from collections.abc import Sequence
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


def step_target_problem(
    execution_type: ExecutionType, handler: str | None, command: Sequence[str] | None
) -> str | None:
    """Why a step's handler/command does not fit its execution type, or None when it does."""
    if execution_type is ExecutionType.PYTHON:
        if not handler or ":" not in handler:
            return "handler: a python step needs handler: package.module:function"
        if command is not None:
            return "command: only a command step takes a command"
    else:
        if not command:
            return "command: a command step needs a non-empty argv list"
        if handler is not None:
            return "handler: only a python step takes a handler"
    return None


class StepDefinition(BaseModel):
    """One pipeline step of a workflow version."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    pipeline_id: Identifier
    pipeline_database_id: Identifier
    execution_type: ExecutionType
    handler: str | None = None
    command: tuple[str, ...] | None = None
    input_file_arity: InputFileArity = InputFileArity.MANY
    metadata_inputs: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _target_matches_type(self) -> StepDefinition:
        problem = step_target_problem(self.execution_type, self.handler, self.command)
        if problem is not None:
            raise ValueError(problem)
        return self

    @property
    def pipeline_key(self) -> str:
        return f"{self.pipeline_database_id}:{self.pipeline_id}"


class WorkflowVersion(BaseModel):
    """A published, immutable snapshot of a workflow: its ordered steps."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    database_id: Identifier
    workflow_id: Identifier
    version: int = Field(ge=1)
    description: str = ""
    steps: tuple[StepDefinition, ...] = Field(min_length=1)
    published_at: AwareDatetime
    digest: str
    # Where the version is deployed on Step Functions (`wfx workflows deploy`); set once.
    state_machine_arn: str | None = None

    @property
    def workflow_key(self) -> str:
        return f"{self.database_id}:{self.workflow_id}"
