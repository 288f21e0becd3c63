"""FilesystemObjectStore's own layout: `.versions` folders, sha256 etags, read-only bodies and
no empty folder left behind. The behaviour both stores share is in
tests/contract/test_object_store.py."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from adapters.local.object_store import FilesystemObjectStore


@pytest.fixture
def objects(tmp_path: Path) -> FilesystemObjectStore:
    return FilesystemObjectStore(tmp_path / "objects")


def test_versions_lists_every_stored_version_of_a_key_oldest_first(
    objects: FilesystemObjectStore,
) -> None:
    first = objects.put_bytes("assets/db1/asset1/mesh.obj", b"first")
    second = objects.put_bytes("assets/db1/asset1/mesh.obj", b"second body")

    assert objects.versions(first.key) == [first, second]
    assert objects.versions("assets/db1/asset1/unknown.obj") == []


def test_the_etag_is_the_sha256_of_the_body(objects: FilesystemObjectStore) -> None:
    body = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"

    stored = objects.put_bytes("assets/db1/asset1/tri.obj", body)

    assert stored.etag == hashlib.sha256(body).hexdigest()


def test_a_version_is_a_read_only_file_in_the_keys_versions_folder(
    objects: FilesystemObjectStore,
) -> None:
    stored = objects.put_bytes("k/file.obj", b"x")

    local = objects.local_path(stored.key, stored.version_id)

    assert local.parent.parent == objects.root / "k" / "file.obj.versions"
    assert local.stat().st_mode & 0o777 == 0o444


def test_a_half_written_version_is_never_listed(objects: FilesystemObjectStore) -> None:
    done = objects.put_bytes("k/file", b"complete")
    # what a writer killed mid-copy leaves behind: its staging folder
    staging = objects.root / "k" / "file.versions" / ".tmp-deadbeef"
    staging.mkdir()
    (staging / "file").write_bytes(b"half")

    assert objects.list_latest("k/") == [done]
    assert objects.versions("k/file") == [done]


def test_a_version_folder_whose_size_is_no_ascii_number_is_not_a_version(
    objects: FilesystemObjectStore,
) -> None:
    """A name put in a `.versions` folder by hand: `²` is a digit to `str.isdigit`, not to `int`."""
    done = objects.put_bytes("k/file", b"complete")
    (objects.root / "k" / "file.versions" / "zzzz_\u00b2_etag").mkdir()

    assert objects.list_latest("k/") == [done]
    assert objects.versions("k/file") == [done]


def test_the_bucket_name_is_wfx_local_unless_given(tmp_path: Path) -> None:
    assert FilesystemObjectStore(tmp_path).bucket == "wfx-local"
    assert FilesystemObjectStore(tmp_path, bucket="assets").bucket == "assets"


def test_delete_prefix_leaves_no_empty_folder_behind_but_the_root(
    objects: FilesystemObjectStore,
) -> None:
    objects.put_bytes("executions/e1/output/deep/a.obj", b"1")
    kept = objects.put_bytes("executions/e10/output/a.obj", b"another run")

    assert objects.delete_prefix("executions/e1/") == 1
    assert not (objects.root / "executions" / "e1").exists()
    assert objects.versions(kept.key) == [kept]
    assert objects.delete_prefix("executions/") == 1
    assert list(objects.root.iterdir()) == []  # the root itself stays, empty
