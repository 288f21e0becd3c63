"""`wfx assets list` of an asset with many files, as a real process: a page at a time, so its
peak memory (VmHWM in /proc) does not grow with the asset, and every file is listed once by
following the pages."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from adapters.sqlite.catalogs import SqliteAssetCatalog
from adapters.sqlite.database import SqliteDatabase
from adapters.tables import TableNames
from domain.assets import AssetFile
from tests.e2e.cli import Wfx, assert_bad_input, peak_kib

pytestmark = pytest.mark.xdist_group("e2e-cli-asset-scale")

# 20k files held as parsed rows and their JSON cost ~45 MiB; a page of 1,000 costs a few
MOST_GROWTH_KIB = 16 * 1024


def _fill(wfx: Wfx, count: int) -> None:
    """An asset demo/big of `count` files, through the catalog's own write."""
    database = SqliteDatabase(wfx.home / "wfx.db")
    catalog = SqliteAssetCatalog(database, TableNames())
    catalog.create_tables()
    modified = datetime(2026, 1, 1, tzinfo=UTC)
    catalog.put_files(
        [
            AssetFile(
                database_id="demo",
                asset_id="big",
                file_key=f"scans/part-{number:06d}.obj",
                version_id="v1",
                size=number,
                etag="0" * 32,
                bucket="local",
                asset_root_key="demo/big/",
                modified_at=modified,
            )
            for number in range(count)
        ]
    )
    database.close()


def test_a_large_asset_is_listed_a_page_at_a_time_in_bounded_memory(tmp_path: Path) -> None:
    small, large = Wfx(tmp_path / "small"), Wfx(tmp_path / "large")
    _fill(small, 1_000)
    _fill(large, 20_000)

    small_peak, small_out = peak_kib(small, "assets", "list", "demo/big", "--json")
    large_peak, large_out = peak_kib(large, "assets", "list", "demo/big", "--json")

    assert len(json.loads(small_out)) == 1_000
    assert len(json.loads(large_out)) == 1_000  # the first page
    assert large_peak - small_peak < MOST_GROWTH_KIB, (small_peak, large_peak)


def test_following_the_pages_lists_every_file_once_in_order(wfx: Wfx) -> None:
    _fill(wfx, 2_500)
    listed: list[str] = []
    token: list[str] = []
    for _ in range(4):
        outcome = wfx.ok("assets", "list", "demo/big", "--json", *token)
        listed += [row["fileKey"] for row in json.loads(outcome.stdout)]
        if not outcome.stderr.strip():
            break
        (hint,) = outcome.stderr_lines
        assert hint.startswith("more: --starting-token "), hint
        token = ["--starting-token", hint.split()[-1]]
    assert listed == [f"scans/part-{number:06d}.obj" for number in range(2_500)]

    text = wfx.ok("assets", "list", "demo/big", "--limit", "2")
    assert "part-000001.obj" in text.stdout and "part-000002.obj" not in text.stdout
    assert text.stderr.startswith("more: --starting-token "), str(text)
    # the last file of the asset is found past the first page
    assert "part-002499.obj" in wfx.ok("assets", "show", "demo/big", "scans/part-002499.obj").stdout


def test_a_token_of_another_asset_is_refused_naming_it(wfx: Wfx) -> None:
    _fill(wfx, 3)
    hint = wfx.ok("assets", "list", "demo/big", "--limit", "1").stderr.split()[-1]
    other = wfx.in_home(wfx.home)
    assert_bad_input(other("assets", "list", "demo/other", "--starting-token", hint), "token")
