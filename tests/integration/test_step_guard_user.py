"""The step guard runs its command as the step user (`--as`) by name, found on PATH, wherever
the guard's own Python lives: root's Python under /root (mode 700) is not readable by that
user, so nothing of the guard may import once it has become the user."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from adapters.local.runner import _GUARD

pytestmark = pytest.mark.integration

NOBODY = 65534


def test_a_command_named_without_a_folder_runs_as_the_step_user() -> None:
    if os.geteuid() != 0:
        pytest.skip("switching to another user needs root; CI is root")
    as_nobody = [sys.executable, "-I", "-S", _GUARD, "1", "--as", f"{NOBODY}:{NOBODY}"]
    guard = subprocess.run(
        [*as_nobody, "--", "sh", "-c", "id -u; id -g"],
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    )

    assert "Traceback" not in guard.stderr, guard.stderr
    assert (guard.returncode, guard.stdout) == (0, f"{NOBODY}\n{NOBODY}\n"), guard.stderr
