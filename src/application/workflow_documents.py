"""The workflow file a user publishes (`wfx workflows publish FILE.yaml`), validated strictly."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from application.validation_messages import describe_validation_error
from domain.errors import InvalidInputError
from domain.workflow import ExecutionType, Identifier, InputFileArity, step_target_problem


class _Document(BaseModel):
    model_config = ConfigDict(
        frozen=True, extra="forbid", alias_generator=to_camel, populate_by_name=False
    )


class StepDocument(_Document):
    pipeline_id: Identifier
    pipeline_database_id: Identifier | None = None
    execution_type: ExecutionType
    handler: str | None = None
    command: list[str] | None = None
    input_file_arity: InputFileArity = InputFileArity.MANY
    metadata_inputs: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _target_matches_type(self) -> StepDocument:
        problem = step_target_problem(self.execution_type, self.handler, self.command)
        if problem is not None:
            raise ValueError(problem)
        return self


class WorkflowDocument(_Document):
    database_id: Identifier
    workflow_id: Identifier
    description: str = ""
    steps: list[StepDocument] = Field(min_length=1)


def parse_workflow_document(data: Any) -> WorkflowDocument:
    if not isinstance(data, dict):
        raise InvalidInputError(
            "workflow file: expected a mapping with databaseId, workflowId, steps"
        )
    try:
        return WorkflowDocument.model_validate(data)
    except ValidationError as error:
        raise InvalidInputError(describe_validation_error(error)) from None
