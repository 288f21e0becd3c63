"""Workflow definitions and their immutable published versions (seed 003)."""

import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Annotated, Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, StringConstraints, model_validator

from domain.approvals import ApprovalGate

IDENTIFIER_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
IDENTIFIER_MAX_LENGTH = 256
IDENTIFIER_RULE = (
    "must start with a letter or digit and hold only letters, digits, '.', '_' and '-' "
    f"(at most {IDENTIFIER_MAX_LENGTH} characters)"
)
Identifier = Annotated[
    str,
    StringConstraints(min_length=1, max_length=IDENTIFIER_MAX_LENGTH, pattern=IDENTIFIER_PATTERN),
]


class ExecutionType(StrEnum):
    PYTHON = "python"
    COMMAND = "command"
    LAMBDA = "lambda"
    BATCH = "batch"
    APPROVAL = "approval"  # waits for a person's decision (domain.approvals); runs anywhere


# The local runner's own types: Step Functions cannot call a python handler or a local command.
LOCAL_ONLY_TYPES = frozenset({ExecutionType.PYTHON, ExecutionType.COMMAND})


class InputFileArity(StrEnum):
    ONE = "one"
    MANY = "many"
    NONE = "none"


# The fields that say what a step runs, by their workflow-file names, under the type owning them.
TARGET_FIELDS: Mapping[ExecutionType, tuple[str, ...]] = {
    ExecutionType.PYTHON: ("handler",),
    ExecutionType.COMMAND: ("command",),
    ExecutionType.LAMBDA: ("functionName", "waitForCallback"),
    ExecutionType.BATCH: ("jobQueue", "jobDefinition"),
    ExecutionType.APPROVAL: ("approvers", "message", "timeoutSeconds"),
}
_FIELD_OWNERS = {name: kind for kind, names in TARGET_FIELDS.items() for name in names}
_FUNCTION_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_FUNCTION_ARN = re.compile(
    r"^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]{1,64}(:[A-Za-z0-9_$-]+)?$"
)
_BATCH_REFERENCE = re.compile(r"^\S{1,1600}$")  # a name, name:revision or ARN; never blank


def _own_field_problem(execution_type: ExecutionType, targets: Mapping[str, Any]) -> str | None:
    if execution_type is ExecutionType.PYTHON:
        handler = targets.get("handler")
        if not isinstance(handler, str) or ":" not in handler:
            return "handler: a python step needs handler: package.module:function"
    elif execution_type is ExecutionType.COMMAND:
        if not targets.get("command"):
            return "command: a command step needs a non-empty argv list"
    elif execution_type is ExecutionType.LAMBDA:
        function = targets.get("functionName")
        if function is None:
            return "functionName: a lambda step needs functionName: a function name or ARN"
        if not (_FUNCTION_NAME.match(function) or _FUNCTION_ARN.match(function)):
            return f"functionName: expected a Lambda function name or ARN, got {function!r}"
    elif execution_type is ExecutionType.APPROVAL:
        if not targets.get("approvers"):
            return "approvers: an approval step needs approvers: user ids or role::NAME entries"
    else:
        for name in ("jobQueue", "jobDefinition"):
            value = targets.get(name)
            if value is None:
                return f"{name}: a batch step needs {name}: a name or ARN"
            if not _BATCH_REFERENCE.match(value):
                return f"{name}: expected a name or ARN without blanks, got {value!r}"
    return None


def step_target_problem(execution_type: ExecutionType, targets: Mapping[str, Any]) -> str | None:
    """Why a step's target fields do not fit its execution type, or None when they do.

    `targets` maps target fields by workflow-file name (`handler`, `functionName`, ...) to their
    values, None when absent: a step needs its own type's fields and takes no other type's.
    """
    problem = _own_field_problem(execution_type, targets)
    if problem is not None:
        return problem
    for name, value in targets.items():
        owner = _FIELD_OWNERS[name]
        if value is not None and owner is not execution_type:
            return f"{name}: only a {owner.value} step takes {name}"
    return None


# One publish is one DynamoDB transaction (100 actions at most): the definition, the version and
# one step definition per step.
MAX_STEPS = 98
# Each step is one store item, all of them written by that one transaction (DynamoDB: 400 KB an
# item, 4 MB a transaction), each beside its keys and attribute names; a version is read whole
# in one answer, beside a page of versions (6 MB from a Lambda: domain.paging).
MAX_STEP_BYTES = 256 * 1024
MAX_STEPS_BYTES = 1024 * 1024

MaxAttempts = Annotated[int, Field(ge=1, le=10)]
# Step Functions' own bounds on a Retrier's IntervalSeconds; a backoff past 100 waits past that
# at the second retry already
RetryIntervalSeconds = Annotated[int, Field(ge=1, le=99_999_999)]
BackoffRate = Annotated[float, Field(ge=1.0, le=100.0)]


