"""A step that does nothing: three of them make the trivial workflow the benchmarks time."""

from __future__ import annotations

from collections.abc import Sequence


def noop(
    input_files: Sequence[str], output_dir: str, execution_id: str, pipeline_execution_id: str
) -> None:
    """Do nothing, so a timed run measures only the runner and the records it writes."""
