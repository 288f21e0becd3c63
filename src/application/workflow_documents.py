"""The workflow file a user publishes (`wfx workflows publish FILE.yaml`), validated strictly."""

import json
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)
from pydantic.alias_generators import to_camel

from application.validation_messages import describe_validation_error
from domain.approvals import (
    MAX_APPROVERS,
    MAX_MESSAGE_CHARS,
    MAX_TIMEOUT_SECONDS,
    ApprovalGate,
    Approver,
)
from domain.control_characters import FREE_TEXT_KEEPS, refusing_control_characters
from domain.errors import InvalidInputError
from domain.workflow import (
    MAX_STEP_BYTES,
    MAX_STEPS,
    MAX_STEPS_BYTES,
    BackoffRate,
    ExecutionType,
    Identifier,
    InputFileArity,
    MaxAttempts,
    RetryIntervalSeconds,
    step_target_problem,
)

# Every free-text field has a bound: a document is read back by every reader of /workflows and
# the catalog page, and a version is one store item (400 KB on DynamoDB).
MAX_DESCRIPTION_CHARS = 4096
MAX_TARGET_CHARS = 2048  # a handler, a path, a Lambda or Batch name or ARN
MAX_COMMAND_ARGUMENTS = 256
MAX_METADATA_INPUTS = 100
Target = Annotated[
    str,
    Field(min_length=1, max_length=MAX_TARGET_CHARS),
    AfterValidator(refusing_control_characters()),
]
# shown on every reader's page and terminal: lines and tabs, but nothing that acts on a terminal
FreeText = AfterValidator(refusing_control_characters(FREE_TEXT_KEEPS))
# a command's argument may be a script of many lines (`python -c ...`)
Argument = Annotated[str, Field(min_length=1, max_length=MAX_TARGET_CHARS), FreeText]


def _not_true_or_false(value: object) -> object:
    # pydantic reads true as 1 where a number goes, and YAML 1.1 reads yes, on and true as true
    if isinstance(value, bool):
        raise ValueError(
            f"expected a number, got {str(value).lower()} (YAML reads yes, no, on and off as "
            "true or false)"
        )
    return value


Number = BeforeValidator(_not_true_or_false)


class _Document(BaseModel):
    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=False,
        defer_build=True,
    )


def _importable_form(handler: str) -> bool:
    """Whether `handler` could name what `import` and attribute reads reach: a module whose
    source cannot be read through (`from x import *`) is let through by the handler check."""
    module, _, attributes = handler.partition(":")
    parts = [*module.split("."), *attributes.split(".")]
    return all(part.isidentifier() for part in parts)


class RetryDocument(_Document):
    max_attempts: Annotated[MaxAttempts, Number] = 3
    interval_seconds: Annotated[RetryIntervalSeconds, Number] = 1
    backoff_rate: Annotated[BackoffRate, Number] = 2.0


class StepDocument(_Document):
    pipeline_id: Identifier
    pipeline_database_id: Identifier | None = None
    execution_type: ExecutionType
    handler: Target | None = None
    # a folder relative to the workflow file, where the handler's module is looked for
    handler_path: Target | None = None
    command: list[Argument] | None = Field(default=None, max_length=MAX_COMMAND_ARGUMENTS)
    function_name: Target | None = None
    # None, not False, when absent: `waitForCallback: false` on a batch step is still refused.
    wait_for_callback: bool | None = None
    job_queue: Target | None = None
    job_definition: Target | None = None
    # None: many, except on an approval step, which reads no file
    input_file_arity: InputFileArity | None = None
    metadata_inputs: list[Target] = Field(default_factory=list, max_length=MAX_METADATA_INPUTS)
    retry: RetryDocument | None = None
    # no user name holds such a character (domain.constraints), so no one could decide the gate
    approvers: list[Annotated[Approver, AfterValidator(refusing_control_characters())]] | None = (
        Field(default=None, max_length=MAX_APPROVERS)
    )
    message: Annotated[str, FreeText] | None = Field(default=None, max_length=MAX_MESSAGE_CHARS)
    timeout_seconds: Annotated[int, Number] | None = Field(
        default=None, ge=1, le=MAX_TIMEOUT_SECONDS
    )

    @model_validator(mode="after")
    def _target_matches_type(self) -> "StepDocument":
        targets = {
            "handler": self.handler,
            "command": self.command,
            "functionName": self.function_name,
            "waitForCallback": self.wait_for_callback,
            "jobQueue": self.job_queue,
            "jobDefinition": self.job_definition,
            "approvers": self.approvers,
            "message": self.message,
            "timeoutSeconds": self.timeout_seconds,
        }
        problem = step_target_problem(self.execution_type, targets)
        if problem is None and self.handler is not None and not _importable_form(self.handler):
            problem = (
                "handler: expected package.module:function (Python names; :Class.method too), "
                f"got {self.handler!r}"
            )
        gate = self.execution_type is ExecutionType.APPROVAL
        if problem is None and gate and self.retry:
            problem = "retry: an approval step is decided once, it is not retried"
        if self.handler_path is not None and self.execution_type is not ExecutionType.PYTHON:
            problem = problem or "handlerPath: only a python step has a handler to look for"
        if problem is None and gate and self.input_file_arity not in (None, InputFileArity.NONE):
            problem = "inputFileArity: an approval step reads no file (none)"
        if problem is not None:
            raise ValueError(problem)
        if self.stored_bytes > MAX_STEP_BYTES:
            raise ValueError(
                f"{self.stored_bytes} bytes, more than the {MAX_STEP_BYTES} a step may take: "
                "a step is one stored item (400 KB on DynamoDB); let the step read its long "
                "text from a file"
            )
        return self

    @property
    def stored_bytes(self) -> int:
        """About what the step takes in its stored item, in UTF-8 bytes (an alias in a YAML
        file may repeat a long text many times for the price of one)."""
        fields = self.model_dump(mode="json", exclude_none=True)
        text = json.dumps(fields, ensure_ascii=False, separators=(",", ":"))
        return len(text.encode(errors="surrogatepass"))  # a lone surrogate is refused by name


