"""The embedding example of docs/embedding.md, run as a user would: its own process, a fresh
home, the installed `wfx` package."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "embedding" / "backend.py"


def test_the_documented_example_is_the_one_that_runs() -> None:
    documented = (ROOT / "docs" / "embedding.md").read_text(encoding="utf-8")
    assert EXAMPLE.read_text(encoding="utf-8") in documented


def test_the_example_backend_runs_a_workflow_to_success(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "wfx_examples.embedding.backend", str(tmp_path / "home")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    document, _, rest = done.stdout.partition("\n}\n")
    execution = json.loads(document + "\n}")
    assert execution["executionStatus"] == "SUCCEEDED"
    assert execution["triggeredByUserId"] == "backend"
    assert "allListPartition" not in execution
    assert "3 steps, run SUCCEEDED" in rest
    assert "as expected: execution no-such-run not found" in rest
    assert (tmp_path / "home" / "wfx.db").is_file()
