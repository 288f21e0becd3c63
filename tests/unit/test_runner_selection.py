"""Which orchestrator a launch goes to: WFX_RUNNER, overridden by `--runner`; local by default."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.aws.stepfunctions import StepFunctionsDeployer, StepFunctionsOrchestrator
from adapters.local.runner import LocalRunner
from domain.errors import InvalidInputError
from entrypoints.container import build_container
from entrypoints.settings import Settings


def _settings(tmp_path: Path, **environment: str) -> Settings:
    return Settings.from_environment({"WFX_HOME": str(tmp_path), **environment})


def test_the_local_runner_is_the_default(tmp_path: Path) -> None:
    settings = _settings(tmp_path)

    assert settings.runner == "local"
    assert isinstance(build_container(settings).orchestrator().default, LocalRunner)


def test_wfx_runner_stepfunctions_selects_the_step_functions_orchestrator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    container = build_container(_settings(tmp_path, WFX_RUNNER="stepfunctions"))

    orchestrator = container.orchestrator().default

    assert isinstance(orchestrator, StepFunctionsOrchestrator)
    assert (orchestrator.name, orchestrator.synchronous) == ("stepfunctions", False)
    assert isinstance(container.state_machine_deployer(), StepFunctionsDeployer)
    assert isinstance(container.local_runner(), LocalRunner)  # the worker's, whatever the runner


def test_an_explicit_runner_overrides_the_environment(tmp_path: Path) -> None:
    settings = _settings(tmp_path, WFX_RUNNER="stepfunctions")

    assert isinstance(build_container(settings, runner="local").orchestrator().default, LocalRunner)


def test_an_unknown_runner_is_refused_naming_the_variable(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match=r"WFX_RUNNER: must be one of local, stepfunctions"):
        _settings(tmp_path, WFX_RUNNER="lambda")


_WIRE_EVERYTHING_LOCAL = """
import json, sys
from entrypoints.container import build_container
container = build_container()
container.orchestrator().default
for name in ("launch_execution", "get_execution_details", "list_executions"):
    getattr(container, name)()
heavy = ("boto3", "botocore", "fastapi", "starlette", "werkzeug")
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in heavy)))
"""


def test_the_local_runner_on_sqlite_imports_no_aws_or_web_library(tmp_path: Path) -> None:
    """Nor FastAPI, which dependency_injector's wiring would import only because it is installed
    (~0.3 s of every CLI command's start-up; see entrypoints/dependency_injection.py)."""
    environment = {
        name: value for name, value in os.environ.items() if not name.startswith(("WFX_", "AWS_"))
    }
    completed = subprocess.run(
        [sys.executable, "-c", _WIRE_EVERYTHING_LOCAL],
        env=environment | {"WFX_HOME": str(tmp_path)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )

    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout) == []