class RetryPolicy(BaseModel):
    """How often a failed step is tried again, and how long to wait in between.

    `max_attempts` counts every attempt, the first one included (seed 003: each is a
    TaskExecution), so 1 means no retry. On Step Functions the generated state machine retries
    in its own loop (no native `Retry`), so that wfx records each attempt there too.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    max_attempts: MaxAttempts = 3
    interval_seconds: RetryIntervalSeconds = 1
    backoff_rate: BackoffRate = 2.0

    def delay_before(self, attempt: int) -> float:
        """Seconds to wait before attempt `attempt` (2 is the first retry)."""
        return float(self.interval_seconds * self.backoff_rate ** max(attempt - 2, 0))


class StepDefinition(BaseModel):
    """One pipeline step of a workflow version."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    pipeline_id: Identifier
    pipeline_database_id: Identifier
    execution_type: ExecutionType
    handler: str | None = None
    # a python step's own import folder (absolute), searched after sys.path by whoever runs it
    handler_path: str | None = None
    command: tuple[str, ...] | None = None
    function_name: str | None = None
    wait_for_callback: bool = False
    job_queue: str | None = None
    job_definition: str | None = None
    input_file_arity: InputFileArity = InputFileArity.MANY
    metadata_inputs: tuple[str, ...] = ()
    retry: RetryPolicy | None = None
    approval: ApprovalGate | None = None

    @model_validator(mode="after")
    def _target_matches_type(self) -> "StepDefinition":
        problem = step_target_problem(self.execution_type, self.targets)
        if problem is None and self.approval is not None and self.retry is not None:
            problem = "retry: an approval step is decided once, it is not retried"
        if problem is not None:
            raise ValueError(problem)
        return self

    @property
    def targets(self) -> dict[str, Any]:
        """The target fields by workflow-file name; None when absent (waitForCallback: false)."""
        return {
            "handler": self.handler,
            "command": self.command,
            "functionName": self.function_name,
            "waitForCallback": self.wait_for_callback or None,
            "jobQueue": self.job_queue,
            "jobDefinition": self.job_definition,
            "approvers": self.approval.approvers if self.approval else None,
            "message": self.approval.message if self.approval else None,
            "timeoutSeconds": self.approval.timeout_seconds if self.approval else None,
        }

    @property
    def pipeline_key(self) -> str:
        return f"{self.pipeline_database_id}:{self.pipeline_id}"

    @property
    def runs_locally(self) -> bool:
        return self.execution_type in LOCAL_ONLY_TYPES


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

    def step_definition_id(self, step_index: int) -> str:
        """The id of the version's step at `step_index` (0-based), which its step runs name:
        `database:workflow:version:stepIndex`, the step definition's key parts colon-joined (seed
        000), so it reads back to the definition (identifiers hold no `:`)."""
        if not 0 <= step_index < len(self.steps):
            raise ValueError(f"{self.workflow_key} version {self.version} has no step {step_index}")
        return f"{self.workflow_key}:{self.version}:{step_index}"


class WorkflowDefinition(BaseModel):
    """The stable namespace of a workflow's versions (seed 003 WORKFLOW_DEFINITION)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    database_id: Identifier
    workflow_id: Identifier
    # Who published version 1; None for a workflow published before wfx recorded publishers.
    owner: str | None = None
    description: str = ""  # its latest version's
    created_at: AwareDatetime  # when version 1 was published
    latest_version: int = Field(ge=1)

    @classmethod
    def first(cls, version: WorkflowVersion, owner: str | None) -> "WorkflowDefinition":
        """The definition that version 1 creates."""
        if version.version != 1:
            raise ValueError(f"{version.workflow_key}: a definition starts at version 1")
        return cls(
            database_id=version.database_id,
            workflow_id=version.workflow_id,
            owner=owner,
            description=version.description,
            created_at=version.published_at,
            latest_version=1,
        )

    @property
    def workflow_key(self) -> str:
        return f"{self.database_id}:{self.workflow_id}"

    @property
    def next_version(self) -> int:
        return self.latest_version + 1

    def points_at(self, version: WorkflowVersion) -> bool:
        return self.workflow_key == version.workflow_key and self.latest_version == version.version

    def published(self, version: WorkflowVersion) -> "WorkflowDefinition":
        """The definition once `version`, the next number, is published: the pointer only ever
        moves one step forward, which is what lets a store refuse a rival publish."""
        if version.workflow_key != self.workflow_key or version.version != self.next_version:
            raise ValueError(
                f"{self.workflow_key}: version {version.version} of {version.workflow_key} "
                f"does not follow version {self.latest_version}"
            )
        changes = {"latest_version": version.version, "description": version.description}
        return self.model_validate(self.model_dump() | changes)
