"""A WFX_HOME on a tmpfs of its own, 4 MiB, that a test fills to the last byte: a full disk, for
real. Mounting needs root; where it cannot be done the test is skipped, saying why.

Each mount gets a folder no earlier test used: pytest keeps only a failed test's `tmp_path`
(`tmp_path_retention_policy=failed`), so the tests of one parametrized function are given the
same `tmp_path` one after another. A mount point used twice would put a new `wfx.db` where a
lazily unmounted one, still open in this process, was."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

SIZE = "4m"


@contextmanager
def small_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh, empty 4 MiB tmpfs, unmounted afterwards (lazily: the test's process may still
    hold its files open)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs for WFX_HOME needs root")
    home = tmp_path_factory.mktemp("small-home", numbered=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", str(home)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield home
    finally:
        subprocess.run(["umount", "-l", str(home)], check=False)


def fill(folder: Path) -> Path:
    """A file in `folder` that takes its file system's space to the last byte."""
    filler = folder / "filler"
    descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        for size in (65536, 4096, 1):
            try:
                while os.write(descriptor, b"\0" * size):
                    pass
            except OSError:
                continue
    finally:
        os.close(descriptor)
    return filler
