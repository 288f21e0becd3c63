"""LocalFileLogReader: reads the runner's log files, and nothing outside the logs root."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, BinaryIO
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.local import log_reader
from adapters.local.log_reader import LocalFileLogReader
from application.ports.logs import TOKEN_REFUSED, LogPage
from domain import redaction_stream
from domain.available_logs import LogReadStatus
from domain.redaction import redact, redacted_lines
from tests import planted_secrets
from tests.planted_secrets import Plant

PiecesReader = Callable[[BinaryIO, int], Iterator[tuple[str, int | None]]]


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


# Resumable tokens: a page reads from a restart point at or before it, not from the start.


def _signed(root: Path) -> LocalFileLogReader:
    return LocalFileLogReader(root, page_key=root.parent / "log-pages.key")


def _all_pages(reader: LocalFileLogReader, limit: int, stream: str = "tool.log") -> list[str]:
    shown, token = [], None
    while True:
        page = reader.read("exec-2", stream=stream, next_token=token, limit=limit)
        assert page.status in (LogReadStatus.READ, LogReadStatus.EMPTY), page.problem
        shown += [event.message for event in page.events]
        if page.next_token is None:
            return shown
        token = page.next_token


@settings(max_examples=60, deadline=None)
@given(
    st.lists(planted_secrets.embedded(), min_size=1, max_size=4),
    st.lists(st.integers(min_value=0, max_value=30), min_size=4, max_size=4),
    st.integers(min_value=0, max_value=60),
    st.integers(min_value=1, max_value=7),
    st.integers(min_value=16, max_value=400),
    st.sampled_from(["\n", "\r\n"]),
)
def test_pages_resumed_from_their_tokens_show_what_redact_makes_of_the_whole_file(
    plants: list[Plant], gaps: list[int], start: int, limit: int, piece: int, newline: str
) -> None:
    # small pieces: many restart points, and a key block cut by pieces and pages alike
    text = "".join(
        "".join(f"plain line {n}\n" for n in range(gap)) + plant.text + "\n"
        for plant, gap in zip(plants, gaps, strict=False)
    )[start:]
    with (
        tempfile.TemporaryDirectory() as folder,
        patch.object(log_reader, "_READ_BYTES", piece // 3 + 1),
        patch.object(log_reader, "_PIECE_BYTES", piece),
    ):
        root = Path(folder) / "logs"
        (root / "exec-2").mkdir(parents=True)
        (root / "exec-2" / "tool.log").write_bytes(text.replace("\n", newline).encode())
        shown = _all_pages(_signed(root), limit)
    assert shown == redact(text).splitlines()


def _key_block_log(root: Path) -> str:
    lines = [f"before {n}" for n in range(40)]
    lines += ["-----BEGIN RSA PRIVATE KEY-----", *KEY_BODY, "-----END RSA PRIVATE KEY-----"]
    lines += [f"after {n}" for n in range(40)]
    (root / "exec-2").mkdir(parents=True, exist_ok=True)
    text = "\n".join(lines) + "\n"
    (root / "exec-2" / "tool.log").write_text(text, encoding="utf-8")
    return text


def test_a_token_resumes_at_a_restart_point_it_signed(root: Path) -> None:
    text = _key_block_log(root)
    reader = _signed(root)
    with patch.object(log_reader, "_READ_BYTES", 64):
        first = reader.read("exec-2", stream="tool.log", limit=30)
        token = first.next_token
        assert token is not None and token.startswith("30.")
        _, restart_line, file, offset = map(int, token.split(".")[:4])
        assert restart_line <= 30 and offset > 0 and file == 0  # not the file's start
        second = reader.read("exec-2", stream="tool.log", next_token=token, limit=30)
    shown = [e.message for e in second.events]
    assert shown == redact(text).splitlines()[30:60]
    assert shown[0] == "before 30" and "[REDACTED]" in shown
    assert not any(body in line for body in KEY_BODY for line in shown)


def _forged(token: str, **changes: int) -> str:
    fields = token.split(".")
    for name, value in changes.items():
        fields[["line", "restart_line", "file", "offset"].index(name)] = str(value)
    return ".".join(fields)


def test_a_forged_restart_point_inside_a_key_block_is_refused(root: Path) -> None:
    text = _key_block_log(root)
    reader = _signed(root)
    token = reader.read("exec-2", stream="tool.log", limit=30).next_token
    assert token is not None
    inside = text.index(KEY_BODY[1])  # a line start in the block's body
    for forged in (
        _forged(token, offset=inside),
        _forged(token, line=41, restart_line=41, offset=inside),
        token[:-1] + ("0" if token[-1] != "0" else "1"),
        token + ".1",
        "30.abc",
        "30..0.0.0.0",
        "1.2.0.0." + "0" * 16 + "." + "0" * 32,  # its restart after its line
    ):
        page = reader.read("exec-2", stream="tool.log", next_token=forged, limit=30)
        assert page.status is LogReadStatus.ERROR, forged
        assert page.problem is not None and page.problem.startswith(TOKEN_REFUSED)
        assert not page.events


def test_a_token_of_another_log_or_filter_is_refused(root: Path) -> None:
    _key_block_log(root)
    (root / "exec-2" / "other.log").write_text("a b\n" * 100, encoding="utf-8")
    reader = _signed(root)
    token = reader.read("exec-2", stream="tool.log", limit=30).next_token
    other = reader.read("exec-2", stream="other.log", next_token=token, limit=30)
    filtered = reader.read(
        "exec-2", stream="tool.log", execution_filter="exec-9", next_token=token, limit=30
    )
    assert other.status is LogReadStatus.ERROR and filtered.status is LogReadStatus.ERROR


def test_a_token_of_a_file_since_rewritten_reads_it_from_its_start(root: Path) -> None:
    _key_block_log(root)
    reader = _signed(root)
    with patch.object(log_reader, "_READ_BYTES", 64):
        token = reader.read("exec-2", stream="tool.log", limit=30).next_token
        # rewritten in place, a key block now where the token's restart point was
        lines = ["-----BEGIN RSA PRIVATE KEY-----", *KEY_BODY * 20, "-----END RSA PRIVATE KEY-----"]
        lines += [f"after {n}" for n in range(40)]
        text = "\n".join(lines) + "\n"
        (root / "exec-2" / "tool.log").write_text(text, encoding="utf-8")
        page = reader.read("exec-2", stream="tool.log", next_token=token, limit=30)
    assert [e.message for e in page.events] == redact(text).splitlines()[30:60]


def test_old_line_number_tokens_still_read_from_the_start(root: Path) -> None:
    text = _key_block_log(root)
    page = _signed(root).read("exec-2", stream="tool.log", next_token="41", limit=5)
    assert [e.message for e in page.events] == redact(text).splitlines()[41:46]


def _counted_pieces() -> tuple[list[int], PiecesReader]:
    """log_reader._pieces, with the characters its reads give summed in the list's one item."""
    read, pieces = [0], log_reader._pieces

    def counted(file: BinaryIO, offset: int) -> Iterator[tuple[str, int | None]]:
        for text, after in pieces(file, offset):
            read[0] += len(text)
            yield text, after

    return read, counted


