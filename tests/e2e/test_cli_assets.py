"""`wfx assets list|show|download`: what an asset holds now, and any version of a file back on
disk, never over a file that is there unless asked."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.cli import Wfx, assert_bad_input


def test_an_asset_is_listed_shown_and_downloaded_at_any_version(wfx: Wfx, tmp_path: Path) -> None:
    source = tmp_path / "scans"
    source.mkdir()
    (source / "my mesh.obj").write_text("v 1\n", encoding="utf-8")
    first = wfx.json("assets", "import", "demo", "scans", str(source))[0]["versionId"]
    (source / "my mesh.obj").write_text("v 2\n", encoding="utf-8")
    second = wfx.json("assets", "import", "demo", "scans", str(source))[0]["versionId"]
    assert first != second

    (listed,) = wfx.json("assets", "list", "demo/scans")
    assert (listed["fileKey"], listed["versionId"]) == ("my mesh.obj", second)
    shown = wfx.ok("assets", "show", "demo/scans", "my mesh.obj").stdout
    assert f"version   {second}" in shown and "size      4 B" in shown, shown

    out = tmp_path / "out"
    out.mkdir()
    wfx.ok("assets", "download", "demo/scans", "my mesh.obj", "--to", str(out))
    assert (out / "my mesh.obj").read_text() == "v 2\n"
    refused = wfx("assets", "download", "demo/scans", "my mesh.obj", "--to", str(out))
    assert_bad_input(refused, "exists", "--force")
    old = out / "old.obj"
    wfx.ok("assets", "download", "demo/scans", "my mesh.obj", "--version", first, "--to", str(old))
    assert old.read_text() == "v 1\n"

    assert_bad_input(wfx("assets", "list", "demo/nothing"), "demo/nothing", "not found")
    assert_bad_input(
        wfx(
            "assets",
            "download",
            "demo/scans",
            "my mesh.obj",
            "--version",
            "nope",
            "--to",
            str(tmp_path / "x"),
        ),
        "version nope",
    )
