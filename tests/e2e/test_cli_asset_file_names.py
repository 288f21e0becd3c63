"""`wfx assets import` of a folder holding a file whose name cannot be a stored file key (a
folder named `*.versions`, a name longer than the local store's file system takes, a name that
is not UTF-8) refuses the import in one line naming the file and the rule, before storing any
file of it, instead of a traceback or a message blaming WFX_HOME."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.e2e.cli import Wfx, assert_bad_input

LONG = "a" * 247 + ".obj"  # 251 bytes: with `.versions` the local store's folder would be 260


@pytest.mark.parametrize(
    ("relative", "named", "rule"),
    [
        (Path("x.versions") / "f.obj", "x.versions/f.obj", ".versions"),
        (Path(LONG), LONG, "246 bytes"),
        (Path(os.fsdecode(b"caf\xe9.obj")), "caf\\udce9.obj", "UTF-8"),
    ],
)
def test_a_file_whose_name_cannot_be_stored_refuses_the_import_by_name(
    wfx: Wfx, tmp_path: Path, relative: Path, named: str, rule: str
) -> None:
    folder = tmp_path / "scans"
    (folder / relative).parent.mkdir(parents=True, exist_ok=True)
    (folder / relative).write_bytes(b"v 0 0 0\n")
    (folder / "good.obj").write_bytes(b"v 0 0 0\n")
    outcome = wfx("assets", "import", "demo", "scans", str(folder))
    assert_bad_input(outcome, named, rule)
    assert "WFX_HOME" not in outcome.stderr
    assert wfx("assets", "list", "demo/scans").code == 2
    objects = wfx.home / "objects"
    assert not objects.exists() or [p for p in objects.rglob("*") if p.is_file()] == []
