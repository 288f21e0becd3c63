"""The steps of the failing workflow: one that works, one command that fails, one never reached."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

EXIT_CODE = 3


def prepare(
    input_files: Sequence[str], output_dir: str, execution_id: str, pipeline_execution_id: str
) -> None:
    """Succeed, leaving a file behind, so a test can see the run got this far."""
    Path(output_dir, "prepared.txt").write_text(f"prepared by {pipeline_execution_id}\n")
    print("prepared")


def never(
    input_files: Sequence[str], output_dir: str, execution_id: str, pipeline_execution_id: str
) -> None:
    """Comes after the failing step, so it must never run."""
    Path(output_dir, "never.txt").write_text("the run went on after a failed step\n")


def main() -> int:
    """The failing command: explain on stderr, then exit with code 3."""
    print("checking the input", flush=True)
    print("error: the input is not a mesh", file=sys.stderr)
    print("giving up", file=sys.stderr)
    return EXIT_CODE


if __name__ == "__main__":
    sys.exit(main())
