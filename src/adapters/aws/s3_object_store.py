"""ObjectStore on a versioned S3 bucket: the version ids, etags and sizes are S3's own.

Imported only when WFX_OBJECT_STORE=s3 (it loads botocore); the client is built on first use.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import stat
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO

from botocore.exceptions import BotoCoreError, ClientError

from adapters.aws.failures import CREDENTIALS_HINT, BucketUnusableError, is_unreachable
from adapters.concurrent_reads import ConcurrentReads
from adapters.object_files import (
    base_name,
    check_head_size,
    check_key,
    check_prefix,
    head_or_none,
    put_file_with,
)
from application.ports.files import HeadRequest, StoredObject

# A listing page holds at most 1,000 entries, and DeleteObjects takes at most 1,000 a request.
MAX_PAGE = 1000
_CHUNK = 1 << 20
# InvalidArgument: S3's answer to a version id it could never have given
_MISSING = frozenset({"NoSuchKey", "NoSuchVersion", "InvalidArgument"})
_FIX = (
    "set WFX_S3_BUCKET to a bucket with versioning enabled (create it, then "
    "`aws s3api put-bucket-versioning --bucket BUCKET --versioning-configuration "
    "Status=Enabled`); for a local stand-in point AWS_ENDPOINT_URL_S3 at it"
)


class S3ObjectStore:
    """Every write is a new S3 version; `local_path` hands out downloaded copies.

    The bucket is checked once, on first use: it must exist and have versioning enabled (a
    version id is what a run's input and output rows pin). Downloads land in `scratch`, one
    read-only file per key and version, under a folder named by a digest of both, and are
    reused; a file appears there by one rename, so a reader never sees half a body.
    """

    def __init__(
        self,
        client: Callable[[], Any],
        bucket: str,
        scratch: Path,
        page_size: int = MAX_PAGE,
        concurrent_reads: bool = True,
    ) -> None:
        """`concurrent_reads`: `read_heads` sends its GETs at once."""
        self._client_factory = client
        self._bucket = bucket
        self._scratch = Path(scratch)
        self._page_size = min(page_size, MAX_PAGE)
        self._client: Any = None
        self._lock = threading.Lock()
        self._reads = ConcurrentReads(concurrent_reads)

    @property
    def bucket(self) -> str:
        return self._bucket

    @property
    def _s3(self) -> Any:
        """The client, once the bucket has been found usable."""
        if self._client is None:
            with self._lock:
                if self._client is None:
                    client = self._client_factory()
                    self._check_bucket(client)
                    self._client = client
        return self._client

    def _check_bucket(self, client: Any) -> None:
        name = self._bucket
        try:
            status = client.get_bucket_versioning(Bucket=name).get("Status")
        except ClientError as error:
            code = str(error.response.get("Error", {}).get("Code", ""))
            if code == "NoSuchBucket":
                problem = "does not exist"
            elif code == "AccessDenied":
                problem = "refuses access (s3:GetBucketVersioning was denied)"
            else:
                problem = f"cannot be used ({code or error})"
            raise BucketUnusableError(
                f"S3 bucket {name!r} (WFX_S3_BUCKET) {problem}; {_FIX}"
            ) from None
        except BotoCoreError as error:
            if is_unreachable(error):
                problem = f"cannot be reached ({error})"
            elif type(error).__name__ == "NoCredentialsError":
                problem = f"cannot be used without AWS credentials: {CREDENTIALS_HINT}"
            else:
                problem = f"cannot be used ({error})"
            raise BucketUnusableError(
                f"S3 bucket {name!r} (WFX_S3_BUCKET) {problem}; check AWS_ENDPOINT_URL_S3 "
                "and AWS_REGION"
            ) from None
        if status != "Enabled":
            raise BucketUnusableError(
                f"S3 bucket {name!r} (WFX_S3_BUCKET) has versioning "
                f"{'suspended' if status else 'never enabled'}: wfx records the S3 version id "
                f"of every file it reads and writes. Enable it: `aws s3api put-bucket-versioning "
                f"--bucket {name} --versioning-configuration Status=Enabled`"
            )

    def put_bytes(self, key: str, body: bytes) -> StoredObject:
        check_key(key)
        return self._put(key, body, len(body))

    def put_file(self, key: str, source: Path | BinaryIO) -> StoredObject:
        check_key(key)
        return put_file_with(source, partial(self._put_stream, key))

    def put_stream(self, key: str, chunks: Iterable[bytes]) -> StoredObject:
        """Spooled to a file in the scratch folder, then one PutObject: the body's size is known
        before the write, the request can be tried again from the file, and no multipart
        upload (nor the permission to abort one) is needed."""
        check_key(key)
        _make_own_folder(self._scratch)  # a link in its place is not written through
        with tempfile.TemporaryFile(dir=self._scratch) as spool:
            for chunk in chunks:
                spool.write(chunk)
            spool.seek(0)
            return self._put_stream(key, spool)

    def _put_stream(self, key: str, reader: BinaryIO) -> StoredObject:
        body = _Remainder(reader)
        size = body.seek(0, os.SEEK_END)
        body.seek(0)
        return self._put(key, body, size)

    def _put(self, key: str, body: bytes | _Remainder, size: int) -> StoredObject:
        answer = self._s3.put_object(Bucket=self._bucket, Key=key, Body=body)
        version_id = answer.get("VersionId")
        if not version_id or version_id == "null":
            # versioning was suspended after the check: this write replaced the "null" version
            raise BucketUnusableError(
                f"S3 bucket {self._bucket!r} (WFX_S3_BUCKET) gave {key!r} no version id: "
                f"versioning is no longer enabled; {_FIX}"
            )
        return StoredObject(key=key, version_id=version_id, size=size, etag=_etag(answer))

    def local_path(self, key: str, version_id: str) -> Path:
        check_key(key)
        if not version_id:
            raise FileNotFoundError(f"object {key!r} has no version {version_id!r}")
        folder = self._scratch_folder(key, version_id)
        target = folder / base_name(key)
        if _is_regular_file(folder, target):
            return target
        self._download(key, version_id, folder, target)
        return target

    def _scratch_folder(self, key: str, version_id: str) -> Path:
        return self._scratch / hashlib.sha256(f"{key}\0{version_id}".encode()).hexdigest()[:32]

    def _download(self, key: str, version_id: str, folder: Path, target: Path) -> None:
        body = self._get(key, version_id)["Body"]
        _make_own_folder(self._scratch)
        _make_own_folder(folder)
        temporary = folder / f".tmp-{secrets.token_hex(8)}"
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
            with open(os.open(temporary, flags, 0o600), "wb") as writer:
                for chunk in body.iter_chunks(_CHUNK):
                    writer.write(chunk)
            # read-only: a step handed this file as an input must not rewrite a stored version
            os.chmod(temporary, 0o444)
            os.replace(temporary, target)  # replaces a link planted there, never writes through
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
        finally:
            body.close()

    def read_bytes(self, key: str, version_id: str | None = None) -> bytes:
        check_key(key)
        if version_id == "":
            raise FileNotFoundError(f"object {key!r} has no version ''")
        body = self._get(key, version_id)["Body"]
        try:
            return bytes(body.read())
        finally:
            body.close()

    def read_head(self, key: str, version_id: str, size: int) -> bytes:
        check_key(key)
        if version_id == "":
            raise FileNotFoundError(f"object {key!r} has no version ''")
        check_head_size(size)
        # a range: S3 sends no byte past it (a results file may be gigabytes); asked for none,
        # one byte, to say whether that version is there
        last = max(size, 1) - 1
        try:
            body = self._get(key, version_id, byte_range=f"bytes=0-{last}")["Body"]
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "InvalidRange":
                return b""  # an empty object: S3 refuses any range of it
            raise
        try:
            return bytes(body.read(size))
        finally:
            body.close()

    def read_heads(self, requests: Sequence[HeadRequest]) -> list[bytes | None]:
        # each GET waits a round trip: 20 results files wait three on the 8 threads, not 20
        return self._reads.each([partial(head_or_none, self.read_head, r) for r in requests])

    def _get(self, key: str, version_id: str | None, byte_range: str | None = None) -> Any:
        extra = {} if version_id is None else {"VersionId": version_id}
        if byte_range is not None:
            extra["Range"] = byte_range
        try:
            return self._s3.get_object(Bucket=self._bucket, Key=key, **extra)
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") not in _MISSING:
                raise
            if version_id is None:
                raise FileNotFoundError(f"object {key!r}: no version stored") from None
            raise FileNotFoundError(f"object {key!r} has no version {version_id!r}") from None

    def list_latest(self, prefix: str) -> list[StoredObject]:
        latest = [
            StoredObject(
                key=version["Key"],
                version_id=version["VersionId"],
                size=int(version["Size"]),
                etag=_etag(version),
            )
            for page in self._version_pages(prefix)
            for version in page.get("Versions", ())
            if version.get("IsLatest")  # a key whose latest is a delete marker is gone
        ]
        return sorted(latest, key=lambda stored: stored.key)

    def delete_prefix(self, prefix: str) -> int:
        """Remove every version and delete marker under the prefix; the number of keys that
        had a version. Each round deletes the first page of what is left: a listing continued
        past versions just deleted is not to be trusted (moto loses its place). A key written
        while this runs may survive it."""
        check_prefix(prefix)
        removed: set[str] = set()
        while True:
            page = self._s3.list_object_versions(
                Bucket=self._bucket, Prefix=prefix, MaxKeys=self._page_size
            )
            versions = page.get("Versions", [])
            doomed = [
                {"Key": entry["Key"], "VersionId": entry["VersionId"]}
                for entry in (*versions, *page.get("DeleteMarkers", ()))
            ]
            if not doomed:
                return len(removed)
            self._delete(prefix, doomed)
            removed.update(version["Key"] for version in versions)
            for version in versions:  # a downloaded copy must not outlive its version
                folder = self._scratch_folder(version["Key"], version["VersionId"])
                shutil.rmtree(folder, ignore_errors=True)

    def _delete(self, prefix: str, doomed: list[dict[str, str]]) -> None:
        # a page may list up to MaxKeys versions and as many delete markers again
        for start in range(0, len(doomed), self._page_size):
            batch = doomed[start : start + self._page_size]
            answer = self._s3.delete_objects(
                Bucket=self._bucket, Delete={"Objects": batch, "Quiet": True}
            )
            if answer.get("Errors"):
                first = answer["Errors"][0]
                raise OSError(
                    f"S3 bucket {self._bucket!r}: {len(answer['Errors'])} versions under "
                    f"{prefix!r} were not deleted (first: {first.get('Key')!r}: "
                    f"{first.get('Code')} {first.get('Message')})"
                )

    def _version_pages(self, prefix: str) -> Iterator[dict[str, Any]]:
        pages = self._s3.get_paginator("list_object_versions")
        yield from pages.paginate(
            Bucket=self._bucket, Prefix=prefix, PaginationConfig={"PageSize": self._page_size}
        )


class _Remainder:
    """The rest of an open file from where it stood, seen as a whole file: botocore measures
    a body from its position but rewinds it to 0 to send it again after a failed try."""

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self._start = raw.tell()

    def read(self, size: int = -1) -> bytes:
        return self._raw.read(size)

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        if whence == os.SEEK_SET:
            offset += self._start
        return self._raw.seek(offset, whence) - self._start

    def tell(self) -> int:
        return self._raw.tell() - self._start


def _etag(answer: dict[str, Any]) -> str:
    return str(answer.get("ETag", "")).strip('"')


def _is_regular_file(folder: Path, target: Path) -> bool:
    """Both ours: the folder a real folder and the file a regular file, neither a link."""
    try:
        return stat.S_ISDIR(os.lstat(folder).st_mode) and stat.S_ISREG(os.lstat(target).st_mode)
    except FileNotFoundError:
        return False


def _make_own_folder(folder: Path) -> None:
    """`folder` as a real folder: a link or a file in its place is removed first, so a download
    never lands where a link points."""
    try:
        found = os.lstat(folder)
    except FileNotFoundError:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        return
    if stat.S_ISDIR(found.st_mode):
        return
    folder.unlink()
    folder.mkdir(mode=0o700)
