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


class _OtherImportBeforeTheSecondFile(FilesystemObjectStore):
    """The object store of a two-file import: after its first file is stored, a second import
    of its second file lands whole, before this import writes that file itself."""

    def __init__(self, root: Path, other: Any) -> None:
        super().__init__(root)
        self._other = other

    def put_file(self, key: str, source: Any) -> StoredObject:
        stored = super().put_file(key, source)
        if self._other is not None and key.endswith("a.obj"):
            other, self._other = self._other, None
            other()
        return stored


@pytest.mark.parametrize("backend", ["sqlite_file", "dynamodb"])
def test_a_file_another_import_wrote_while_this_one_was_on_its_other_files_ends_on_this_one(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """This import began first but wrote its file last: the store's newest version is its own,
    and so is the catalog's row (each file dated as its own write begins)."""
    catalog: AssetCatalog = request.getfixturevalue(f"{backend}_asset_catalog")
    clock = _Ticking()
    for name in ("a.obj", "b.obj", "other-b.obj"):
        (tmp_path / name).write_bytes(name.encode())
    plain = FilesystemObjectStore(tmp_path / "objects")

    def other_import_of_b() -> None:
        files = (ImportedFile(file_key="b.obj", path=tmp_path / "other-b.obj"),)
        command = ImportAssetFilesCommand(database_id="db1", asset_id="asset1", files=files)
        ImportAssetFiles(catalog, plain, clock).execute(command)

    racing = _OtherImportBeforeTheSecondFile(tmp_path / "objects", other_import_of_b)
    both = tuple(ImportedFile(file_key=n, path=tmp_path / n) for n in ("a.obj", "b.obj"))
    ImportAssetFiles(catalog, racing, clock).execute(
        ImportAssetFilesCommand(database_id="db1", asset_id="asset1", files=both)
    )

    (newest,) = plain.list_latest(asset_object_key("db1", "asset1", "b.obj"))
    listed = {f.file_key: f.version_id for f in catalog.list_files("db1", "asset1")}
    assert plain.read_bytes(newest.key) == b"b.obj"
    assert listed["b.obj"] == newest.version_id
