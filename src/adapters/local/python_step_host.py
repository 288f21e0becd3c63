"""A python step in a process of its own, for steps run as another OS user (WFX_STEP_USER): in
the runner it would have the service's rights.

Run by the step guard as `python -P python_step_host.py HANDLER [HANDLER_PATH]`, with the command
step's environment: the handler is called as the runner calls it in-process, its inputs read
from WFX_INPUT_LIST. A failure prints the traceback and, last, `Type: message` (what the step's
error then ends with), and exits 1.

Standard library only, and no wfx import: wfx's own files need not be readable by the step user.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import traceback
from typing import Any

NO_REGISTRATION = (
    "register: a python step run as another user cannot register on the local bus (the store "
    "is not the step's)"
)


def _handler(reference: str, handler_path: str) -> Any:
    if handler_path and handler_path not in sys.path:
        sys.path.append(handler_path)  # after sys.path, as the runner does: it shadows nothing
    module_name, _, attribute_path = reference.partition(":")
    target: Any = importlib.import_module(module_name)
    for attribute in attribute_path.split("."):
        target = getattr(target, attribute)
    if not callable(target):
        raise TypeError(f"handler {reference} is not callable")
    return target


def _refuse_registration(*_: object, **__: object) -> None:
    raise RuntimeError(NO_REGISTRATION)


# The step's own process reads its own variables (WFX_INPUT_LIST, WFX_OUTPUT_DIR ...): they are
# the step's inputs, set by the runner for it, and wfx's Settings are no part of this process.
def _inputs() -> list[str]:
    with open(os.environ["WFX_INPUT_LIST"], encoding="utf-8") as listing:
        return [line.rstrip("\n") for line in listing if line.strip()]


def main(argv: list[str]) -> int:
    reference, handler_path = argv[0], (argv[1] if len(argv) > 1 else "")
    try:
        handler = _handler(reference, handler_path)
        arguments: dict[str, Any] = {
            "input_files": _inputs(),
            "output_dir": os.environ["WFX_OUTPUT_DIR"],
            "execution_id": os.environ["WFX_EXECUTION_ID"],
            "pipeline_execution_id": os.environ["WFX_PIPELINE_EXECUTION_ID"],
        }
        try:
            takes_register = "register" in inspect.signature(handler).parameters
        except (TypeError, ValueError):
            takes_register = False
        if takes_register:
            arguments["register"] = _refuse_registration
        handler(**arguments)
    except (Exception, SystemExit) as error:  # a handler calling sys.exit() fails its step
        traceback.print_exc()
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
