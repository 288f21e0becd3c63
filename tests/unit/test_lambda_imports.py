"""A Lambda's cold start imports what its handler needs and nothing else: each handler module is
imported (the HTTP one builds its app too) in a new process on SQLite, and the packages it must
not pull in are looked for in `sys.modules`. Adding one of them back fails here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

# Needed by no Lambda path on SQLite: the CLI, the web viewer, the bearer-token verifiers (API
# Gateway's authorizer has checked the token), SQLAlchemy (tables are created elsewhere), AWS
# clients, YAML documents and the local runner.
NEVER = (
    "typer",
    "click",
    "rich",
    "jinja2",
    "jwt",
    "cryptography",
    "sqlalchemy",
    "boto3",
    "botocore",
    "yaml",
    "entrypoints.cli",
    "entrypoints.http.viewer",
    "adapters.identity.jwks",
    "adapters.local.runner",
)
# A step's callback serves no HTTP; and each handler imports its own use case when first called,
# so that one Lambda function's cold start does not pay for the other handlers' use cases.
NOT_IN_CALLBACKS = (
    "fastapi",
    "starlette",
    "mangum",
    "anyio",
    "entrypoints.http",
    "application.use_cases",
    # the container wires the run-log router by a factory: a callback that ends no run never
    # imports it, nor any port family (only their use cases do)
    "application.run_log_sources",
    "application.ports",
)

# Each route imports its response model and its use case when it is first used: building the app
# imports none of them, so a cold start pays for the one route it answers.
NOT_BEFORE_A_ROUTE_IS_USED = (
    "entrypoints.responses",
    "entrypoints.vams_details",
    "entrypoints.cost_responses",
    "entrypoints.http.group_abort",
    "application.use_cases.launch_execution",
    "application.use_cases.get_execution_details",
    "application.use_cases.abort_execution",
    "application.use_cases.delete_execution",
    "application.use_cases.rerun_execution",
    "application.use_cases.approvals",
    "application.use_cases.summarize_costs",
    "application.use_cases.publish_workflow_version",
    # the ports are a module per family: the port families the list route's path does not use
    "application.ports.migration",
    "application.ports.workflows",
    "application.ports.costs",
    "application.ports.approvals",
    "application.ports.event_bus",
)

PROBE = """
import json, sys
import {module}
{then}
print(json.dumps(sorted(sys.modules)))
"""


def _modules_after(module: str, then: str, home: Path) -> set[str]:
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("WFX_", "AWS_", "VAMS_", "PYTHON"))
    }
    environment |= {"WFX_STORE": "sqlite", "WFX_HOME": str(home), "PYTHONPATH": str(SRC)}
    completed = subprocess.run(
        [sys.executable, "-c", PROBE.format(module=module, then=then)],
        env=environment,
        cwd=home,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return set(json.loads(completed.stdout))


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return [name for name in names if any(m == name or m.startswith(name + ".") for m in modules)]


def test_the_step_function_callbacks_import_no_http_and_nothing_heavy(tmp_path: Path) -> None:
    modules = _modules_after("entrypoints.lambda_handlers", "", tmp_path)

    assert "entrypoints.lambda_handlers" in modules
    assert _loaded(modules, NEVER + NOT_IN_CALLBACKS) == []


def test_the_http_handler_builds_its_app_without_the_viewer_or_token_verifiers(
    tmp_path: Path,
) -> None:
    modules = _modules_after(
        "entrypoints.http.aws_lambda", "entrypoints.http.aws_lambda._build()", tmp_path
    )

    assert {"fastapi", "mangum", "entrypoints.http.app"} <= modules
    assert _loaded(modules, NEVER + NOT_BEFORE_A_ROUTE_IS_USED) == []
