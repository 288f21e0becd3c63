"""A file a command is told to write (`export --to`, `infra template --output`, `infra package
--output`) that cannot be written there (a folder in its place, a folder on its way that is
not there or is a file) is refused in one line naming the option, and nothing is left behind."""

from __future__ import annotations

import os
import stat
import threading
import zipfile
from pathlib import Path

import pytest

from tests.e2e.cli import Wfx, assert_bad_input
from tests.e2e.conftest import LAMBDA_ZIP, PipedBuild


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
def test_a_package_to_a_folder_or_under_a_file_is_refused_by_name_before_pip_runs(
    wfx: Wfx, tmp_path: Path
) -> None:
    """The project's pyproject.toml is not TOML: had pip run first (a minute, with the
    dependencies), its error would be the one said. A missing folder on the way is made."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[build-system\n", encoding="utf-8")
    folder = tmp_path / "targets"
    folder.mkdir()
    for target, reason in _unwritable(folder):
        if reason == "No such file or directory":
            continue
        outcome = wfx("infra", "package", "--project", str(project), "--output", str(target))
        assert_bad_input(outcome, "--output", str(target), reason)
    _left_as_it_was(folder)
    if Path("/sys/kernel").is_dir():  # sysfs takes no new file, even from root
        target = Path("/sys/wfx-lambda.zip")
        outcome = wfx("infra", "package", "--project", str(project), "--output", str(target))
        assert_bad_input(outcome, "--output", str(target), "Permission denied")


def test_an_export_to_a_pipe_through_a_link_streams_into_it_and_leaves_both(
    wfx: Wfx, tmp_path: Path
) -> None:
    """As `--to /dev/stdout` is: a link to a pipe. A file renamed into its place would replace
    the link (as root, /dev/stdout itself), and the reader would get nothing."""
    wfx.publish_command_step("noop", "pass")
    run = wfx.run_id("demo/noop")
    pipe, link = tmp_path / "pipe", tmp_path / "stdout"
    os.mkfifo(pipe)
    link.symlink_to(pipe)
    read: list[bytes] = []
    reader = threading.Thread(target=lambda: read.append(pipe.read_bytes()), daemon=True)
    reader.start()
    outcome = wfx("export", "--to", str(link))
    reader.join(timeout=10)
    if reader.is_alive():  # wfx never opened the pipe: let the reader go
        os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(timeout=10)

    assert outcome.code == 0, str(outcome)
    assert link.is_symlink() and stat.S_ISFIFO(pipe.lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "pipe", "stdout"]
    lines = read[0].decode().splitlines()
    assert len(lines) > 2 and run in lines[-1]


def test_an_export_to_stdout_is_the_file_alone_and_imports_whole(wfx: Wfx, tmp_path: Path) -> None:
    wfx.publish_command_step("noop", "pass")
    run = wfx.run_id("demo/noop")
    outcome = wfx("export", "--to", "/dev/stdout")
    assert outcome.code == 0, str(outcome)
    assert "exported 1 run: " in outcome.stderr
    file = tmp_path / "piped.jsonl"
    file.write_text(outcome.stdout, encoding="utf-8")
    other = wfx.in_home(tmp_path / "other")
    assert other.json("import", str(file))["runs"] == 1
    assert other.listed_ids() == [run]


@pytest.mark.integration
@LAMBDA_ZIP
def test_a_package_to_stdout_is_the_zip_alone(piped_lambda_zip: PipedBuild) -> None:
    """`wfx infra package -o /dev/stdout > f.zip`: the zip, whole, and /dev/stdout left a link
    (the build is the session's, tests/e2e/conftest.py; the handlers' test reads its zip)."""
    assert piped_lambda_zip.returncode == 0, piped_lambda_zip.stderr
    assert b"wrote /dev/stdout" in piped_lambda_zip.stderr
    assert Path("/dev/stdout").is_symlink()
    with zipfile.ZipFile(piped_lambda_zip.zip) as archive:
        assert "entrypoints/lambda_handlers.py" in archive.namelist()


def test_a_migration_checkpoint_where_no_file_can_be_written_is_refused_by_name(
    wfx: Wfx, tmp_path: Path
) -> None:
    items = tmp_path / "items.json"
    items.write_text('[{"a": 1}]', encoding="utf-8")
    target = tmp_path / "missing" / "checkpoint"
    outcome = wfx(
        "migrate", "v1", "--from-file", str(items), "--offline", "--checkpoint", str(target)
    )
    assert_bad_input(outcome, "--checkpoint", str(target), "No such file or directory")


def test_a_download_to_a_link_says_the_link_is_not_followed(wfx: Wfx, tmp_path: Path) -> None:
    source = tmp_path / "f.txt"
    source.write_text("x", encoding="utf-8")
    wfx.ok("assets", "import", "demo", "files", str(source))
    link = tmp_path / "link.txt"
    link.symlink_to(tmp_path / "elsewhere.txt")
    outcome = wfx("assets", "download", "demo/files", "f.txt", "--to", str(link), "--force")
    assert_bad_input(outcome, "--to", str(link), "symbolic link")
    assert "Too many levels" not in outcome.stderr
    assert link.is_symlink() and not (tmp_path / "elsewhere.txt").exists()
