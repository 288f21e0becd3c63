"""ImportAssetFiles: store local files as new versions of an asset's files."""

from __future__ import annotations

import errno
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from application.ports.files import AssetCatalog, ObjectStore
from application.ports.system import Clock
from domain.assets import (
    AssetFile,
    asset_file_key_problem,
    asset_object_key,
    asset_root_key,
    file_metadata_problem,
)
from domain.errors import InvalidInputError
from domain.workflow import Identifier


class ImportedFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    file_key: str = Field(min_length=1)
    path: Path


class ImportAssetFilesCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    database_id: Identifier
    asset_id: Identifier
    files: tuple[ImportedFile, ...] = Field(min_length=1)
    metadata: tuple[tuple[str, str], ...] = ()


class ImportAssetFiles:
    """Every import writes a new version of each file; the catalog points at the newest."""

    def __init__(self, catalog: AssetCatalog, objects: ObjectStore, clock: Clock) -> None:
        self._catalog, self._objects, self._clock = catalog, objects, clock

    def execute(self, command: ImportAssetFilesCommand) -> list[AssetFile]:
        problem = file_metadata_problem(command.metadata)
        if problem is not None:
            raise InvalidInputError(f"metadata: {problem}")
        for index, imported in enumerate(command.files):
            if imported.path.is_symlink():
                # never followed: a link may lead anywhere the importing user can read
                raise InvalidInputError(
                    f"files[{index}]: {imported.path} is a symbolic link; import the file it "
                    "leads to"
                )
            if not imported.path.is_file():
                raise InvalidInputError(f"files[{index}]: {imported.path} is not a readable file")
            problem = asset_file_key_problem(
                command.database_id, command.asset_id, imported.file_key
            )
            if problem is not None:
                raise InvalidInputError(
                    f"files[{index}]: {imported.path}: file key {imported.file_key!r} {problem}"
                )
        root = asset_root_key(command.database_id, command.asset_id)
        stored = []
        for index, imported in enumerate(command.files):
            key = asset_object_key(command.database_id, command.asset_id, imported.file_key)
            # taken as this file's write begins: the catalog keeps the row of the later of two
            # writers of one file (AssetCatalog.put_files), this file's, not this import's, time
            now = self._clock.now()
            try:
                version = self._objects.put_file(key, imported.path)
            except OSError as error:
                if error.filename != str(imported.path):
                    raise  # the store's own failure, not the file's
                # swapped for a link, a FIFO or nothing since the check above
                reason = "is a symbolic link" if error.errno == errno.ELOOP else error.strerror
                raise InvalidInputError(f"files[{index}]: {imported.path}: {reason}") from None
            stored.append(
                AssetFile(
                    database_id=command.database_id,
                    asset_id=command.asset_id,
                    file_key=imported.file_key,
                    version_id=version.version_id,
                    size=version.size,
                    etag=version.etag,
                    bucket=self._objects.bucket,
                    asset_root_key=root,
                    modified_at=now,
                    metadata=command.metadata,
                )
            )
        self._catalog.put_files(stored)
        return stored
