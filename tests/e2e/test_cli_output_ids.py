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
