"""The answers of the routes VAMS 2.6 has, in VAMS's envelope: `{"message": ...}` with VAMS's
keys. wfx's own routes keep the documents of entrypoints.responses."""

from collections.abc import Sequence
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from domain.redaction import redact
from entrypoints.withheld import without_arns

ABORTED_MESSAGE = "Execution aborted"
DELETED_MESSAGE = "Execution records permanently deleted"


def _always_sent_required(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """Mark required every key the answer always holds: `dump()` leaves out only what is None,
    so a key whose default is a value ("" where VAMS sends "", [], false) is always there, as
    VAMS always sends it; a key defaulting to None may be absent and stays optional."""
    properties = schema.get("properties", {})
    sent = [
        field.alias or name
        for name, field in model.model_fields.items()
        if not field.is_required() and field.get_default(call_default_factory=True) is not None
    ]
    required = list(schema.get("required", []))
    required += [key for key in sent if key in properties and key not in required]
    if required:
        schema["required"] = required


class VamsResponse(BaseModel):
    # built when first answered, as entrypoints.responses: not a cold start's price
    model_config = ConfigDict(
        frozen=True,
        alias_generator=to_camel,
        populate_by_name=True,
        defer_build=True,
        json_schema_extra=_always_sent_required,
    )

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class MessageResponse(VamsResponse):
    """A one-line answer; `warnings` names what an abort may have left running."""

    message: str
    warnings: tuple[str, ...] | None = None

    @classmethod
    def of(cls, text: str, warnings: Sequence[str] = ()) -> Self:
        return cls(message=text, warnings=tuple(without_arns(redact(w)) for w in warnings) or None)


class GroupMemberOutcome(VamsResponse):
    execution_id: str
    status: Literal["aborted", "skipped-terminal", "error"]


class GroupAbort(VamsResponse):
    """Only members the caller may abort are named; the others are counted, not shown."""

    group_id: str
    results: tuple[GroupMemberOutcome, ...]
    skipped_inaccessible_count: int | None = None
    more_remaining: bool | None = None


class GroupAbortResponse(VamsResponse):
    message: GroupAbort


class Launched(VamsResponse):
    """VAMS's execute answer: `executionGroupId` and `warnings` are said, null when none."""

    execution_id: str
    execution_group_id: str | None = None
    warnings: tuple[str, ...] | None = None


class LaunchAnswer(VamsResponse):
    message: Launched
