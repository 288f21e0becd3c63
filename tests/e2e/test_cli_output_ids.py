"""`wfx run --output DB/ASSET` takes the same asset ids as `wfx assets import`, refused alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.cli import TRIVIAL_WORKFLOW, Wfx, assert_bad_input


@pytest.mark.parametrize(
    ("output", "named"),
    [("demo/bad id", "asset id 'bad id'"), ("-demo/meshes", "database id '-demo'")],
)
def test_an_output_id_import_refuses_is_refused_before_anything_is_stored(
    wfx: Wfx, tmp_path: Path, output: str, named: str
) -> None:
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    database_id, asset_id = output.split("/")

    ran = wfx("run", "demo/trivial", "--output", output)
    imported = wfx("assets", "import", "--", database_id, asset_id, str(tmp_path / "file.txt"))

    assert_bad_input(ran, "--output", named, "letters, digits")
    assert_bad_input(imported, named)
    rule = imported.stderr.split(named, 1)[1]
    assert ran.stderr.endswith(rule)  # one rule, said the same way by both commands
    assert wfx.listed_ids() == []


def test_an_asset_id_longer_than_a_folder_name_is_refused_before_anything_is_stored(
    wfx: Wfx, tmp_path: Path
) -> None:
    """An asset id is a folder of the local object store (`assets/DB/ASSET/`), and a folder name
    holds at most 255 bytes: a 256-character id made the import say `File name too long; set
    WFX_HOME to a folder you can write to`, and a run writing to it retried ~7 s and ended FAILED
    at its last step. One rule on every store, so a run moves between them."""
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    long_id = "a" * 256

    ran = wfx("run", "demo/trivial", "--output", f"demo/{long_id}")
    imported = wfx("assets", "import", "demo", long_id, str(tmp_path / "file.txt"))

    assert_bad_input(ran, "--output", "asset id", "at most 255")
    assert_bad_input(imported, "asset id", "at most 255")
    assert "WFX_HOME" not in imported.stderr
    assert wfx.listed_ids() == []
    fits = wfx("assets", "import", "demo", "a" * 255, str(tmp_path / "file.txt"))
    assert fits.code == 0, str(fits)
