"""AssetCatalog contract: the current version of every file of an asset, by file key."""

from __future__ import annotations

from application.ports.files import AssetCatalog
from tests.contract.builders import an_asset_file


def test_an_asset_lists_its_files_by_file_key(asset_catalog: AssetCatalog) -> None:
    files = [an_asset_file(key) for key in ("scan.obj", "a/b.txt", "notes.md")]
    asset_catalog.put_files(files)
    asset_catalog.put_files([an_asset_file("other.obj", asset="db1:asset2")])

    listed = asset_catalog.list_files("db1", "asset1")

    assert listed == sorted(files, key=lambda f: f.file_key)


def test_putting_a_file_again_replaces_its_version(asset_catalog: AssetCatalog) -> None:
    asset_catalog.put_files([an_asset_file("scan.obj", version="v1")])
    newer = an_asset_file("scan.obj", version="v2")

    asset_catalog.put_files([newer])

    assert asset_catalog.list_files("db1", "asset1") == [newer]


def test_an_unknown_asset_has_no_files(asset_catalog: AssetCatalog) -> None:
    asset_catalog.put_files([an_asset_file("scan.obj")])

    assert asset_catalog.list_files("db1", "nope") == []
    assert asset_catalog.list_files("db9", "asset1") == []


def test_putting_no_files_changes_nothing(asset_catalog: AssetCatalog) -> None:
    asset_catalog.put_files([an_asset_file("scan.obj")])

    asset_catalog.put_files([])

    assert [f.file_key for f in asset_catalog.list_files("db1", "asset1")] == ["scan.obj"]
