"""The ports of files: asset versions, the object store, a run's local files and logs."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Protocol

if TYPE_CHECKING:
    from domain.assets import AssetFile
    from domain.paging import Page


class AssetCatalog(Protocol):
    """The current version of every asset file (the bodies live in the ObjectStore)."""

    def put_files(self, files: Sequence[AssetFile]) -> None:
        """Each file's row, unless the stored row's `modified_at` is later: of two writers of
        one file (two imports, an import beside a run's outputs) the one whose write of the file
        began last keeps its row, whichever catalog write lands last. (The object store orders
        the two the same unless the two writes of the body overlap: its latest is then the one
        that ended last.)"""
        ...

    def list_files(self, database_id: str, asset_id: str) -> list[AssetFile]:
        """Every file of the asset, by file key; [] for an unknown asset."""
        ...

    def list_files_page(
        self, database_id: str, asset_id: str, limit: int, starting_token: str | None
    ) -> Page[AssetFile]:
        """Up to `limit` (1 to 1000) files of the asset by file key, after those of the page
        that returned `starting_token`; InvalidInputError for a token this list did not issue."""
        ...


@dataclass(frozen=True)
class StoredObject:
    key: str
    version_id: str
    size: int
    etag: str


@dataclass(frozen=True)
class HeadRequest:
    """The first `size` bytes of one version of a key."""

    key: str
    version_id: str
    size: int


class ObjectStore(Protocol):
    """A versioned object store: every write of a key gets a new version id."""

    @property
    def bucket(self) -> str: ...

    def put_file(self, key: str, source: Path | BinaryIO) -> StoredObject:
        """A path that is a symbolic link, or not a regular file, is refused (OSError)."""
        ...

    def put_bytes(self, key: str, body: bytes) -> StoredObject: ...

    def put_stream(self, key: str, chunks: Iterable[bytes]) -> StoredObject:
        """The body of the chunks joined, none of them held past its write: a body made as it
        is stored (a huge run log redacted on the way) is never whole in memory."""
        ...

    def local_path(self, key: str, version_id: str) -> Path:
        """A readable local file holding that version."""
        ...

    def read_bytes(self, key: str, version_id: str | None = None) -> bytes:
        """The body of that version, or of the newest one (FileNotFoundError if none)."""
        ...

    def read_head(self, key: str, version_id: str, size: int) -> bytes:
        """At most the first `size` bytes of that version, never more read (FileNotFoundError
        if it is not stored)."""
        ...

    def read_heads(self, requests: Sequence[HeadRequest]) -> list[bytes | None]:
        """Each request's head as `read_head` reads it, in the order asked (sent at once where
        each is a round trip), never more read; None for a version that is not stored, or whose
        key or version id none could be (a results file's version removed since). Any other
        failure is raised, the first in the order asked, once every read has ended."""
        ...

    def list_latest(self, prefix: str) -> list[StoredObject]:
        """The newest version of every key under the prefix, by key."""
        ...

    def delete_prefix(self, prefix: str) -> int:
        """Remove every version of every key under the (non-empty) prefix; how many keys went.
        Nothing under it is not an error (a delete done twice removes 0 the second time)."""
        ...


class RunFiles(Protocol):
    """What a run leaves on the runner's host outside the stores: its run folder (process
    records, the shared output folder) and its step logs."""

    def remove(self, workflow_execution_id: str) -> None:
        """Remove them all; a run that left none is not an error."""
        ...


class HandlerLocator(Protocol):
    """Finds a python step's handler as the runner will import it, without running its code."""

    def problem(self, handler: str, handler_path: str | None) -> str | None:
        """Why `package.module:function` cannot be imported from sys.path (then `handler_path`,
        a folder), or None when it can."""
        ...


class StepLogTap(Protocol):
    """Sees each step log as a run log is read from it: a reader that wants more of each step
    log than the run log keeps (its tail) takes it in the same pass, not by reading the log
    again, and learns from the same listing which steps wrote none."""

    def __call__(self, pipeline_execution_id: str, pieces: Iterator[str]) -> Iterator[str]:
        """The step log's pieces given on, as they are read."""
        ...

    def listed(self, pipeline_execution_ids: Collection[str]) -> None:
        """The steps whose logs the run log is read from, as its one listing found them: any
        other step of the run had written none then."""
        ...


class LogStore(Protocol):
    """Where run and step logs are written locally and read back."""

    def step_log_path(self, workflow_execution_id: str, pipeline_execution_id: str) -> Path: ...

    def step_log_ids(self, workflow_execution_id: str) -> list[str]:
        """The steps of the run that wrote a log (one listing, whatever the run's length)."""
        ...

    def step_log_pieces(
        self, workflow_execution_id: str, pipeline_execution_id: str
    ) -> Iterator[str]:
        """The step's log a piece at a time (none when it wrote none): a reader of a huge log
        holds a piece."""
        ...

    def run_log_pieces(
        self, workflow_execution_id: str, tap: StepLogTap | None = None
    ) -> Iterator[str]:
        """The run's step logs, oldest first, each under a header naming its step, a piece at a
        time: a run's end that stores it holds a piece. Each step log's pieces pass through
        `tap` (when given) as they are read."""
        ...
