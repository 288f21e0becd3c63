"""What became of each sub-process an abort tried to stop (seed 000, "Abort reaches inside").

An abort records one outcome per registered child on its step. Two outcomes leave the child's
fate open (a stop was only requested, or the stop failed): the sweep confirms those later and
asks again. A confirmed outcome is final: a later, older-looking answer never overwrites it.
"""

from collections.abc import Iterable
from enum import StrEnum

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator

from domain.logs import RegisteredSubExecution
from domain.redaction import redact


class StopOutcome(StrEnum):
    """What a stop of one child achieved, as far as wfx knows."""

    STOP_REQUESTED = "stopRequested"  # asked; not yet seen to have ended
    STOPPED = "stopped"  # confirmed ended after our stop
    ALREADY_FINISHED = "alreadyFinished"  # it had ended (or never existed) before we asked
    COULD_NOT_STOP = "couldNotStop"  # the stop failed or was refused; still maybe running
    UNSUPPORTED = "unsupported"  # wfx has no way to stop this resource type


UNCONFIRMED_OUTCOMES = frozenset({StopOutcome.STOP_REQUESTED, StopOutcome.COULD_NOT_STOP})


# A service's message is a line or two; a cut keeps 50 stop records inside one DynamoDB item.
MAX_STOP_DETAIL = 1000


def stop_detail(text: str) -> str:
    """Why a stop went as it did, redacted, and cut to MAX_STOP_DETAIL characters."""
    redacted = redact(text)
    if len(redacted) <= MAX_STOP_DETAIL:
        return redacted
    return redacted[: MAX_STOP_DETAIL - 1] + "…"


class StopAttempt(BaseModel):
    """One answer of a controller: the outcome and why (redacted: it may quote a service)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    outcome: StopOutcome
    detail: str = ""

    @field_validator("detail")
    @classmethod
    def _redacted(cls, detail: str) -> str:
        return stop_detail(detail)


class SubExecutionStop(BaseModel):
    """The recorded outcome of stopping one registered child; `tries` counts stop requests."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    resource_type: str
    resource_id: str
    outcome: StopOutcome
    detail: str = ""
    at: AwareDatetime
    tries: int = Field(default=1, ge=0)

    @field_validator("detail")
    @classmethod
    def _redacted(cls, detail: str) -> str:
        return stop_detail(detail)

    @classmethod
    def of(
        cls, sub: RegisteredSubExecution, attempt: StopAttempt, at: AwareDatetime, tries: int
    ) -> "SubExecutionStop":
        return cls(
            resource_type=sub.resource_type,
            resource_id=sub.resource_id,
            outcome=attempt.outcome,
            detail=attempt.detail,
            at=at,
            tries=tries,
        )

    @property
    def key(self) -> tuple[str, str]:
        return (self.resource_type, self.resource_id)

    @property
    def is_unconfirmed(self) -> bool:
        return self.outcome in UNCONFIRMED_OUTCOMES

    @property
    def is_final(self) -> bool:
        return not self.is_unconfirmed

    def describe(self) -> str:
        """One line for a warning or a table: type, id, outcome and why."""
        detail = f": {self.detail}" if self.detail else ""
        return f"{self.resource_type} {self.resource_id} {self.outcome.value}{detail}"


def merge_stop(stored: SubExecutionStop | None, new: SubExecutionStop) -> SubExecutionStop:
    """The record after a new attempt: a final outcome never goes back; tries accumulate."""
    if stored is None:
        return new
    if stored.is_final:
        return stored
    return new.model_copy(update={"tries": stored.tries + new.tries})


def merge_stops(
    stored: Iterable[SubExecutionStop], new: Iterable[SubExecutionStop]
) -> tuple[SubExecutionStop, ...]:
    """Merge new outcomes into the stored list by (type, id), keeping the stored order."""
    merged = {stop.key: stop for stop in stored}
    for stop in new:
        merged[stop.key] = merge_stop(merged.get(stop.key), stop)
    return tuple(merged.values())


def left_running_warning(step_label: str, stop: SubExecutionStop) -> str | None:
    """The warning a caller gets for a child that may still be running, or None."""
    if stop.outcome is StopOutcome.UNSUPPORTED:
        return (
            f"step {step_label}: {stop.resource_type} {stop.resource_id} was left running: "
            f"wfx cannot stop {stop.resource_type}"
        )
    if stop.outcome is StopOutcome.COULD_NOT_STOP:
        return (
            f"step {step_label}: {stop.resource_type} {stop.resource_id} was left running: "
            f"could not stop it: {stop.detail}"
        )
    if stop.outcome is StopOutcome.STOP_REQUESTED:
        said = f" ({stop.detail})" if stop.detail else ""
        return (
            f"step {step_label}: {stop.resource_type} {stop.resource_id} may still be running: "
            f"its stop was requested, not yet seen to end{said}; "
            "`wfx maintenance sweep-aborts` confirms it"
        )
    return None
