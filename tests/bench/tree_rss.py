"""Peak memory of a command's whole process tree, as /proc shows it while the command runs.

A Prefect process starts its temporary API server as a child process, so the memory a user pays
for is the tree's, not the first process's. Every INTERVAL seconds the tree under the command is
walked (parent ids from /proc/PID/stat) and the RSS of its live processes summed (pages shared
between them, e.g. the interpreter's, count in each); the peak is the largest sum seen, and the
largest single process seen is reported beside it. Not `ru_maxrss`: on Linux a child's counts
the RSS of the process that forked it (this benchmark's, ~65 MiB) from before its exec, which
would hide a small command. This runs untimed: the sampling costs CPU.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

INTERVAL = 0.01
PAGE = os.sysconf("SC_PAGE_SIZE")
MIB = 1024 * 1024


def _parents() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone since the listing
            continue
        # the command name is in parentheses and may hold spaces: the ppid follows the last ")"
        parent = int(stat[stat.rindex(")") + 2 :].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    return children


def tree(root: int) -> list[int]:
    children = _parents()
    found, pending = [], [root]
    while pending:
        pid = pending.pop()
        found.append(pid)
        pending.extend(children.get(pid, ()))
    return found


def rss_bytes(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def peak(argv: Sequence[str], environment: Mapping[str, str], cwd: Path) -> dict[str, float]:
    """Run `argv` to its end; the peak of the tree's summed RSS and the largest single RSS, MiB."""
    process = subprocess.Popen(
        list(argv),
        env=dict(environment),
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    highest = largest = 0
    while process.poll() is None:
        sizes = [rss_bytes(member) for member in tree(process.pid)]
        highest, largest = max(highest, sum(sizes)), max(largest, *sizes)
        time.sleep(INTERVAL)
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {process.returncode}")
    return {
        "tree_peak_mib": round(highest / MIB, 1),
        "largest_process_mib": round(largest / MIB, 1),
    }