def test_a_follower_reads_a_growing_log_about_once(root: Path) -> None:
    # the follower's loop (src/entrypoints/cli/logs.py _read_sources) over a log written a
    # little at a time: the bytes read grow with the log, not with the log times the polls
    (root / "exec-2").mkdir()
    path = root / "exec-2" / "tool.log"
    path.write_bytes(b"")
    reader = _signed(root)
    read, counted = _counted_pieces()

    token: str | None = None
    shown: list[str] = []
    printed = 0
    with (
        patch.object(log_reader, "_READ_BYTES", 4096),
        patch.object(log_reader, "_pieces", counted),
    ):
        for poll in range(200):
            with open(path, "a", encoding="utf-8") as file:
                file.write("".join(f"poll {poll} line {n} of the step\n" for n in range(50)))
            while True:
                page = reader.read("exec-2", stream="tool.log", next_token=token, limit=100)
                lines = [event.message for event in page.events]
                shown += lines[printed:]
                if page.next_token is None:
                    printed = max(printed, len(lines))
                    break
                token, printed = page.next_token, 0
    size = path.stat().st_size
    assert shown == path.read_text(encoding="utf-8").splitlines()
    # the log once, and each poll again at most the page it is on and the piece before it;
    # read from the start each poll, it would be the sum of its sizes: ~100 times as much
    assert read[0] < size + 200 * (4096 + 100 * 40), (read[0], size)


