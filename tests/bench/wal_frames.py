"""The WAL frames a warm 3-step run writes, by b-tree: what the disk is given for each run.

`python -m tests.bench.wal_frames [runs]` (default 40). The bench's container (`runner.py`) runs
30 warm runs; then, for each counted run, a second connection empties the WAL
(`wal_checkpoint(TRUNCATE)`), the run goes, and the WAL is read back: its frames (each a page of
the file and a 24-byte header) and commits, each page named by `dbstat` as the table or index it
belongs to. A run whose checkpoint could not empty the WAL (a reader held it) is left out.
"""

from __future__ import annotations

import collections
import sqlite3
import struct
import sys
import tempfile
from pathlib import Path

from tests.bench.runner import prepare, recorded_run

WAL_HEADER = 32
FRAME_HEADER = 24


def frames_of(wal: bytes) -> list[list[int]]:
    """The pages of each commit in `wal`, up to the first frame of an older generation."""
    page_size = struct.unpack(">I", wal[8:12])[0]
    salt = wal[16:24]
    commits: list[list[int]] = []
    pages: list[int] = []
    offset = WAL_HEADER
    while offset + FRAME_HEADER + page_size <= len(wal):
        page, commit = struct.unpack(">II", wal[offset : offset + 8])
        if wal[offset + 8 : offset + 16] != salt:
            break
        pages.append(page)
        if commit:
            commits.append(pages)
            pages = []
        offset += FRAME_HEADER + page_size
    return commits


def main(runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="wfx-wal-frames-") as folder:
        _report(Path(folder), runs)  # the database and the runs' files go with the folder


def _report(folder: Path, runs: int) -> None:
    container, version = prepare(folder)
    for _ in range(30):
        recorded_run(container, version)
    database = folder / "bench.db"
    side = sqlite3.connect(database)
    commits: list[list[int]] = []
    counted = 0
    for _ in range(runs):
        (busy, *_) = side.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        recorded_run(container, version)
        if busy:
            continue
        commits.extend(frames_of(Path(f"{database}-wal").read_bytes()))
        counted += 1
    names = dict(side.execute("SELECT pageno, name FROM dbstat"))
    by_tree = collections.Counter(names.get(page, "?") for pages in commits for page in pages)
    frames, made = sum(by_tree.values()) / counted, len(commits) / counted
    print(f"{counted} runs: {frames:.1f} frames, {made:.1f} commits a run")
    for tree, count in by_tree.most_common():
        print(f"{count / counted:6.2f}  {tree}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
