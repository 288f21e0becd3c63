"""LocalFileLogReader: reads the runner's log files, and nothing outside the logs root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adapters.local.log_reader import LocalFileLogReader
from domain.available_logs import LogReadStatus


@pytest.fixture
def root(tmp_path: Path) -> Path:
    run = tmp_path / "logs" / "exec-1"
    run.mkdir(parents=True)
    (run / "pipe-1.log").write_text("one\ntwo\nthree\n", encoding="utf-8")
    (run / "pipe-2.log").write_text("four\n", encoding="utf-8")
    (run / ".order").write_text("pipe-1\npipe-2\n", encoding="utf-8")
    shared = tmp_path / "logs" / "tools"
    shared.mkdir()
    (shared / "tool.log").write_text("exec-1 began\nexec-2 began\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("do not read\n", encoding="utf-8")
    return tmp_path / "logs"


def test_a_step_log_is_read_in_pages(root: Path) -> None:
    reader = LocalFileLogReader(root)
    first = reader.read("exec-1", stream="pipe-1.log", execution_filter="exec-1", limit=2)
    assert [e.message for e in first.events] == ["one", "two"]
    rest = reader.read("exec-1", stream="pipe-1.log", next_token=first.next_token, limit=2)
    assert [e.message for e in rest.events] == ["three"] and rest.next_token is None


def test_a_group_read_takes_every_file_but_the_bookkeeping(root: Path) -> None:
    page = LocalFileLogReader(root).read("exec-1")
    assert [e.message for e in page.events] == ["one", "two", "three", "four"]


def test_a_prefix_read_takes_the_files_it_starts(root: Path) -> None:
    page = LocalFileLogReader(root).read("exec-1", prefix="pipe-2")
    assert [e.message for e in page.events] == ["four"]


def test_a_shared_folder_is_filtered_to_the_execution(root: Path) -> None:
    page = LocalFileLogReader(root).read("tools", stream="tool.log", execution_filter="exec-1")
    assert [e.message for e in page.events] == ["exec-1 began"]


def test_a_missing_file_is_not_found(root: Path) -> None:
    reader = LocalFileLogReader(root)
    assert reader.read("exec-1", stream="nope.log").status is LogReadStatus.NOT_FOUND
    assert reader.read("exec-9").status is LogReadStatus.NOT_FOUND


@pytest.mark.parametrize(
    ("group", "stream"),
    [
        ("..", "secret.txt"),
        ("exec-1/..", "../secret.txt"),
        ("exec-1", "../../secret.txt"),
        ("/etc", "passwd"),
        ("exec-1", "/etc/passwd"),
        ("arn:aws:logs:us-east-1:1:log-group:x", ""),
        ("exec-1\\..\\..", "secret.txt"),
    ],
)
def test_a_path_out_of_the_root_is_refused(root: Path, group: str, stream: str) -> None:
    page = LocalFileLogReader(root).read(group, stream=stream)
    assert page.status is LogReadStatus.ACCESS_DENIED
    assert page.events == () and page.problem


def test_a_symlink_out_of_the_root_is_refused(root: Path) -> None:
    os.symlink(root.parent / "secret.txt", root / "exec-1" / "link.log")
    os.symlink(root.parent, root / "escape")
    reader = LocalFileLogReader(root)
    assert reader.read("exec-1", stream="link.log").status is LogReadStatus.ACCESS_DENIED
    assert reader.read("escape", stream="secret.txt").status is LogReadStatus.ACCESS_DENIED
    assert reader.read("exec-1").status is LogReadStatus.ACCESS_DENIED


def test_a_token_it_did_not_give_is_an_error(root: Path) -> None:
    page = LocalFileLogReader(root).read("exec-1", stream="pipe-1.log", next_token="f/123")
    assert page.status is LogReadStatus.ERROR
