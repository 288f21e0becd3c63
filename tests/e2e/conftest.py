"""Each e2e test gets `wfx` bound to a fresh home of its own, unless a module shares one.

`piped_lambda_zip`: the Lambda zip of wfx alone, built once a session as `wfx infra package
--no-dependencies -o /dev/stdout > f.zip` builds it (~5 s CPU: pip builds the wheel in an
isolated environment). The test of that command asserts what the build did; the test of the
zip's contents and handler imports reads the zip (each unpacks it into a folder of its own).
Building to a file, outside the project, leaving nothing of an earlier build: those tests build
their own package (tests/e2e/test_cli_infra.py)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.cli import WFX, Wfx

# the tests reading `piped_lambda_zip` run in one xdist worker, which builds it once
LAMBDA_ZIP = pytest.mark.xdist_group("wfx-lambda-zip")


@pytest.fixture
def wfx(tmp_path: Path) -> Wfx:
    return Wfx(tmp_path / "home")


@dataclass(frozen=True)
class PipedBuild:
    """What `wfx infra package --no-dependencies -o /dev/stdout > zip` left: the zip (read it,
    never write it: the session's other tests read it too), the exit code and stderr."""

    zip: Path
    returncode: int
    stderr: bytes


@pytest.fixture(scope="session")
def piped_lambda_zip(tmp_path_factory: pytest.TempPathFactory) -> PipedBuild:
    folder = tmp_path_factory.mktemp("piped-lambda-zip")
    home = folder / "home"
    home.mkdir()
    zipped = folder / "piped.zip"
    with zipped.open("wb") as stdout:
        finished = subprocess.run(
            [*WFX, "infra", "package", "--no-dependencies", "--output", "/dev/stdout"],
            stdout=stdout,
            stderr=subprocess.PIPE,
            env=os.environ | {"WFX_HOME": str(home)},
            cwd=home,
            timeout=120,
            check=False,
        )
    zipped.chmod(0o444)  # a test writing to it fails (but as root: the readers only read it)
    return PipedBuild(zipped, finished.returncode, finished.stderr)
