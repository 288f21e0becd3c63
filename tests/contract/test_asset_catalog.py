"""AssetCatalog contract: the current version of every file of an asset, by file key."""

from __future__ import annotations

import pytest

from application.ports.files import AssetCatalog
from domain.errors import InvalidInputError
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


def test_an_asset_is_paged_by_file_key_and_its_token_continues_only_its_own_list(
    asset_catalog: AssetCatalog,
) -> None:
    files = [an_asset_file(f"f{number:02d}.obj") for number in range(5)]
    asset_catalog.put_files(files)
    asset_catalog.put_files([an_asset_file("f99.obj", asset="db1:asset2")])

    first = asset_catalog.list_files_page("db1", "asset1", 2, None)
    second = asset_catalog.list_files_page("db1", "asset1", 2, first.next_token)
    last = asset_catalog.list_files_page("db1", "asset1", 2, second.next_token)

    assert [f.file_key for f in (*first.items, *second.items, *last.items)] == [
        f.file_key for f in files
    ]
    assert first.next_token and second.next_token and last.next_token is None
    whole = asset_catalog.list_files_page("db1", "asset1", 5, None)
    assert len(whole.items) == 5 and whole.next_token is None  # exactly a page: no empty next
    assert asset_catalog.list_files_page("db1", "nope", 10, None).items == ()
    with pytest.raises(InvalidInputError, match="startingToken"):
        asset_catalog.list_files_page("db1", "asset2", 2, first.next_token)
    for limit in (0, 1001):
        with pytest.raises(InvalidInputError, match="limit"):
            asset_catalog.list_files_page("db1", "asset1", limit, None)
