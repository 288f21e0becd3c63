"""What a details request reports of a sub-execution: its derived status and, for Step
Functions, its stages' (how they are read from the definition and the history:
domain/stage_history.py, imported by what reads them, not by every command that shows a run)."""

from enum import StrEnum

from pydantic import AwareDatetime, BaseModel, ConfigDict

from domain.errors import DomainError


class StageStatus(StrEnum):
    NOT_STARTED = "NOT_STARTED"
    RUNNING = "RUNNING"
    SUCCEEDED = "SUCCEEDED"
    CAUGHT = "CAUGHT"
    FAILED = "FAILED"
    ABORTED = "ABORTED"
    TIMED_OUT = "TIMED_OUT"
    UNKNOWN = "UNKNOWN"


class StageState(BaseModel):
    """A stage with the status derived from the history."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str
    state_type: str
    status: StageStatus
    start_date: AwareDatetime | None = None
    stop_date: AwareDatetime | None = None
    entries: int = 0  # times entered (a Map processor's states: once per iteration)
    retries: int = 0
    error: str = ""
    branch: int | None = None
    children: tuple["StageState", ...] = ()


# -- what a details request reports ------------------------------------------------------------


class SubExecutionReadError(DomainError):
    """Step Functions or AWS Batch could not say what a sub-execution is doing (best effort:
    the request goes on, the sub-execution is UNKNOWN and a warning says why)."""


class SubExecutionState(BaseModel):
    """A registered sub-execution with its derived status (and stages, for Step Functions)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    resource_type: str
    resource_id: str
    label: str = ""
    status: str = StageStatus.UNKNOWN.value
    state_machine_arn: str = ""
    start_date: AwareDatetime | None = None
    stop_date: AwareDatetime | None = None
    stages: tuple[StageState, ...] = ()
    note: str = ""  # why there is no status or no stages, when that is not an error


class SubExecutionWarning(BaseModel):
    """Why a sub-execution's status or stages could not be read in full (subExecutionWarnings)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    pipeline_execution_id: str
    resource_type: str
    resource_id: str
    message: str
