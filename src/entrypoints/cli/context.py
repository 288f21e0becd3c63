"""What the CLI's commands share: a command's container, its console, a run's whole id from
what was typed, and plain lines on stdout.

Every sub-command module takes these from here, never from cli/main.py (which registers the
commands and so imports each of them). Imports stay inside the functions: a command pays for
the container and rich only when it uses them, which keeps a cold `wfx --help` cheap.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from entrypoints.container import Container

# Into a pipe or a file rich wraps at 80 columns, which cuts execution ids in two: this wide
# a console wraps nothing a command prints.
UNWRAPPED_WIDTH = 1000


def resume_garbage_collection() -> None:
    """End the start-up pause of the console script (entrypoints/cli/program.py); idempotent."""
    if not gc.isenabled():
        gc.freeze()  # what start-up made lives as long as the process: never scan it again
        gc.enable()


def container(runner_mode: str = "inline", runner: str | None = None) -> Container:
    """The container of one command, on the store the environment's Settings name; a SQLite
    file is created, or given the tables an earlier wfx lacked, on the way."""
    from entrypoints.container import (
        add_missing_sqlite_tables,
        build_container,
        create_all_tables,
    )
    from entrypoints.local_storage import check_local_storage
    from entrypoints.settings import Settings, check_runner

    resume_garbage_collection()

    settings = Settings.from_environment()
    check_local_storage(settings)
    if runner is not None:
        check_runner(runner, "--runner")
    fresh_sqlite = settings.store == "sqlite" and not settings.sqlite_path.exists()
    built = build_container(settings, runner_mode=runner_mode, runner=runner)
    if fresh_sqlite:
        create_all_tables(built)  # a first run on a laptop needs no set-up step
    elif settings.store == "sqlite":
        add_missing_sqlite_tables(built)  # nor does a file an earlier wfx made
    return built


def console(stderr: bool = False, width: int | None = None) -> Any:
    """A rich console on stdout (or stderr); off a terminal it wraps nothing, unless COLUMNS
    asks for a width."""
    from entrypoints.cli.terminal import console as terminal_console
    from entrypoints.settings import terminal_columns_set

    built = terminal_console(stderr, highlight=False, width=width)
    if not built.is_terminal and not terminal_columns_set():
        built = terminal_console(stderr, highlight=False, width=UNWRAPPED_WIDTH)
    return built


def echo(text: str) -> None:
    sys.stdout.write(text + "\n")


def is_stdout(path: Path) -> bool:
    """`path` is where stdout goes (/dev/stdout, or the file it was redirected to)."""
    try:
        return os.path.samestat(path.stat(), os.fstat(sys.stdout.fileno()))
    except (OSError, ValueError):  # no stdout, or one with no file under it
        return False


def warn(text: str) -> None:
    print(f"warning: {text}", file=sys.stderr)


def run_id(container: Container, text: str) -> str:
    """A run's whole id from what was typed: the id, `latest`, or its first characters."""
    from application.use_cases.resolve_execution_id import ResolveExecutionIdQuery

    return container.resolve_execution_id().execute(ResolveExecutionIdQuery(text=text))


@contextmanager
def writing(option: str, target: Path) -> Iterator[None]:
    """An OSError met on the file an option names (a folder in its place, a folder on its way
    missing or a file), on a folder on its way, or on a `.partial` file written beside it:
    that option's error, in one line. Any other (the store's, under WFX_HOME) goes on as it is."""
    from domain.errors import InvalidInputError

    try:
        yield
    except OSError as error:
        whole = Path(os.path.abspath(target))
        met = [
            Path(os.path.abspath(name))
            for name in (error.filename, error.filename2)
            if isinstance(name, str | os.PathLike)
        ]
        if not any(
            name == whole
            or name in whole.parents
            or (name.parent == whole.parent and name.name.endswith(".partial"))
            for name in met
        ):
            raise
        raise InvalidInputError(f"{option}: cannot write {target}: {error.strerror}") from None
