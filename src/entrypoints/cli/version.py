"""The line `wfx --version` prints, read from the installed package's metadata."""

from __future__ import annotations


def version_line() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed = version("wfx")
    except PackageNotFoundError:  # run from a source tree that was never installed
        installed = "unknown (not installed)"
    return f"wfx {installed}\n"
