"""The `wfx` console script: the command line, with the collector paused while it starts.

Importing the CLI, the container and the use cases allocates hundreds of thousands of
long-lived objects (modules, classes, pydantic schemas); the collector's passes over them free
nothing and cost about a tenth of a cold `wfx executions list`. The pause ends, after freezing
what start-up made, as soon as a command has its container (`context.resume_garbage_collection`),
before any step or query runs. Only the program pauses it: importing wfx as a library does not.
"""

from __future__ import annotations

import gc


def main() -> None:
    gc.disable()
    try:
        from entrypoints.cli.main import main as run

        run()
    except KeyboardInterrupt:
        # Ctrl-C that no command took charge of (most often while wfx still loads, before any
        # command began): nothing to say but the exit status a shell expects
        raise SystemExit(130) from None
