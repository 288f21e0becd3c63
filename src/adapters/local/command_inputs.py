"""How a command step is told its input files: WFX_INPUT_FILES and WFX_INPUT_LIST.

WFX_INPUT_LIST is always set: the path of a file, in the run's folder, holding one input path
per line (UTF-8, each line ending in `\\n`; empty when the step takes no input). It holds any
number of inputs.

WFX_INPUT_FILES is the same paths joined by `os.pathsep` (empty when the step takes no input),
as long as it can carry them faithfully. When it cannot (too long for the environment, or a
path holding the separator), it is set to a sentence saying so and naming WFX_INPUT_LIST,
rather than left empty or cut short: a script that splits it gets one entry that is not a file,
and fails on it saying what to read instead, where an empty or partial value would have let it
succeed on some of its inputs, or none, without a word.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Sequence

# Linux refuses an execve whose any one environment string ("NAME=value") exceeds
# MAX_ARG_STRLEN, 32 pages (128 KiB), with "Argument list too long"; all of argv and the
# environment together must also fit in ARG_MAX (2 MiB by default, 1 MiB on macOS), shared with
# whatever else the user's environment holds. A quarter of the per-string limit leaves room for
# both, and for a command that passes its environment on to children of its own.
MAX_INPUT_FILES_BYTES = 32 * 1024
INPUT_LISTS_FOLDER = "inputs"


class InputListError(ValueError):
    """The inputs cannot be written as one path per line (a path holds a newline)."""


def input_variables(
    input_files: Sequence[str], run_dir: str, pipeline_execution_id: str
) -> dict[str, str]:
    """WFX_INPUT_FILES and WFX_INPUT_LIST for a step; writes the list file (in the run's folder
    `run_dir`) first."""
    return {
        "WFX_INPUT_FILES": _joined(input_files),
        "WFX_INPUT_LIST": _write_list(input_files, run_dir, pipeline_execution_id),
    }


def _joined(input_files: Sequence[str]) -> str:
    joined = os.pathsep.join(input_files)
    if joined.count(os.pathsep) != max(len(input_files) - 1, 0):
        return (
            # never the separator itself: split, this sentence must stay one entry
            "an input path holds the separator of WFX_INPUT_FILES, "
            "read the paths from WFX_INPUT_LIST"
        )
    if len(os.fsencode(joined)) > MAX_INPUT_FILES_BYTES:
        return (
            f"too many inputs for WFX_INPUT_FILES ({len(input_files)} paths), "
            "read them from WFX_INPUT_LIST"
        )
    return joined


def _write_list(input_files: Sequence[str], run_dir: str, pipeline_execution_id: str) -> str:
    for path in input_files:
        if "\n" in path:
            raise InputListError(f"input file {path!r}: a path with a newline cannot be listed")
    # In the run's own folder, not the output folder: the list is not an output of the step.
    folder = os.path.join(run_dir, INPUT_LISTS_FOLDER)
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, f"{pipeline_execution_id}.txt")
    staging = f"{target}.{secrets.token_hex(4)}.tmp"
    with open(staging, "wb") as listing:
        listing.write(b"".join(os.fsencode(path) + b"\n" for path in input_files))
    # A retried step rewrites its list: a command never sees half of one.
    os.replace(staging, target)
    return target
