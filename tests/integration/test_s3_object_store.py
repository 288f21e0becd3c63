"""S3ObjectStore beyond the contract (tests/contract/test_object_store.py): S3's own version
ids, a bucket wfx cannot use, delete markers, deletes of more than one page, and moto's server
reached over HTTP through boto3's AWS_ENDPOINT_URL_S3 (the same client wfx's container builds)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from adapters.aws.failures import BucketUnusableError
from adapters.aws.s3_object_store import S3ObjectStore
from adapters.concurrent_reads import THREAD_NAME_PREFIX
from application.ports.files import HeadRequest
from conftest import S3_BUCKET, s3_client, versioned_bucket
from entrypoints.aws_clients import aws_client
from tests.integration.moto_server import moto_server

pytestmark = pytest.mark.integration


def _store(client: Any, tmp_path: Path, bucket: str = S3_BUCKET) -> S3ObjectStore:
    return S3ObjectStore(lambda: client, bucket, tmp_path / "scratch")


def test_version_ids_etags_and_sizes_are_s3s_own(moto_s3_client: Any, tmp_path: Path) -> None:
    stored = _store(moto_s3_client, tmp_path).put_bytes("assets/db1/a1/mesh.obj", b"v 0 0 0\n")

    head = moto_s3_client.head_object(Bucket=S3_BUCKET, Key="assets/db1/a1/mesh.obj")
    assert stored.version_id == head["VersionId"]
    assert stored.etag == head["ETag"].strip('"')
    assert stored.size == head["ContentLength"] == 8


def test_a_key_whose_latest_version_is_a_delete_marker_is_not_listed(
    moto_s3_client: Any, tmp_path: Path
) -> None:
    objects = _store(moto_s3_client, tmp_path)
    gone = objects.put_bytes("out/gone.obj", b"1")
    kept = objects.put_bytes("out/kept.obj", b"2")
    moto_s3_client.delete_object(Bucket=S3_BUCKET, Key="out/gone.obj")

    assert objects.list_latest("out/") == [kept]
    with pytest.raises(FileNotFoundError, match="no version stored"):
        objects.read_bytes("out/gone.obj")
    assert objects.read_bytes("out/gone.obj", gone.version_id) == b"1"  # still a version
    assert objects.delete_prefix("out/") == 2
    listed = moto_s3_client.list_object_versions(Bucket=S3_BUCKET, Prefix="out/")
    assert "Versions" not in listed and "DeleteMarkers" not in listed  # the marker went too


def test_a_delete_of_more_versions_than_one_page_removes_them_all(
    moto_s3_client: Any, tmp_path: Path
) -> None:
    objects = S3ObjectStore(lambda: moto_s3_client, S3_BUCKET, tmp_path / "scratch", page_size=2)
    for n in range(7):
        objects.put_bytes(f"runs/e1/{n % 3}.obj", b"x")
    moto_s3_client.delete_object(Bucket=S3_BUCKET, Key="runs/e1/0.obj")  # a marker as well
    kept = objects.put_bytes("runs/e2/0.obj", b"another run")

    assert [o.key for o in objects.list_latest("runs/e1/")] == ["runs/e1/1.obj", "runs/e1/2.obj"]
    assert objects.delete_prefix("runs/e1/") == 3
    assert objects.list_latest("runs/") == [kept]
    listed = moto_s3_client.list_object_versions(Bucket=S3_BUCKET, Prefix="runs/e1/")
    assert "Versions" not in listed and "DeleteMarkers" not in listed


def test_a_local_copy_is_downloaded_once_and_a_link_planted_in_its_place_is_replaced(
    moto_s3_client: Any, tmp_path: Path
) -> None:
    objects = _store(moto_s3_client, tmp_path)
    stored = objects.put_bytes("assets/db1/a1/mesh.obj", b"stored body")
    local = objects.local_path(stored.key, stored.version_id)
    secret = tmp_path / "secret.txt"
    secret.write_text("not for steps")
    local.unlink()
    local.symlink_to(secret)

    again = objects.local_path(stored.key, stored.version_id)

    assert again == local and not again.is_symlink()
    assert again.read_bytes() == b"stored body"
    assert secret.read_text() == "not for steps"


def test_a_missing_bucket_is_named_with_what_to_do(moto_s3_client: Any, tmp_path: Path) -> None:
    objects = _store(moto_s3_client, tmp_path, bucket="no-such-bucket")

    with pytest.raises(BucketUnusableError) as refused:
        objects.list_latest("assets/")

    message = str(refused.value)
    assert "'no-such-bucket' (WFX_S3_BUCKET) does not exist" in message
    assert "put-bucket-versioning" in message and "AWS_ENDPOINT_URL_S3" in message


def test_a_bucket_without_versioning_is_refused_before_anything_is_written(
    moto_s3_client: Any, tmp_path: Path
) -> None:
    moto_s3_client.create_bucket(Bucket="plain")
    objects = _store(moto_s3_client, tmp_path, bucket="plain")

    with pytest.raises(BucketUnusableError, match=r"versioning never enabled.*Enable it"):
        objects.put_bytes("assets/db1/a1/mesh.obj", b"x")

    assert "Contents" not in moto_s3_client.list_objects_v2(Bucket="plain")


def test_an_endpoint_that_does_not_answer_is_named_with_the_bucket(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:9")  # discard: nothing listens
    objects = _store(aws_client("s3", "us-east-1"), tmp_path)

    with pytest.raises(BucketUnusableError, match=r"'wfx-test-assets'.*cannot be reached"):
        objects.list_latest("")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with moto_server() as url:
        yield url


@pytest.mark.xdist_group("moto-server-s3")
def test_the_store_works_over_http_on_moto_server_through_aws_endpoint_url_s3(
    server: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    versioned_bucket(s3_client(server), "wfx-over-http")
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", server)
    objects = _store(aws_client("s3", "us-east-1"), tmp_path, bucket="wfx-over-http")
    source = tmp_path / "mesh.obj"
    source.write_bytes(b"v 0 0 0\n" * 10_000)

    first = objects.put_file("assets/db1/a1/mesh.obj", source)
    second = objects.put_bytes("assets/db1/a1/mesh.obj", b"smaller")

    assert objects.list_latest("assets/db1/a1/") == [second]
    assert objects.local_path(first.key, first.version_id).read_bytes() == source.read_bytes()
    assert objects.read_bytes(first.key) == b"smaller"
    assert objects.delete_prefix("assets/") == 1
    assert objects.list_latest("assets/") == []


def test_read_heads_sends_its_gets_at_once_and_raises_the_first_refused_in_order(
    moto_s3_client: Any, tmp_path: Path
) -> None:
    store = _store(moto_s3_client, tmp_path)
    stored = [
        store.put_bytes(f"executions/e1/output/r{n}.txt", f"result {n}".encode()) for n in range(12)
    ]
    wanted = [HeadRequest(s.key, s.version_id, 8) for s in stored]
    threads: list[str] = []

    def note(**_: Any) -> None:
        threads.append(threading.current_thread().name)

    def refuse(params: dict[str, Any], **_: Any) -> None:
        if params["Key"].endswith(("r3.txt", "r7.txt")):
            error = {"Error": {"Code": "AccessDenied", "Message": params["Key"]}}
            raise ClientError(error, "GetObject")  # type: ignore[arg-type]

    events = moto_s3_client.meta.events
    events.register("before-parameter-build.s3.GetObject", note, unique_id="test-note")
    try:
        assert store.read_heads(wanted) == [f"result {n}".encode()[:8] for n in range(12)]
        assert len(threads) == 12 and all(t.startswith(THREAD_NAME_PREFIX) for t in threads)

        threads.clear()
        one_by_one = S3ObjectStore(
            lambda: moto_s3_client, S3_BUCKET, tmp_path / "s", concurrent_reads=False
        )
        assert one_by_one.read_heads(wanted) == [f"result {n}".encode()[:8] for n in range(12)]
        assert set(threads) == {threading.current_thread().name}

        events.register("before-parameter-build.s3.GetObject", refuse, unique_id="test-refuse")
        with pytest.raises(ClientError, match=r"r3\.txt"):
            store.read_heads(wanted)
    finally:
        events.unregister("before-parameter-build.s3.GetObject", unique_id="test-note")
        events.unregister("before-parameter-build.s3.GetObject", unique_id="test-refuse")


def test_a_head_asks_s3_for_its_bytes_alone(moto_s3_client: Any, tmp_path: Path) -> None:
    """A results file may be gigabytes: the GET names a range, so S3 sends no byte past it."""
    store = _store(moto_s3_client, tmp_path)
    stored = store.put_bytes("executions/e1/output/big.bin", b"x" * 100_000)
    ranges: list[str | None] = []

    def seen(params: dict[str, Any], **_: Any) -> None:
        ranges.append(params["headers"].get("Range"))

    moto_s3_client.meta.events.register("before-call.s3.GetObject", seen)
    try:
        head = store.read_head(stored.key, stored.version_id, 10)
    finally:
        moto_s3_client.meta.events.unregister("before-call.s3.GetObject", seen)
    assert (head, ranges) == (b"x" * 10, ["bytes=0-9"])
