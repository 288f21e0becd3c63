"""The bodies the service accepts, validated by pydantic: unknown keys are refused, names are the
seeds' camelCase ones."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from domain.bounds import MAX_STORED_INTEGER
from domain.control_characters import FREE_TEXT_KEEPS, refusing_control_characters


def no_control_character(keep: str = "") -> AfterValidator:
    """Refuses the characters domain.control_characters names, but those in `keep`."""
    return AfterValidator(refusing_control_characters(keep))


Identifier = Annotated[str, Field(min_length=1, max_length=256), no_control_character("")]
FileKey = Annotated[str, Field(min_length=1, max_length=1024), no_control_character("")]
FreeText = Annotated[
    str, Field(min_length=1, max_length=1000), no_control_character(FREE_TEXT_KEEPS)
]


class Body(BaseModel):
    model_config = ConfigDict(
        frozen=True, extra="forbid", alias_generator=to_camel, populate_by_name=True
    )


class InputAsset(Body):
    """An asset the run reads: the whole asset, or one file of it."""

    database_id: Identifier
    asset_id: Identifier
    file_key: FileKey | None = None

    @property
    def reference(self) -> str:
        # the launch command's DATABASE_ID/ASSET_ID[/FILE_KEY] form
        whole = f"{self.database_id}/{self.asset_id}"
        return whole if self.file_key is None else f"{whole}/{self.file_key}"


class OutputAsset(Body):
    database_id: Identifier
    asset_id: Identifier


class LaunchRequest(Body):
    """POST /workflows/executions."""

    workflow_database_id: Identifier
    workflow_id: Identifier
    workflow_version: int | None = Field(
        default=None, ge=1, le=MAX_STORED_INTEGER, description="Default: the latest."
    )
    inputs: tuple[InputAsset, ...] = Field(default=(), max_length=1000)
    output_asset: OutputAsset | None = None
    execution_group_id: Identifier | None = None
    trigger_type: Literal["manual", "fileUpload"] = "manual"
    client_token: Annotated[str, no_control_character("")] | None = Field(
        default=None,
        min_length=1,
        max_length=80,
        description="Idempotency token: a retry with it answers the same run.",
    )


class AbortRequest(Body):
    cause: FreeText | None = None


class PermanentDeleteRequest(Body):
    """DELETE /workflows/executions/{executionId}/permanent: the caller says it means it."""

    confirm_delete: bool = False
