"""`wfx ARGS` run in the test's process through typer's CliRunner, on the app `wfx` itself runs.

`wfx` (entrypoints.cli.main's `main`) hands click only the command the arguments name
(`_app_for`): typer turns each command it is given into a click command, reading its signature
and its annotations, which for the whole app (every command of every group) costs ~0.1 s of
CPU a call, for the one named ~3 ms. A test's in-process call takes the same path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from typer.testing import CliRunner, Result

from entrypoints.cli.main import _app_for


def invoke_wfx(arguments: Sequence[str], env: Mapping[str, str] | None = None) -> Result:
    """`wfx ARGUMENTS`, its environment `env` added to this process's while it runs."""
    return CliRunner().invoke(_app_for(arguments), list(arguments), env=env)
