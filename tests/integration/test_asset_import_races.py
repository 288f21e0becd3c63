"""Two writers of one asset file at once (two `wfx assets import`, or an import beside a run
importing its outputs into the asset), on SQLite and DynamoDB (moto): the catalog ends on the
version the object store holds newest, whatever order their catalog writes land in."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from adapters.local.object_store import FilesystemObjectStore
from application.ports.files import AssetCatalog, StoredObject
from application.use_cases.import_asset_files import (
    ImportAssetFiles,
    ImportAssetFilesCommand,
    ImportedFile,
)
from domain.assets import asset_object_key
from tests.contract.builders import MONDAY, an_asset_file


class _Ticking:
    """A clock a microsecond on at each look: every write has a time of its own."""

    def __init__(self) -> None:
        self._now = datetime(2026, 12, 5, 9, 0, tzinfo=UTC)

    def now(self) -> datetime:
        self._now += timedelta(microseconds=1)
        return self._now


class _OtherImportAfterThePut(FilesystemObjectStore):
    """The object store of the first import: once its body is stored, a second import of the
    same file lands whole (object and catalog row) before the first writes its catalog row."""

    def __init__(self, root: Path, other: Any) -> None:
        super().__init__(root)
        self._other = other

    def put_file(self, key: str, source: Any) -> StoredObject:
        stored = super().put_file(key, source)
        if self._other is not None:
            other, self._other = self._other, None
            other()
        return stored


def _command(path: Path) -> ImportAssetFilesCommand:
    return ImportAssetFilesCommand(
        database_id="db1", asset_id="asset1", files=(ImportedFile(file_key="scan.obj", path=path),)
    )


@pytest.mark.parametrize("backend", ["sqlite_file", "dynamodb"])
def test_the_catalog_keeps_the_newest_version_when_two_imports_overlap(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    catalog: AssetCatalog = request.getfixturevalue(f"{backend}_asset_catalog")
    clock = _Ticking()
    first, second = tmp_path / "first.obj", tmp_path / "second.obj"
    first.write_bytes(b"first")
    second.write_bytes(b"second")
    plain = FilesystemObjectStore(tmp_path / "objects")

    def second_import() -> None:
        ImportAssetFiles(catalog, plain, clock).execute(_command(second))

    racing = _OtherImportAfterThePut(tmp_path / "objects", second_import)
    ImportAssetFiles(catalog, racing, clock).execute(_command(first))

    (newest,) = plain.list_latest(asset_object_key("db1", "asset1", "scan.obj"))
    (listed,) = catalog.list_files("db1", "asset1")
    assert plain.read_bytes(newest.key) == b"second"
    assert listed.version_id == newest.version_id


@pytest.mark.parametrize("backend", ["sqlite_file", "dynamodb"])
def test_a_catalog_write_that_lands_late_keeps_the_later_rows_and_writes_the_rest(
    backend: str, request: pytest.FixtureRequest
) -> None:
    """One write of many files, one of which a later writer has written meanwhile: that one row
    stays as the later writer left it, the others are written (on DynamoDB: the transaction
    refused, then row by row). 130 rows: more than one transaction holds."""
    catalog: AssetCatalog = request.getfixturevalue(f"{backend}_asset_catalog")
    late = an_asset_file("f-042", version="later").model_copy(
        update={"modified_at": MONDAY + timedelta(seconds=1)}
    )
    catalog.put_files([late])

    catalog.put_files([an_asset_file(f"f-{n:03}", version="earlier") for n in range(130)])

    versions = {f.file_key: f.version_id for f in catalog.list_files("db1", "asset1")}
    assert versions.pop("f-042") == "later"
    assert set(versions.values()) == {"earlier"} and len(versions) == 129
