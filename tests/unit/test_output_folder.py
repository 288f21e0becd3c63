"""OutputFolder on a real filesystem: links never lead a push or a pull out of the folder."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from adapters.local.object_store import FilesystemObjectStore
from adapters.local.output_folder import OutputFolder

PREFIX = "runs/run-1/output/"
SECRET = b"root:secret-hash:0:0\n"
RACE_SECONDS = 1.0


@pytest.fixture
def objects(tmp_path: Path) -> FilesystemObjectStore:
    return FilesystemObjectStore(tmp_path / "objects")


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "report.txt").write_bytes(SECRET)
    return outside / "report.txt"


def _folder(objects: FilesystemObjectStore, tmp_path: Path) -> OutputFolder:
    folder = OutputFolder(objects, str(tmp_path / "output"), PREFIX)
    folder.pull()
    return folder


def _stored_bodies(objects: FilesystemObjectStore) -> list[bytes]:
    return [
        objects.local_path(o.key, v.version_id).read_bytes()
        for o in objects.list_latest(PREFIX)
        for v in objects.versions(o.key)
    ]


def test_a_link_out_is_refused_once_with_a_warning_and_a_link_in_is_recorded_as_its_file(
    objects: FilesystemObjectStore, tmp_path: Path, secret: Path
) -> None:
    folder = _folder(objects, tmp_path)
    out = Path(folder.path)
    (out / "report.txt").write_bytes(b"public")
    (out / "latest.txt").symlink_to("report.txt")
    (out / "secret.txt").symlink_to(secret)
    warnings: list[str] = []

    first = folder.push(warnings.append)
    again = folder.push(warnings.append)

    assert sorted(o.key for o in first) == [f"{PREFIX}latest.txt", f"{PREFIX}report.txt"]
    assert again == []
    assert warnings == [
        f"output secret.txt is a symbolic link to {secret}, outside the output folder; not recorded"
    ]
    assert SECRET not in _stored_bodies(objects)


def test_a_file_swapped_for_a_link_after_it_was_recorded_keeps_its_recorded_version(
    objects: FilesystemObjectStore, tmp_path: Path, secret: Path
) -> None:
    folder = _folder(objects, tmp_path)
    report = Path(folder.path, "report.txt")
    report.write_bytes(b"public")
    folder.push()
    report.unlink()
    report.symlink_to(secret)

    assert folder.push() == []
    assert _stored_bodies(objects) == [b"public"]


@pytest.fixture
def flipping(tmp_path: Path, secret: Path) -> Iterator[Callable[[Path], None]]:
    """Start a thread that keeps swapping a path between a real file or folder and a link out
    (as a process a step left behind could); stopped and joined after the test."""
    stop = threading.Event()
    threads: list[threading.Thread] = []

    def start(output: Path) -> None:
        staging = tmp_path / "staging"
        staging.mkdir(exist_ok=True)

        def flip() -> None:
            while not stop.is_set():
                (staging / "file").write_bytes(b"public")
                os.replace(staging / "file", output / "report.txt")
                os.symlink(secret, staging / "link")
                os.replace(staging / "link", output / "report.txt")
                os.rename(output / "folder", staging / "folder")
                os.symlink(secret.parent, output / "folder")  # holds its own report.txt
                os.unlink(output / "folder")
                os.rename(staging / "folder", output / "folder")

        (output / "folder").mkdir()
        (output / "folder" / "report.txt").write_bytes(b"public")
        threads.append(threading.Thread(target=flip, daemon=True))
        threads[0].start()

    yield start
    stop.set()
    for thread in threads:
        thread.join()


def test_a_link_swapped_in_between_the_scan_and_the_read_is_never_followed(
    objects: FilesystemObjectStore, tmp_path: Path, flipping: Callable[[Path], None]
) -> None:
    folder = _folder(objects, tmp_path)
    flipping(Path(folder.path))

    pushes = 0
    deadline = time.monotonic() + RACE_SECONDS
    while time.monotonic() < deadline:
        folder.push()
        pushes += 1

    assert pushes > 50
    stored = _stored_bodies(objects)
    assert b"public" in stored
    assert SECRET not in stored


def test_a_pull_replaces_links_in_the_way_without_writing_through_them(
    objects: FilesystemObjectStore, tmp_path: Path, secret: Path
) -> None:
    objects.put_bytes(f"{PREFIX}report.txt", b"stored report")
    objects.put_bytes(f"{PREFIX}folder/report.txt", b"stored nested")
    out = tmp_path / "output"
    out.mkdir()
    (out / "report.txt").symlink_to(secret)
    (out / "folder").symlink_to(secret.parent)

    OutputFolder(objects, str(out), PREFIX).pull()

    assert secret.read_bytes() == SECRET
    assert sorted(p.name for p in secret.parent.iterdir()) == ["report.txt"]
    assert not (out / "report.txt").is_symlink() and not (out / "folder").is_symlink()
    assert (out / "report.txt").read_bytes() == b"stored report"
    assert (out / "folder" / "report.txt").read_bytes() == b"stored nested"


def test_a_launched_runs_folder_is_made_as_a_pull_of_its_empty_prefix_makes_it(
    objects: FilesystemObjectStore, tmp_path: Path
) -> None:
    objects.put_bytes("runs/run-2/output/report.txt", b"another run's output")
    pulled, created = tmp_path / "pulled" / "output", tmp_path / "created" / "output"

    OutputFolder(objects, str(pulled), PREFIX).pull()
    fresh = OutputFolder(objects, str(created), PREFIX)
    fresh.create()

    assert list(pulled.iterdir()) == list(created.iterdir()) == []
    (created / "report.txt").write_bytes(b"new")
    assert [o.key for o in fresh.push()] == [f"{PREFIX}report.txt"]
