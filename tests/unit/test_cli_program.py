"""The console script pauses garbage collection while it starts, and only the console script."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def _python_path() -> dict[str, str]:
    """The tree under test when it is not the one the venv installed (a worktree, a clone)."""
    return {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}


def _python(code: str, home: Path) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"WFX_HOME": str(home), "PATH": "/usr/bin:/bin", **_python_path()},
    )
    return result.stdout.strip()


def test_importing_the_command_line_as_a_library_leaves_the_collector_on(tmp_path: Path) -> None:
    code = "import gc, entrypoints.cli.main, entrypoints.cli.program; print(gc.isenabled())"
    assert _python(code, tmp_path) == "True"


def test_the_console_script_collects_again_once_a_command_has_its_container(
    tmp_path: Path,
) -> None:
    code = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print(gc.isenabled(), gc.get_freeze_count() > 0))\n"
        "sys.argv = ['wfx', 'executions', 'list', '--json']\n"
        "from entrypoints.cli.program import main\n"
        "main()\n"
    )
    assert _python(code, tmp_path).splitlines()[-1] == "True True"


def test_the_detached_workers_command_freezes_its_start_up_too(tmp_path: Path) -> None:
    """`python -m entrypoints.cli.main`, the command a detached worker runs (WORKER_COMMAND),
    starts as the console script does: its start-up frozen once it has its container, so the
    collection at its exit (quick_exit) walks the run's objects, not every module's."""
    from entrypoints.container import WORKER_COMMAND

    assert WORKER_COMMAND[1:3] == ("-m", "entrypoints.cli.main")
    code = (
        "import atexit, gc, runpy, sys\n"
        "atexit.register(lambda: print(gc.isenabled(), gc.get_freeze_count() > 0))\n"
        "sys.argv = ['wfx', 'executions', 'list', '--json']\n"
        "runpy.run_module('entrypoints.cli.main', run_name='__main__', alter_sys=True)\n"
    )
    assert _python(code, tmp_path).splitlines()[-1] == "True True"


def test_wfx_version_prints_the_line_the_command_line_prints_and_loads_no_command(
    tmp_path: Path,
) -> None:
    code = (
        "import sys\n"
        "sys.argv = ['wfx', '--version']\n"
        "from entrypoints.cli.program import main\n"
        "main()\n"
        "print('entrypoints.cli.main' in sys.modules, 'typer' in sys.modules)\n"
    )
    version, loaded = _python(code, tmp_path).splitlines()
    whole = _python(
        "import runpy, sys\n"
        "sys.argv = ['wfx', '--version']\n"
        "runpy.run_module('entrypoints.cli.main', run_name='__main__')\n",
        tmp_path,
    )

    assert version == whole and version.startswith("wfx ")
    assert loaded == "False False"


def test_a_ctrl_c_wrapped_by_python_while_wfx_loads_ends_it_quietly_with_130(
    tmp_path: Path,
) -> None:
    """Python 3.11 wraps a KeyboardInterrupt raised in a class's __set_name__ (pydantic's models
    while wfx loads) in a RuntimeError: the console script treats it as the Ctrl-C it was."""
    code = (
        "import sys, types\n"
        "def interrupted_while_loading():\n"
        "    try:\n"
        "        raise KeyboardInterrupt\n"
        "    except KeyboardInterrupt as interrupt:\n"
        "        raise RuntimeError('Error calling __set_name__') from interrupt\n"
        "loading = types.SimpleNamespace(main=interrupted_while_loading)\n"
        "sys.modules['entrypoints.cli.main'] = loading\n"
        "from entrypoints.cli.program import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as end:\n"
        "    print('exit', end.code)\n"
    )
    assert _python(code, tmp_path) == "exit 130"


def test_an_error_not_raised_by_a_ctrl_c_is_not_taken_for_one() -> None:
    from entrypoints.cli.program import interrupted

    try:
        try:
            raise ValueError("a bad row")
        except ValueError as bad:
            raise RuntimeError("wrapped") from bad
    except RuntimeError as error:
        assert not interrupted(error)
        wrapped = RuntimeError("wrapped Ctrl-C")
        wrapped.__context__ = KeyboardInterrupt()
        assert interrupted(wrapped)
