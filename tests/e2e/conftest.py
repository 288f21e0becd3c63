"""Each e2e test gets `wfx` bound to a fresh home of its own, unless a module shares one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.cli import Wfx


@pytest.fixture
def wfx(tmp_path: Path) -> Wfx:
    return Wfx(tmp_path / "home")
