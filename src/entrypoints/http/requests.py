"""The bodies the service accepts, validated by pydantic: unknown keys are refused, names are the
seeds' camelCase ones."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from domain.bounds import MAX_STORED_INTEGER
from domain.control_characters import FREE_TEXT_KEEPS, refusing_control_characters


def no_control_character(keep: str = "") -> AfterValidator:
    """Refuses the characters domain.control_characters names, but those in `keep`."""
    return AfterValidator(refusing_control_characters(keep))


Identifier = Annotated[str, Field(min_length=1, max_length=256), no_control_character("")]
FileKey = Annotated[str, Field(min_length=1, max_length=1024), no_control_character("")]
# an idempotency token (a launch, a rerun): a retry that sends it again answers the same run
ClientToken = Annotated[str, Field(min_length=1, max_length=80), no_control_character("")]
FreeText = Annotated[
    str, Field(min_length=1, max_length=1000), no_control_character(FREE_TEXT_KEEPS)
]


class Body(BaseModel):
    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        defer_build=True,  # built by the first request that sends one: not a cold start's price
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
    client_token: ClientToken | None = Field(
        default=None, description="Idempotency token: a retry with it answers the same run."
    )


class AbortRequest(Body):
    cause: FreeText | None = None


class VamsAbortRequest(Body):
    """DELETE /workflows/executions/{executionId}: VAMS's abort takes no field; its dates are
    the writer's clock (docs/architecture.md), so one sent is refused by name, not dropped."""


class PermanentDeleteRequest(Body):
    """DELETE /workflows/executions/{executionId}/permanent: the caller says it means it."""

    confirm_delete: bool = False


class ExecuteInputFile(Body):
    """One of VAMS's input selections: `relativeFileKey` `/` is the whole asset, `/folder/` a
    folder, `/path/file` one file."""

    database_id: Identifier
    asset_id: Identifier
    relative_file_key: FileKey
    version_id: Annotated[str, Field(max_length=256), no_control_character("")] = ""

    @field_validator("relative_file_key")
    @classmethod
    def _asset_relative(cls, key: str) -> str:
        if not key.startswith("/"):
            raise ValueError("must be asset-relative and begin with '/'")
        if ".." in key or "\\" in key:
            raise ValueError("must not contain '..' nor a backslash")
        return key

    @property
    def reference(self) -> str:
        whole = f"{self.database_id}/{self.asset_id}"
        key = self.relative_file_key.lstrip("/")
        return f"{whole}/{key}" if key else whole


class MetadataSourceAsset(Body):
    database_id: Identifier
    asset_id: Identifier


class ExecuteRequest(Body):
    """POST /workflows/{workflowDatabaseId}/{workflowId}/execute, VAMS 2.6's execute body. What
    wfx 0.x cannot do yet (metadata sources, an output path extension, per-step template
    parameters, a version of an input) is refused when given, never silently dropped."""

    input_files: tuple[ExecuteInputFile, ...] = Field(default=(), max_length=1000)
    metadata_source_database_id: Annotated[str, Field(max_length=256)] | None = None
    metadata_source_assets: tuple[MetadataSourceAsset, ...] = Field(default=(), max_length=1000)
    output_asset_id: Annotated[str, Field(max_length=256), no_control_character("")] | None = None
    output_database_id: Annotated[str, Field(max_length=256), no_control_character("")] | None = (
        None
    )
    output_file_base_execution_path_extension: str | None = Field(default=None, max_length=1024)
    pipeline_execution_parameters: dict[str, dict[str, Any]] = Field(
        default_factory=dict, max_length=100
    )
    execution_group_id: Annotated[str, Field(max_length=64), no_control_character("")] | None = None
    trigger_type: Literal["manual", "fileUpload", ""] | None = "manual"

    @model_validator(mode="after")
    def _only_what_wfx_does(self) -> Self:
        given = {
            "metadataSourceDatabaseId": bool(self.metadata_source_database_id),
            "metadataSourceAssets": bool(self.metadata_source_assets),
            "outputFileBaseExecutionPathExtension": self.output_file_base_execution_path_extension
            not in (None, "", "/"),
            "pipelineExecutionParameters": any(self.pipeline_execution_parameters.values()),
        }
        given |= {
            f"inputFiles[{n}].versionId": bool(f.version_id) for n, f in enumerate(self.input_files)
        }
        refused = [name for name, present in given.items() if present]
        if refused:
            raise ValueError(f"{', '.join(refused)}: not supported by wfx 0.x yet; leave it empty")
        if bool(self.output_asset_id) != bool(self.output_database_id):
            raise ValueError("outputAssetId and outputDatabaseId: give both or neither")
        return self

    @property
    def output(self) -> tuple[str, str] | None:
        """(database id, asset id) of the asset the run writes; None: results only."""
        if not self.output_asset_id or not self.output_database_id:
            return None
        return (self.output_database_id, self.output_asset_id)

    @property
    def trigger(self) -> str:
        return self.trigger_type or "manual"
