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


def test_an_imported_file_whose_name_holds_control_characters_is_shown_escaped_on_its_line(
    wfx: Wfx, tmp_path: Path
) -> None:
    """One file, one line: a newline or a tab in a name is shown escaped as an escape is (before,
    a newline split the file's line in two); the file is stored under its name as it is."""
    names = ["a\nb.obj", "c\td.obj", "e\x1b[31mf.obj"]
    folder = tmp_path / "scans"
    folder.mkdir()
    for name in names:
        (folder / name).write_bytes(b"v 0 0 0\n")

    outcome = wfx("assets", "import", "demo", "scans", str(folder))

    assert outcome.code == 0, str(outcome)
    lines = outcome.stdout.splitlines()
    assert [line.split("  version ")[0] for line in lines] == [
        "demo/scans/a\\x0ab.obj",
        "demo/scans/c\\x09d.obj",
        "demo/scans/e\\x1b[31mf.obj",
    ], str(outcome)
    stored = wfx.json("assets", "list", "demo/scans", "--json")
    assert sorted(f["fileKey"] for f in stored) == names


def test_assets_list_and_show_give_a_file_whose_name_holds_a_newline_one_line(
    wfx: Wfx, tmp_path: Path
) -> None:
    name = "a\nb.obj"
    (tmp_path / name).write_bytes(b"v 0 0 0\n")
    wfx.ok("assets", "import", "demo", "scans", str(tmp_path / name))

    listed = wfx.ok("assets", "list", "demo/scans").stdout.splitlines()
    assert len(listed) == 2 and listed[1].split()[0] == "a\\x0ab.obj", listed
    shown = wfx.ok("assets", "show", "demo/scans", name).stdout.splitlines()
    assert shown[0] == "file      demo/scans/a\\x0ab.obj", shown
    assert shown[4].startswith("stored    ") and shown[4].endswith("a\\x0ab.obj"), shown