def test_signed_pages_go_across_files_and_through_a_filter_as_line_numbers_did(
    root: Path,
) -> None:
    shared = root / "tools" / "tool.log"
    shared.write_text("".join(f"exec-{n % 3} line {n}\n" for n in range(60)), encoding="utf-8")
    reads: list[dict[str, str]] = [{"group": "exec-1"}, {"group": "exec-1", "prefix": "pipe-"}]
    reads.append({"group": "tools", "stream": "tool.log", "execution_filter": "exec-1"})
    for arguments in reads:
        shown: dict[bool, list[str]] = {}
        for signed in (False, True):
            reader = _signed(root) if signed else LocalFileLogReader(root)
            shown[signed], token = [], None
            with patch.object(log_reader, "_READ_BYTES", 32):
                while True:
                    page = reader.read(**arguments, next_token=token, limit=2)  # type: ignore[arg-type]
                    shown[signed] += [event.message for event in page.events]
                    if (token := page.next_token) is None:
                        break
        assert shown[True] == shown[False] and shown[True], arguments
    assert shown[True] == [f"exec-1 line {n}" for n in range(1, 60, 3)]


# A log of key-body-looking lines: the redactor holds a run of them back (an END below could
# show them to be a cut-off key's body), so it is never at rest; its restart points are those
# where the lines held are all given out (StoredTextRedactor.restart_wait).

_BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
_BODY_LINES = st.lists(st.text(alphabet=_BASE64, min_size=1, max_size=70), max_size=30)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(_BODY_LINES, planted_secrets.embedded(), st.integers(0, 300)),
        min_size=1,
        max_size=4,
    ),
    _BODY_LINES,
    st.integers(min_value=1, max_value=9),
    st.integers(min_value=16, max_value=300),
    st.integers(min_value=64, max_value=900),
)
def test_body_looking_pages_resumed_from_their_tokens_show_what_a_read_from_the_start_shows(
    parts: list[tuple[list[str], Plant, int]], last: list[str], limit: int, piece: int, held: int
) -> None:
    # a small bound on the lines held, so that runs pass it: secrets (a key block whose BEGIN
    # or END is lost, a key id by its secret) among runs longer than it, cut by pieces and pages
    text = "".join("\n".join([*lines, plant.text[cut:], ""]) for lines, plant, cut in parts)
    text += "".join(f"{line}\n" for line in last)
    with (
        tempfile.TemporaryDirectory() as folder,
        patch.object(log_reader, "_READ_BYTES", piece // 3 + 1),
        patch.object(log_reader, "_PIECE_BYTES", piece),
        patch.object(redaction_stream, "MAX_HELD_BODY_CHARACTERS", held),
    ):
        root = Path(folder) / "logs"
        (root / "exec-2").mkdir(parents=True)
        (root / "exec-2" / "tool.log").write_bytes(text.encode())
        shown = _all_pages(_signed(root), limit)
        from_the_start = list(redacted_lines([text]))
    assert shown == from_the_start


def test_a_deep_page_of_a_log_of_body_looking_lines_reads_about_what_the_first_page_reads(
    root: Path,
) -> None:
    # every line could be a key's body: the first page reads the lines held back first, a deep
    # page as much from a restart point near it, not the log from its start
    lines = [f"{n:08d}" + "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0123456789" for n in range(20_000)]
    (root / "exec-2").mkdir()
    (root / "exec-2" / "tool.log").write_text("".join(f"{line}\n" for line in lines))
    reader = _signed(root)
    read, counted = _counted_pieces()

    shown, token, reads = [], None, []
    with (
        patch.object(log_reader, "_READ_BYTES", 1024),
        patch.object(log_reader, "_pieces", counted),
        patch.object(redaction_stream, "MAX_HELD_BODY_CHARACTERS", 16 * 1024),
    ):
        while True:
            read[0] = 0
            page = reader.read("exec-2", stream="tool.log", next_token=token, limit=500)
            shown += [event.message for event in page.events]
            reads.append(read[0])
            if (token := page.next_token) is None:
                break
    assert shown == lines
    # the held lines (16 KB and their overhead, ~23 KB of text), a piece and the page (27 KB);
    # read from the start, the last page would read the whole log (1.1 MB)
    assert max(reads) < 2 * reads[0] < 200 * 1024, reads


# No symbolic link under the logs root is followed: each part of a group and a stream is opened
# under its parent's descriptor with O_NOFOLLOW, and a file is read from the descriptor opened.

OUTSIDE = "text of a file outside the logs root"


def _outside(tmp_path: Path) -> Path:
    """A folder outside the logs root holding logs named as the root's are."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    for name in ("pipe-1.log", "pipe-2.log", "outside.log"):
        (outside / name).write_text(f"{OUTSIDE}\n", encoding="utf-8")
    return outside


def _shown(page: LogPage) -> str:
    return "\n".join([*(event.message for event in page.events), page.problem or ""])


def test_a_symlink_inside_the_root_is_not_followed_either(root: Path) -> None:
    # nothing wfx writes under the logs root is a link (FileLogStore writes plain files): a link
    # there, even to a log beside it, was put by someone else
    (root / "exec-1" / "link.log").symlink_to("pipe-1.log")
    (root / "alias").symlink_to("exec-1")
    (root / "exec-1" / "sub").symlink_to(".")
    reader = LocalFileLogReader(root)
    for group, stream, field in [
        ("exec-1", "link.log", "stream 'link.log'"),
        ("exec-1", "", "stream 'exec-1/"),  # the first link the listing meets
        ("alias", "pipe-1.log", "group 'alias'"),
        ("alias", "", "group 'alias'"),
        ("exec-1", "sub/pipe-1.log", "stream 'sub/pipe-1.log'"),
    ]:
        page = reader.read(group, stream=stream)
        assert page.status is LogReadStatus.ACCESS_DENIED, (group, stream)
        assert page.events == () and page.problem is not None
        assert page.problem.startswith(field) and "symbolic link" in page.problem, page.problem
    assert reader.read("exec-1", prefix="pipe-").status is LogReadStatus.READ  # not the link


def test_a_group_folder_that_is_a_link_out_is_never_read(root: Path, tmp_path: Path) -> None:
    (root / "exec-3").symlink_to(_outside(tmp_path))
    (root / "tools" / "nested").symlink_to(tmp_path / "elsewhere")
    reader = _signed(root)
    for arguments in [
        {"group": "exec-3"},
        {"group": "exec-3/"},
        {"group": "./exec-3", "stream": "outside.log"},
        {"group": "exec-3", "prefix": "pipe-", "execution_filter": "exec-3"},
        {"group": "tools/nested", "stream": "pipe-1.log"},
        {"group": "tools", "stream": "nested/pipe-1.log"},
    ]:
        page = reader.read(**arguments)  # type: ignore[arg-type]
        assert page.status is LogReadStatus.ACCESS_DENIED, arguments
        assert OUTSIDE not in _shown(page) and page.problem and "symbolic link" in page.problem


def test_a_stream_that_is_a_link_to_a_file_outside_is_never_read(
    root: Path, tmp_path: Path
) -> None:
    hostname = tmp_path / "hostname"  # as /etc/hostname would be
    hostname.write_text(f"{OUTSIDE}\n", encoding="utf-8")
    (root / "exec-1" / "host.log").symlink_to(hostname)
    reader = LocalFileLogReader(root)
    for page in (
        reader.read("exec-1", stream="host.log"),
        reader.read("exec-1", prefix="host"),
        reader.read("exec-1", stream="host.log", execution_filter="exec-1", limit=1),
    ):
        assert page.status is LogReadStatus.ACCESS_DENIED
        assert OUTSIDE not in _shown(page)


def test_a_fifo_or_a_folder_named_as_a_stream_is_not_found_and_nothing_waits(root: Path) -> None:
    os.mkfifo(root / "exec-1" / "fifo.log")  # opened blocking, it would wait for a writer
    (root / "exec-1" / "folder.log").mkdir()
    reader = LocalFileLogReader(root)
    assert reader.read("exec-1", stream="fifo.log").status is LogReadStatus.NOT_FOUND
    assert reader.read("exec-1", stream="folder.log").status is LogReadStatus.NOT_FOUND
    assert reader.read("exec-1", stream="pipe-1.log/x").status is LogReadStatus.NOT_FOUND
    page = reader.read("exec-1")  # a listing takes neither
    assert [e.message for e in page.events] == ["one", "two", "three", "four"]


def _between_the_check_and_the_open(change: Callable[[], None]) -> AbstractContextManager[Any]:
    """log_reader._page, doing `change` first: after the group and stream were checked and the
    files listed (in the old design: their paths resolved), before any file is read."""
    page = log_reader._page

    def changed(*arguments: Any) -> Any:
        change()
        return page(*arguments)

    return patch.object(log_reader, "_page", changed)


def test_a_group_folder_swapped_for_a_link_out_after_the_check_is_not_followed(
    root: Path, tmp_path: Path
) -> None:
    outside = _outside(tmp_path)

    def swap() -> None:  # another user of the logs folder, between the check and the open
        (root / "exec-1").rename(tmp_path / "moved")
        (root / "exec-1").symlink_to(outside)

    with _between_the_check_and_the_open(swap):
        page = LocalFileLogReader(root).read("exec-1")
    # what was checked is what is read: the folder the read opened, wherever it went since
    assert OUTSIDE not in _shown(page)
    assert [e.message for e in page.events] == ["one", "two", "three", "four"]


def test_a_stream_swapped_for_a_link_out_after_the_check_is_not_followed(
    root: Path, tmp_path: Path
) -> None:
    outside = _outside(tmp_path)

    def swap() -> None:
        (root / "exec-1" / "pipe-1.log").unlink()
        (root / "exec-1" / "pipe-1.log").symlink_to(outside / "pipe-1.log")

    with _between_the_check_and_the_open(swap):
        page = LocalFileLogReader(root).read("exec-1", stream="pipe-1.log")
    assert [e.message for e in page.events] == ["one", "two", "three"]  # the file opened


def test_a_listed_file_swapped_for_a_link_before_the_read_reaches_it_refuses_the_read(
    root: Path, tmp_path: Path
) -> None:
    outside = _outside(tmp_path)

    def swap() -> None:
        (root / "exec-1" / "pipe-2.log").unlink()
        (root / "exec-1" / "pipe-2.log").symlink_to(outside / "pipe-2.log")

    with _between_the_check_and_the_open(swap):
        page = LocalFileLogReader(root).read("exec-1")
    assert page.status is LogReadStatus.ACCESS_DENIED and page.events == ()
    assert OUTSIDE not in _shown(page) and "'exec-1/pipe-2.log'" in _shown(page)


def test_a_listed_file_gone_before_the_read_reaches_it_is_read_as_nothing(root: Path) -> None:
    # a run's logs removed while read: the files still there are read
    with _between_the_check_and_the_open((root / "exec-1" / "pipe-1.log").unlink):
        page = _signed(root).read("exec-1", limit=1)
    assert [e.message for e in page.events] == ["four"] and page.next_token is None


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts /proc/self/fd")
def test_no_read_leaves_a_descriptor_open(root: Path, tmp_path: Path) -> None:
    (root / "exec-1" / "link.log").symlink_to(tmp_path / "secret.txt")
    (root / "exec-2").mkdir()
    (root / "exec-2" / "a.log").write_text("a 1\na 2\n", encoding="utf-8")
    (root / "linked").symlink_to(root / "exec-2")
    (root / "exec-2" / "folder.log").mkdir()
    reader = _signed(root)
    gone = root / "exec-2" / "gone.log"
    became_link = root / "exec-2" / "b.log"

    def change() -> None:
        gone.unlink(missing_ok=True)
        became_link.unlink(missing_ok=True)
        became_link.symlink_to(tmp_path / "secret.txt")

    def reads() -> list[LogReadStatus]:
        gone.write_text("gone\n", encoding="utf-8")
        became_link.unlink(missing_ok=True)
        became_link.write_text("b 1\n", encoding="utf-8")
        first = reader.read("exec-2", stream="a.log", limit=1)
        statuses = [
            reader.read("exec-1", prefix="pipe-").status,  # a group
            first.status,  # a stream, a token issued while its file is being read
            reader.read("exec-2", stream="a.log", next_token=first.next_token).status,
            reader.read("exec-1").status,  # refused: a link among the files
            reader.read("linked", stream="a.log").status,  # refused: the group
            reader.read("exec-1", stream="../x").status,  # refused by name
            reader.read("exec-9").status,  # not found
            reader.read("exec-2", stream="folder.log").status,  # opened, no file: not found
            reader.read("exec-2", stream="a.log", next_token="1.0.0.0.x.y").status,  # garbled
        ]
        with _between_the_check_and_the_open(change):
            statuses.append(reader.read("exec-2", prefix="gone").status)  # vanished mid-way
        with _between_the_check_and_the_open(change):
            statuses.append(reader.read("exec-2").status)  # a link took a file's place
        return statuses

    first = reads()  # the first read makes the key file: counted after it
    before = _open_descriptors()
    for _ in range(200):
        assert reads() == first
    assert _open_descriptors() == before
    assert first == [
        LogReadStatus.READ,
        LogReadStatus.READ,
        LogReadStatus.READ,
        LogReadStatus.ACCESS_DENIED,
        LogReadStatus.ACCESS_DENIED,
        LogReadStatus.ACCESS_DENIED,
        LogReadStatus.NOT_FOUND,
        LogReadStatus.NOT_FOUND,
        LogReadStatus.ERROR,
        LogReadStatus.EMPTY,
        LogReadStatus.ACCESS_DENIED,
    ]


@pytest.mark.parametrize("replaced", [False, True], ids=["same file", "a copy in its place"])
def test_a_token_binds_the_file_it_was_read_from_not_its_name(root: Path, replaced: bool) -> None:
    # a group's token resumes in its second file only while that is the file the token's page
    # read (device, inode): a copy of the same bytes put in its place is read from the start
    (root / "exec-2").mkdir()
    first = "".join(f"a line {n}\n" for n in range(40))
    (root / "exec-2" / "a.log").write_text(first, encoding="utf-8")
    second = root / "exec-2" / "b.log"
    both = len(first) + second.write_text(
        "".join(f"b line {n}\n" for n in range(80)), encoding="utf-8"
    )
    reader = _signed(root)
    read, counted = _counted_pieces()
    with (
        patch.object(log_reader, "_READ_BYTES", 64),
        patch.object(log_reader, "_pieces", counted),
    ):
        token = reader.read("exec-2", limit=60).next_token
        assert token is not None and token.split(".")[2] == "1"  # a restart point in b.log
        if replaced:
            copy = root / "exec-2" / ".copy"
            copy.write_bytes(second.read_bytes())
            copy.replace(second)
        read[0] = 0
        page = reader.read("exec-2", next_token=token, limit=60)
    assert [e.message for e in page.events] == [f"b line {n}" for n in range(20, 80)]
    # from its restart point, less than b.log; from the start, all of both
    assert read[0] >= both if replaced else read[0] < both - len(first), read[0]
