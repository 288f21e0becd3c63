"""An asset's files as the catalog holds them, and one file's body at the version asked for."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from application.list_tokens import check_token_shape
from application.ports.files import AssetCatalog, ObjectStore
from domain.assets import AssetFile, asset_object_key, composite_key_problem
from domain.errors import AssetNotFoundError
from domain.paging import Page
from domain.workflow import IDENTIFIER_MAX_LENGTH


class AssetQuery(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    # read as the catalog's partition key (`DB:ASSET`, DynamoDB: at most 2048 bytes)
    database_id: str = Field(min_length=1, max_length=IDENTIFIER_MAX_LENGTH)
    asset_id: str = Field(min_length=1, max_length=IDENTIFIER_MAX_LENGTH)

    @field_validator("asset_id")
    @classmethod
    def _fits_a_key(cls, asset_id: str, info: ValidationInfo) -> str:
        database_id = info.data.get("database_id")
        problem = None if database_id is None else composite_key_problem(database_id, asset_id)
        if problem is not None:
            raise ValueError(problem)
        return asset_id


class AssetFilesQuery(AssetQuery):
    limit: int = 1000  # the catalog checks the bound, as it does a workflow list's
    starting_token: str | None = None


class ListAssetFiles:
    """One page of the asset's files at their current version, by file key: an asset of a
    million files is read a page at a time, never whole."""

    def __init__(self, catalog: AssetCatalog) -> None:
        self._catalog = catalog

    def execute(self, query: AssetFilesQuery) -> Page[AssetFile]:
        check_token_shape(query.starting_token)
        page = self._catalog.list_files_page(
            query.database_id, query.asset_id, query.limit, query.starting_token
        )
        if not page.items and query.starting_token is None:
            raise AssetNotFoundError(
                f"asset {query.database_id}/{query.asset_id} not found: it has no files "
                "(`wfx assets import` adds them)"
            )
        return page


class FileBodyQuery(AssetQuery):
    file_key: str = Field(min_length=1)
    version_id: str | None = Field(default=None, min_length=1)  # None: the current one


class FileBody(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    file: AssetFile
    version_id: str
    body: bytes


class ReadAssetFile:
    """A file's body: its current version, or any version the object store still holds."""

    def __init__(self, catalog: AssetCatalog, objects: ObjectStore) -> None:
        self._catalog, self._objects = catalog, objects

    def execute(self, query: FileBodyQuery) -> FileBody:
        where = f"{query.database_id}/{query.asset_id}/{query.file_key}"
        files = self._catalog.list_files(query.database_id, query.asset_id)
        current = next((f for f in files if f.file_key == query.file_key), None)
        if current is None:
            raise AssetNotFoundError(f"asset file {where} not found")
        version_id = query.version_id or current.version_id
        key = asset_object_key(query.database_id, query.asset_id, query.file_key)
        try:
            body = self._objects.read_bytes(key, version_id)
        except (FileNotFoundError, ValueError) as error:
            raise AssetNotFoundError(
                f"asset file {where}: version {version_id} not found in the object store"
            ) from error
        return FileBody(file=current, version_id=version_id, body=body)
