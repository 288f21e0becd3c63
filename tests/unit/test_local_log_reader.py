"""LocalFileLogReader: reads the runner's log files, and nothing outside the logs root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adapters.local.log_reader import LocalFileLogReader
from domain.available_logs import LogReadStatus
from domain.redaction import redact


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


KEY_BODY = ["MIIEowIBAAKCAQEA" * 4, "q83vEjQ4d5pT0z" * 4, "Yx3k" + "q83vEjQ4" * 6 + "=="]


def _pages(reader: LocalFileLogReader, limit: int) -> list[list[str]]:
    pages, token = [], None
    while True:
        page = reader.read("exec-2", stream="tool.log", next_token=token, limit=limit)
        pages.append([event.message for event in page.events])
        if page.next_token is None:
            return pages
        assert page.next_token == str(sum(map(len, pages)))  # a line count: stable, as before
        token = page.next_token


@pytest.mark.parametrize("cut_off", [False, True], ids=["whole block", "begin cut off"])
@pytest.mark.parametrize("limit", [1, 2, 3, 5])
def test_a_page_that_starts_or_ends_inside_a_key_block_shows_none_of_it(
    tmp_path: Path, cut_off: bool, limit: int
) -> None:
    # a registered file is not redacted when written: the reader must find the block itself,
    # however the pages cut it (a rotated log may even start inside one)
    begin = [] if cut_off else ["-----BEGIN RSA PRIVATE KEY-----"]
    lines = ["tool started", *begin, *KEY_BODY, "-----END RSA PRIVATE KEY-----", "tool done"]
    if cut_off:
        lines = lines[1:]
    (tmp_path / "exec-2").mkdir()
    text = "\n".join(lines) + "\n"
    (tmp_path / "exec-2" / "tool.log").write_text(text, encoding="utf-8")

    pages = _pages(LocalFileLogReader(tmp_path), limit)

    shown = [line for page in pages for line in page]
    assert not any(body in line for body in KEY_BODY for line in shown)
    assert shown == redact(text).splitlines()
    assert "[REDACTED]" in "".join(shown)


def test_the_same_token_gives_the_same_page(root: Path) -> None:
    reader = LocalFileLogReader(root)
    first = reader.read("exec-1", limit=1)
    again = [reader.read("exec-1", next_token=first.next_token, limit=2) for _ in range(2)]
    assert again[0] == again[1]
    assert [e.message for e in again[0].events] == ["two", "three"]
