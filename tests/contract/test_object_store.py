"""The ObjectStore contract: the filesystem store and the S3 store (moto, in-process) alike;
the fixtures are in /conftest.py."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from application.ports.files import HeadRequest, ObjectStore
from conftest import S3_BUCKET
from domain.assets import file_key_problem, object_key_problem


@pytest.fixture(params=["filesystem", "s3"])
def objects(request: pytest.FixtureRequest) -> ObjectStore:
    store: ObjectStore = request.getfixturevalue(f"{request.param}_object_store")
    return store


def test_every_write_of_a_key_gets_a_new_version_and_old_versions_stay_readable(
    objects: ObjectStore,
) -> None:
    first = objects.put_bytes("assets/db1/asset1/mesh.obj", b"first")
    second = objects.put_bytes("assets/db1/asset1/mesh.obj", b"second body")

    assert first.version_id != second.version_id
    assert objects.local_path(first.key, first.version_id).read_bytes() == b"first"
    assert objects.local_path(second.key, second.version_id).read_bytes() == b"second body"
    assert objects.read_bytes(first.key, first.version_id) == b"first"
    assert objects.read_bytes(first.key) == b"second body"  # no version: the newest


def test_a_stored_object_reports_its_key_size_and_an_etag_of_its_body(
    objects: ObjectStore,
) -> None:
    body = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"

    stored = objects.put_bytes("assets/db1/asset1/tri.obj", body)
    again = objects.put_bytes("assets/db1/asset2/tri.obj", body)
    other = objects.put_bytes("assets/db1/asset3/tri.obj", body + b"f 3 2 1\n")

    assert stored.key == "assets/db1/asset1/tri.obj"
    assert stored.size == len(body)
    assert stored.etag == again.etag != other.etag
    assert objects.list_latest("assets/db1/asset1/") == [stored]  # the listing says the same


def test_put_file_copies_the_file_and_keeps_the_key_base_name(
    objects: ObjectStore, tmp_path: Path
) -> None:
    source = tmp_path / "upload.bin"
    body = os.urandom(3 * 1024 * 1024 + 17)  # more than one copy chunk
    source.write_bytes(body)

    stored = objects.put_file("executions/e1/output/normalized/torus.obj", source)
    source.write_bytes(b"changed after the upload")

    local = objects.local_path(stored.key, stored.version_id)
    assert local.name == "torus.obj"
    assert stored.size == len(body)
    assert local.read_bytes() == body


def test_a_local_copy_is_read_only(objects: ObjectStore) -> None:
    stored = objects.put_bytes("k/input.obj", b"an input")

    local = objects.local_path(stored.key, stored.version_id)

    assert local.stat().st_mode & 0o222 == 0  # a step cannot rewrite a stored version
    assert objects.local_path(stored.key, stored.version_id) == local  # and it is reused


def test_list_latest_returns_the_newest_version_of_every_key_under_the_prefix_by_key(
    objects: ObjectStore,
) -> None:
    objects.put_bytes("executions/e1/output/stats.json", b"old")
    newest = objects.put_bytes("executions/e1/output/stats.json", b"new")
    preview = objects.put_bytes("executions/e1/output/preview/a.svg", b"<svg/>")
    objects.put_bytes("executions/e2/output/stats.json", b"another run")

    latest = objects.list_latest("executions/e1/output/")

    assert latest == [preview, newest]


def test_a_key_may_be_a_prefix_of_another_key(objects: ObjectStore) -> None:
    short = objects.put_bytes("a/b", b"short")
    long = objects.put_bytes("a/b/c", b"long")

    assert objects.local_path("a/b", short.version_id).read_bytes() == b"short"
    assert objects.local_path("a/b/c", long.version_id).read_bytes() == b"long"
    assert [o.key for o in objects.list_latest("a/")] == ["a/b", "a/b/c"]
    assert [o.key for o in objects.list_latest("a/b/")] == ["a/b/c"]


def test_a_prefix_that_ends_inside_a_name_matches_keys_starting_with_it(
    objects: ObjectStore,
) -> None:
    for key in ("assets/db1/asset1/x", "assets/db1/asset10/y", "assets/db1/other/z"):
        objects.put_bytes(key, b"body")

    assert [o.key for o in objects.list_latest("assets/db1/asset1")] == [
        "assets/db1/asset1/x",
        "assets/db1/asset10/y",
    ]
    assert [o.key for o in objects.list_latest("assets/db1/asset1/x")] == ["assets/db1/asset1/x"]


def test_list_latest_of_an_unknown_prefix_is_empty(objects: ObjectStore) -> None:
    assert objects.list_latest("executions/nothing-here/output/") == []
    assert objects.list_latest("") == []


def test_the_latest_version_follows_write_order_even_within_one_clock_tick(
    objects: ObjectStore,
) -> None:
    written = [objects.put_bytes("k/tick", str(n).encode()) for n in range(50)]

    (latest,) = objects.list_latest("k/")

    assert latest == written[-1]
    assert objects.read_bytes("k/tick") == b"49"


def test_concurrent_writers_each_get_their_own_complete_version(objects: ObjectStore) -> None:
    bodies = {n: bytes([n]) * 200_000 for n in range(8)}
    stored = {}

    def write(n: int) -> None:
        stored[n] = objects.put_bytes("shared/key", bodies[n])

    threads = [threading.Thread(target=write, args=(n,)) for n in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len({s.version_id for s in stored.values()}) == len(bodies)
    for n, version in stored.items():
        assert objects.local_path(version.key, version.version_id).read_bytes() == bodies[n]


def test_a_failed_copy_leaves_no_version(objects: ObjectStore, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        objects.put_file("k/missing", tmp_path / "does-not-exist")

    assert objects.list_latest("k/") == []


def test_an_unknown_version_or_key_names_the_key_and_the_version(objects: ObjectStore) -> None:
    objects.put_bytes("k/file", b"x")

    with pytest.raises(FileNotFoundError, match=r"'k/file'.*'00000000000000000001-abcdef01'"):
        objects.local_path("k/file", "00000000000000000001-abcdef01")
    with pytest.raises(FileNotFoundError, match="k/other"):
        objects.local_path("k/other", "00000000000000000001-abcdef01")
    with pytest.raises(FileNotFoundError, match=r"'k/file'.*'00000000000000000001-abcdef01'"):
        objects.read_bytes("k/file", "00000000000000000001-abcdef01")
    with pytest.raises(FileNotFoundError, match="'k/other': no version stored"):
        objects.read_bytes("k/other")


@pytest.mark.parametrize(
    "key", ["", "/abs", "a//b", "a/../b", "a/./b", "trailing/", "x.versions/y"]
)
def test_a_key_that_cannot_be_a_path_is_refused(objects: ObjectStore, key: str) -> None:
    """By the rule `assets import` checks file keys with, so an import refuses what no store
    would keep and no more."""
    problem = object_key_problem(key)
    assert problem is not None and file_key_problem(key) == problem
    with pytest.raises(ValueError, match="object key") as refused:
        objects.put_bytes(key, b"x")
    assert problem in str(refused.value)


def test_a_key_ending_in_the_versions_suffix_is_still_a_plain_key(objects: ObjectStore) -> None:
    stored = objects.put_bytes("notes/changes.versions", b"x")

    assert objects.list_latest("notes/") == [stored]


def test_the_bucket_is_the_one_it_was_given(objects: ObjectStore) -> None:
    assert objects.bucket == S3_BUCKET


def test_put_file_refuses_a_link_and_a_fifo_and_reads_an_open_file_from_where_it_stands(
    objects: ObjectStore, tmp_path: Path
) -> None:
    real = tmp_path / "real.txt"
    real.write_bytes(b"header|body")
    (tmp_path / "link.txt").symlink_to(real)
    os.mkfifo(tmp_path / "fifo")

    with pytest.raises(OSError, match="symbolic links"):
        objects.put_file("k/link.txt", tmp_path / "link.txt")
    with pytest.raises(OSError, match="not a regular file"):
        objects.put_file("k/fifo", tmp_path / "fifo")  # refused at once, not left waiting
    with open(real, "rb") as body:
        body.seek(len(b"header|"))
        stored = objects.put_file("k/real.txt", body)

    assert stored.size == len(b"body")
    assert objects.local_path(stored.key, stored.version_id).read_bytes() == b"body"
    assert objects.list_latest("k/") == [stored]


def test_delete_prefix_removes_every_version_of_every_key_under_it_and_nothing_else(
    objects: ObjectStore,
) -> None:
    old = objects.put_bytes("executions/e1/output/a.obj", b"1")
    objects.local_path(old.key, old.version_id)  # a copy handed out before the delete
    objects.put_bytes("executions/e1/output/a.obj", b"2")
    objects.put_bytes("executions/e1/output/deep/b.obj", b"3")
    objects.put_bytes("executions/e1/logs/execution.log", b"log")
    kept = objects.put_bytes("executions/e10/output/a.obj", b"another run")
    also_kept = objects.put_bytes("executions/e1", b"a key equal to the prefix without its /")

    removed = objects.delete_prefix("executions/e1/")

    assert removed == 3
    assert objects.list_latest("executions/e1/") == []
    with pytest.raises(FileNotFoundError):
        objects.local_path(old.key, old.version_id)
    with pytest.raises(FileNotFoundError):
        objects.read_bytes(old.key, old.version_id)
    assert objects.list_latest("executions/") == [also_kept, kept]


def test_delete_prefix_ending_inside_a_name_matches_keys_starting_with_it(
    objects: ObjectStore,
) -> None:
    objects.put_bytes("a/bc.obj", b"1")
    objects.put_bytes("a/bd/c.obj", b"2")
    kept = objects.put_bytes("a/b", b"3")  # its folder `a/b.versions` starts `a/b.v`

    assert objects.delete_prefix("a/b.v") == 0
    assert objects.delete_prefix("a/bc") == 1
    assert objects.delete_prefix("a/b") == 2  # `a/b` itself and `a/bd/c.obj`
    assert kept not in objects.list_latest("a/")
    assert objects.list_latest("") == []


def test_delete_prefix_twice_or_of_nothing_is_no_error_and_an_empty_prefix_is_refused(
    objects: ObjectStore,
) -> None:
    objects.put_bytes("executions/e1/output/a.obj", b"1")

    assert objects.delete_prefix("executions/e1/") == 1
    assert objects.delete_prefix("executions/e1/") == 0
    assert objects.delete_prefix("never/written/") == 0
    with pytest.raises(ValueError, match="prefix"):
        objects.delete_prefix("")


def test_read_head_reads_no_further_than_asked_at_the_version_asked(objects: ObjectStore) -> None:
    first = objects.put_bytes("executions/e1/output/report.txt", b"0123456789")
    objects.put_bytes("executions/e1/output/report.txt", b"newer")

    assert objects.read_head(first.key, first.version_id, 4) == b"0123"
    assert objects.read_head(first.key, first.version_id, 100) == b"0123456789"
    empty = objects.put_bytes("executions/e1/output/empty.txt", b"")
    assert objects.read_head(empty.key, empty.version_id, 4) == b""
    with pytest.raises(FileNotFoundError):
        objects.read_head("executions/e1/output/none.txt", first.version_id, 4)


def test_read_head_of_no_bytes_still_says_whether_the_version_is_there(
    objects: ObjectStore,
) -> None:
    stored = objects.put_bytes("executions/e1/output/report.txt", b"0123456789")
    empty = objects.put_bytes("executions/e1/output/empty.txt", b"")

    assert objects.read_head(stored.key, stored.version_id, 0) == b""
    assert objects.read_head(empty.key, empty.version_id, 0) == b""
    with pytest.raises(FileNotFoundError):
        objects.read_head("executions/e1/output/none.txt", stored.version_id, 0)
    with pytest.raises(ValueError, match="size"):
        objects.read_head(stored.key, stored.version_id, -1)


def test_read_heads_reads_each_as_read_head_does_in_the_order_asked_none_where_gone(
    objects: ObjectStore,
) -> None:
    first = objects.put_bytes("executions/e1/output/report.txt", b"0123456789")
    newer = objects.put_bytes("executions/e1/output/report.txt", b"newer")
    empty = objects.put_bytes("executions/e1/output/empty.txt", b"")
    other = objects.put_bytes("executions/e1/output/b/other.txt", "añb€".encode())
    wanted = [
        HeadRequest(first.key, first.version_id, 4),
        HeadRequest("executions/e1/output/none.txt", first.version_id, 4),  # never stored
        HeadRequest(newer.key, newer.version_id, 100),
        HeadRequest(empty.key, empty.version_id, 4),
        HeadRequest(first.key, first.version_id, 0),
        HeadRequest(other.key, other.version_id, 3),  # inside a character: bytes, as asked
        HeadRequest(first.key, "", 4),  # a version id no store gives
        HeadRequest("executions//e1/x.txt", first.version_id, 4),  # a key no store keeps
        *(HeadRequest(first.key, first.version_id, n) for n in range(1, 11)),  # more than threads
    ]

    heads = objects.read_heads(wanted)

    assert heads == [
        b"0123",
        None,
        b"newer",
        b"",
        b"",
        "añ".encode(),
        None,
        None,
        *(b"0123456789"[:n] for n in range(1, 11)),
    ]
    assert objects.read_heads([]) == []


def test_read_heads_raises_a_failure_other_than_gone(
    objects: ObjectStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = objects.put_bytes("executions/e1/output/report.txt", b"0123456789")
    failing = {"executions/e1/output/a.txt", "executions/e1/output/b.txt"}
    read_head = objects.read_head

    def fails_for_some(key: str, version_id: str, size: int) -> bytes:
        if key in failing:
            raise PermissionError(key)  # an answer other than "gone": refused, unreachable
        return read_head(key, version_id, size)

    monkeypatch.setattr(objects, "read_head", fails_for_some)
    wanted = [
        HeadRequest(stored.key, stored.version_id, 4),
        HeadRequest("executions/e1/output/a.txt", stored.version_id, 4),
        HeadRequest(stored.key, stored.version_id, 4),
        HeadRequest("executions/e1/output/b.txt", stored.version_id, 4),
    ]
    with pytest.raises(PermissionError, match=r"a\.txt"):  # the first in the order asked
        objects.read_heads(wanted)


def test_put_stream_stores_the_chunks_joined_as_put_bytes_stores_the_whole(
    objects: ObjectStore,
) -> None:
    # a body made as it is written (a run log redacted on the way): more than a copy chunk,
    # in chunks of odd sizes, some empty
    body = os.urandom(2 * 1024 * 1024 + 5)
    sizes = [0, 1, 1024 * 1024 - 1, 0, 7, len(body)]
    chunks, at = [], 0
    for size in sizes:
        chunks.append(body[at : at + size])
        at += size

    streamed = objects.put_stream("executions/e1/logs/execution.log", iter(chunks))
    whole = objects.put_bytes("executions/e2/logs/execution.log", body)

    assert objects.read_bytes(streamed.key, streamed.version_id) == body
    assert streamed.size == whole.size == len(body)
    assert streamed.etag == whole.etag
    assert objects.list_latest("executions/e1/logs/") == [streamed]


def test_a_put_stream_whose_chunks_fail_stores_no_version(objects: ObjectStore) -> None:
    def chunks() -> Iterator[bytes]:
        yield b"the first part"
        raise OSError("the log could not be read further")

    with pytest.raises(OSError, match="read further"):
        objects.put_stream("executions/e1/logs/execution.log", chunks())

    assert objects.list_latest("executions/e1/") == []
