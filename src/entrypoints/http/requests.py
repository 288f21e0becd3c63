"""The bodies the service accepts, validated by pydantic: unknown keys are refused, names are the
seeds' camelCase ones."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from entrypoints.http.bounds import MAX_STORED_INTEGER


class Body(BaseModel):
    model_config = ConfigDict(
        frozen=True, extra="forbid", alias_generator=to_camel, populate_by_name=True
    )


class InputAsset(Body):
    """An asset the run reads: the whole asset, or one file of it."""

    database_id: str = Field(min_length=1, max_length=256)
    asset_id: str = Field(min_length=1, max_length=256)
    file_key: str | None = Field(default=None, min_length=1, max_length=1024)

    @property
    def reference(self) -> str:
        # the launch command's DATABASE_ID/ASSET_ID[/FILE_KEY] form
        whole = f"{self.database_id}/{self.asset_id}"
        return whole if self.file_key is None else f"{whole}/{self.file_key}"


class OutputAsset(Body):
    database_id: str = Field(min_length=1, max_length=256)
    asset_id: str = Field(min_length=1, max_length=256)


class LaunchRequest(Body):
    """POST /workflows/executions."""

    workflow_database_id: str = Field(min_length=1, max_length=256)
    workflow_id: str = Field(min_length=1, max_length=256)
    workflow_version: int | None = Field(
        default=None, ge=1, le=MAX_STORED_INTEGER, description="Default: the latest."
    )
    inputs: tuple[InputAsset, ...] = Field(default=(), max_length=1000)
    output_asset: OutputAsset | None = None
    execution_group_id: str | None = Field(default=None, min_length=1, max_length=256)
    trigger_type: Literal["manual", "fileUpload"] = "manual"
    client_token: str | None = Field(
        default=None,
        min_length=1,
        max_length=80,
        description="Idempotency token: a retry with it answers the same run.",
    )


class AbortRequest(Body):
    cause: str | None = Field(default=None, min_length=1, max_length=1000)
