"""A file a command is told to write (`export --to`, `infra template --output`, `infra package
--output`) that cannot be written there (a folder in its place, a folder on its way that is
not there or is a file) is refused in one line naming the option, and nothing is left behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.cli import Wfx, assert_bad_input


def _unwritable(tmp_path: Path) -> list[tuple[Path, str]]:
    """Targets, each with the reason the system gives."""
    folder = tmp_path / "a-folder"
    folder.mkdir()
    (folder / "kept.txt").write_text("kept", encoding="utf-8")
    plain = tmp_path / "a-file"
    plain.write_text("kept", encoding="utf-8")
    return [
        (folder, "Is a directory"),
        (tmp_path / "missing" / "out", "No such file or directory"),
        (plain / "out", "Not a directory"),
    ]


def _left_as_it_was(tmp_path: Path) -> None:
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "a-folder"]
    assert [p.name for p in (tmp_path / "a-folder").iterdir()] == ["kept.txt"]
    assert (tmp_path / "a-file").read_text(encoding="utf-8") == "kept"


def test_an_export_to_where_no_file_can_be_written_is_refused_by_name(
    wfx: Wfx, tmp_path: Path
) -> None:
    wfx.publish_command_step("noop", "pass")
    wfx.run_id("demo/noop")
    folder = tmp_path / "targets"
    folder.mkdir()
    for target, reason in _unwritable(folder):
        assert_bad_input(wfx("export", "--to", str(target)), "--to", str(target), reason)
    _left_as_it_was(folder)


def test_a_template_to_where_no_file_can_be_written_is_refused_by_name(
    wfx: Wfx, tmp_path: Path
) -> None:
    folder = tmp_path / "targets"
    folder.mkdir()
    for target, reason in _unwritable(folder):
        outcome = wfx("infra", "template", "--output", str(target))
        assert_bad_input(outcome, "--output", str(target), reason)
    _left_as_it_was(folder)


@pytest.mark.integration
def test_a_package_to_a_folder_is_refused_by_name(wfx: Wfx, tmp_path: Path) -> None:
    """pip builds wfx alone first (`--no-dependencies`, a few seconds)."""
    folder = tmp_path / "targets"
    folder.mkdir()
    target, reason = _unwritable(folder)[0]
    outcome = wfx("infra", "package", "--no-dependencies", "--output", str(target), timeout=120)
    assert_bad_input(outcome, "--output", str(target), reason)
    _left_as_it_was(folder)
