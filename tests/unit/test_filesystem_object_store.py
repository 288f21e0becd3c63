"""FilesystemObjectStore: versions, atomic writes, prefix listing, etags."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import pytest

from adapters.local.object_store import FilesystemObjectStore


@pytest.fixture
def objects(tmp_path: Path) -> FilesystemObjectStore:
    return FilesystemObjectStore(tmp_path / "objects")


def test_every_write_of_a_key_gets_a_new_version_and_old_versions_stay_readable(
    objects: FilesystemObjectStore,
) -> None:
    first = objects.put_bytes("assets/db1/asset1/mesh.obj", b"first")
    second = objects.put_bytes("assets/db1/asset1/mesh.obj", b"second body")

    assert first.version_id != second.version_id
    assert objects.local_path(first.key, first.version_id).read_bytes() == b"first"
    assert objects.local_path(second.key, second.version_id).read_bytes() == b"second body"
    assert [v.version_id for v in objects.versions(first.key)] == [
        first.version_id,
        second.version_id,
    ]


def test_a_stored_object_reports_its_size_and_the_sha256_of_its_body(
    objects: FilesystemObjectStore,
) -> None:
    body = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"

    stored = objects.put_bytes("assets/db1/asset1/tri.obj", body)

    assert stored.key == "assets/db1/asset1/tri.obj"
    assert stored.size == len(body)
    assert stored.etag == hashlib.sha256(body).hexdigest()


def test_put_file_copies_the_file_and_keeps_the_key_base_name(
    objects: FilesystemObjectStore, tmp_path: Path
) -> None:
    source = tmp_path / "upload.bin"
    source.write_bytes(os.urandom(3 * 1024 * 1024 + 17))  # more than one copy chunk

    stored = objects.put_file("executions/e1/output/normalized/torus.obj", source)
    source.write_bytes(b"changed after the upload")

    local = objects.local_path(stored.key, stored.version_id)
    assert local.name == "torus.obj"
    assert stored.size == 3 * 1024 * 1024 + 17
    assert stored.etag == hashlib.sha256(local.read_bytes()).hexdigest()


def test_list_latest_returns_the_newest_version_of_every_key_under_the_prefix_by_key(
    objects: FilesystemObjectStore,
) -> None:
    objects.put_bytes("executions/e1/output/stats.json", b"old")
    newest = objects.put_bytes("executions/e1/output/stats.json", b"new")
    preview = objects.put_bytes("executions/e1/output/preview/a.svg", b"<svg/>")
    objects.put_bytes("executions/e2/output/stats.json", b"another run")

    latest = objects.list_latest("executions/e1/output/")

    assert latest == [preview, newest]


def test_a_key_may_be_a_prefix_of_another_key(objects: FilesystemObjectStore) -> None:
    short = objects.put_bytes("a/b", b"short")
    long = objects.put_bytes("a/b/c", b"long")

    assert objects.local_path("a/b", short.version_id).read_bytes() == b"short"
    assert objects.local_path("a/b/c", long.version_id).read_bytes() == b"long"
    assert [o.key for o in objects.list_latest("a/")] == ["a/b", "a/b/c"]
    assert [o.key for o in objects.list_latest("a/b/")] == ["a/b/c"]


def test_a_prefix_that_ends_inside_a_name_matches_keys_starting_with_it(
    objects: FilesystemObjectStore,
) -> None:
    for key in ("assets/db1/asset1/x", "assets/db1/asset10/y", "assets/db1/other/z"):
        objects.put_bytes(key, b"body")

    assert [o.key for o in objects.list_latest("assets/db1/asset1")] == [
        "assets/db1/asset1/x",
        "assets/db1/asset10/y",
    ]
    assert [o.key for o in objects.list_latest("assets/db1/asset1/x")] == ["assets/db1/asset1/x"]


def test_list_latest_of_an_unknown_prefix_is_empty(objects: FilesystemObjectStore) -> None:
    assert objects.list_latest("executions/nothing-here/output/") == []
    assert objects.list_latest("") == []


def test_the_latest_version_follows_write_order_even_within_one_clock_tick(
    objects: FilesystemObjectStore,
) -> None:
    written = [objects.put_bytes("k/tick", str(n).encode()) for n in range(50)]

    (latest,) = objects.list_latest("k/")

    assert latest == written[-1]


def test_concurrent_writers_each_get_their_own_complete_version(
    objects: FilesystemObjectStore,
) -> None:
    bodies = [bytes([n]) * 200_000 for n in range(8)]
    stored = []

    def write(body: bytes) -> None:
        stored.append(objects.put_bytes("shared/key", body))

    threads = [threading.Thread(target=write, args=(body,)) for body in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len({s.version_id for s in stored}) == len(bodies)
    for s in stored:
        body = objects.local_path(s.key, s.version_id).read_bytes()
        assert hashlib.sha256(body).hexdigest() == s.etag


def test_a_half_written_version_is_never_listed(objects: FilesystemObjectStore) -> None:
    done = objects.put_bytes("k/file", b"complete")
    # what a writer killed mid-copy leaves behind: its staging folder
    staging = objects.root / "k" / "file.versions" / ".tmp-deadbeef"
    staging.mkdir()
    (staging / "file").write_bytes(b"half")

    assert objects.list_latest("k/") == [done]
    assert objects.versions("k/file") == [done]


def test_a_failed_copy_leaves_no_version(objects: FilesystemObjectStore, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        objects.put_file("k/missing", tmp_path / "does-not-exist")

    assert objects.versions("k/missing") == []


def test_local_path_of_an_unknown_version_names_the_key_and_the_version(
    objects: FilesystemObjectStore,
) -> None:
    objects.put_bytes("k/file", b"x")

    with pytest.raises(FileNotFoundError, match=r"'k/file'.*'00000000000000000001-abcdef01'"):
        objects.local_path("k/file", "00000000000000000001-abcdef01")
    with pytest.raises(FileNotFoundError, match="k/other"):
        objects.local_path("k/other", "00000000000000000001-abcdef01")


@pytest.mark.parametrize(
    "key", ["", "/abs", "a//b", "a/../b", "a/./b", "trailing/", "x.versions/y"]
)
def test_a_key_that_cannot_be_a_path_is_refused(objects: FilesystemObjectStore, key: str) -> None:
    with pytest.raises(ValueError, match="object key"):
        objects.put_bytes(key, b"x")


def test_a_key_ending_in_the_versions_suffix_is_still_a_plain_key(
    objects: FilesystemObjectStore,
) -> None:
    stored = objects.put_bytes("notes/changes.versions", b"x")

    assert objects.list_latest("notes/") == [stored]


def test_the_bucket_name_is_configurable(tmp_path: Path) -> None:
    assert FilesystemObjectStore(tmp_path).bucket == "wfx-local"
    assert FilesystemObjectStore(tmp_path, bucket="assets").bucket == "assets"


def test_put_file_refuses_a_link_and_a_fifo_and_reads_an_open_file_from_where_it_stands(
    objects: FilesystemObjectStore, tmp_path: Path
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

    assert objects.local_path(stored.key, stored.version_id).read_bytes() == b"body"
    assert objects.list_latest("k/") == [stored]


def test_delete_prefix_removes_every_version_of_every_key_under_it_and_nothing_else(
    objects: FilesystemObjectStore,
) -> None:
    objects.put_bytes("executions/e1/output/a.obj", b"1")
    objects.put_bytes("executions/e1/output/a.obj", b"2")
    objects.put_bytes("executions/e1/output/deep/b.obj", b"3")
    objects.put_bytes("executions/e1/logs/execution.log", b"log")
    kept = objects.put_bytes("executions/e10/output/a.obj", b"another run")
    also_kept = objects.put_bytes("executions/e1", b"a key equal to the prefix without its /")

    removed = objects.delete_prefix("executions/e1/")

    assert removed == 3
    assert objects.list_latest("executions/e1/") == []
    assert objects.versions("executions/e1/output/a.obj") == []
    assert objects.list_latest("executions/") == [also_kept, kept]
    assert not (objects.root / "executions" / "e1").exists()  # no empty folder left behind


def test_delete_prefix_ending_inside_a_name_matches_keys_starting_with_it(
    objects: FilesystemObjectStore,
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
    objects: FilesystemObjectStore,
) -> None:
    objects.put_bytes("executions/e1/output/a.obj", b"1")

    assert objects.delete_prefix("executions/e1/") == 1
    assert objects.delete_prefix("executions/e1/") == 0
    assert objects.delete_prefix("never/written/") == 0
    with pytest.raises(ValueError, match="prefix"):
        objects.delete_prefix("")
    assert objects.root.is_dir()  # the root itself stays, empty
