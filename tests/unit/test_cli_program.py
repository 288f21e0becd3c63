"""The console script pauses garbage collection while it starts, and only the console script."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def _python(code: str, home: Path) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"WFX_HOME": str(home), "PATH": "/usr/bin:/bin"},
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