class WorkflowDocument(_Document):
    database_id: Identifier
    workflow_id: Identifier
    description: Annotated[str, FreeText] = Field(default="", max_length=MAX_DESCRIPTION_CHARS)
    steps: list[StepDocument] = Field(min_length=1, max_length=MAX_STEPS)

    @model_validator(mode="after")
    def _pipeline_ids_are_unique(self) -> "WorkflowDocument":
        first: dict[str, int] = {}
        for index, step in enumerate(self.steps):
            earlier = first.setdefault(step.pipeline_id, index)
            if earlier != index:
                raise ValueError(
                    f"steps[{index}].pipelineId: {step.pipeline_id!r} is steps[{earlier}]'s "
                    "already; each step of a workflow has its own"
                )
        total = sum(step.stored_bytes for step in self.steps)
        if total > MAX_STEPS_BYTES:
            raise ValueError(
                f"steps: {total} bytes together, more than the {MAX_STEPS_BYTES} a version's "
                "steps may take: they are stored in one transaction (4 MB on DynamoDB) and read "
                "in one answer"
            )
        return self


def input_file_arity(step: StepDocument) -> InputFileArity:
    if step.input_file_arity is not None:
        return step.input_file_arity
    gate = step.execution_type is ExecutionType.APPROVAL
    return InputFileArity.NONE if gate else InputFileArity.MANY


def approval_gate(step: StepDocument) -> ApprovalGate | None:
    """The gate an approval step asks for; None for any other step."""
    if step.execution_type is not ExecutionType.APPROVAL or not step.approvers:
        return None
    gate: dict[str, object] = {"approvers": tuple(step.approvers)}
    if step.message is not None:
        gate["message"] = step.message
    if step.timeout_seconds is not None:
        gate["timeout_seconds"] = step.timeout_seconds
    return ApprovalGate.model_validate(gate)


def parse_workflow_document(data: Any) -> WorkflowDocument:
    if not isinstance(data, dict):
        raise InvalidInputError(
            "workflow file: expected a mapping with databaseId, workflowId, steps"
        )
    try:
        return WorkflowDocument.model_validate(data)
    except ValidationError as error:
        raise InvalidInputError(describe_validation_error(error)) from None


def anchored_at(document: WorkflowDocument, folder: Path) -> WorkflowDocument:
    """The document with each python step's handlerPath made absolute, from the folder of the
    workflow file (the folder itself when the step names none): a worker started from any other
    folder imports the handler from the same place."""
    steps = [
        step.model_copy(update={"handler_path": _absolute(folder, step, index)})
        if step.execution_type is ExecutionType.PYTHON
        else step
        for index, step in enumerate(document.steps)
    ]
    return document.model_copy(update={"steps": steps})


def _absolute(folder: Path, step: StepDocument, index: int) -> str:
    try:
        return str((folder / (step.handler_path or ".")).resolve())
    except RuntimeError:  # Python 3.11's word for a loop of symbolic links
        raise InvalidInputError(
            f"steps[{index}].handlerPath ({step.pipeline_id}): {step.handler_path or '.'} is a "
            "loop of symbolic links, which leads to no folder"
        ) from None
