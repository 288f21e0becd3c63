"""What a cold `wfx executions list` imports and builds: only what it needs, so that a later change
cannot quietly bring back the start-up cost (docs/performance.md, "Cold start"). Deterministic:
module names and command names, never a timing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import typer.main

from adapters.local.processes_on_host import HOST
from adapters.local.supervisor import ProcessRecord, RunFolder
from domain.errors import RUNNER_LOST_ERROR
from entrypoints.cli.main import _app_for, app

# Each of these was imported by a cold `wfx executions list` once, and none is needed by it.
NOT_FOR_A_LIST = {
    # optional integrations of dependency_injector (entrypoints/dependency_injection.py)
    "yaml": "Configuration.from_yaml of dependency_injector.providers",
    "pydantic_settings": "Configuration.from_pydantic (installed with the test extras)",
    "fastapi": "dependency_injector.wiring's markers",
    "starlette": "dependency_injector.wiring's markers",
    "werkzeug": "dependency_injector.wiring's markers (installed with moto)",
    "asyncio": "dependency_injector's async providers, which wfx has none of",
    "ssl": "asyncio's event loops",
    # other outside systems
    "sqlalchemy": "only to create SQLite tables",
    "boto3": "AWS clients, built on first use",
    "botocore": "AWS clients, built on first use",
    "casbin": "the authorizer of the HTTP service",
    "jwt": "bearer tokens",
    "jinja2": "the web viewer",
    "uvicorn": "wfx serve",
    # settings only a deployment sets (entrypoints/settings.py checks them when set)
    "domain.registration": "WFX_EVENT_SOURCE_PREFIX other than wfx; registering a log",
    "domain.sub_process_reach": "WFX_SUB_PROCESSES",
    # drawing the table on a terminal: off one it is written as rich would (cli/plain_table.py)
    "rich": "the list's table on a terminal",
    # use cases and services the list never builds (entrypoints/container.py's stand-ins)
    "application.use_cases.launch_execution": "wfx run",
    "application.use_cases.administer_roles": "wfx auth (and its permission templates)",
    "domain.permission_templates": "wfx auth",
    "application.use_cases.get_execution_details": "wfx executions show",
    "application.use_cases.summarize_costs": "wfx costs",
    "application.use_cases.publish_registration": "a registration's event bus",
    "application.use_cases.register_pipeline_execution": "a registration's event bus",
    "application.reporting": "the local runner",
    "domain.constraints": "authorization policies",
    "application.ports.orchestration": "asking an orchestrator about an open run",
    "application.workflow_documents": "checking a workflow document (wfx publish, authorization)",
    "domain.migration": "wfx migrate, and the delete of a migrated run",
    "domain.stage_history": "a sub-execution's stages (wfx executions show --sub-executions)",
    "application.sub_execution_status": "wfx executions show --sub-executions",
    # what only reconciling an open run builds (entrypoints/container.py, _BuiltOnFirstUse)
    "adapters.sqlite.approvals": "closing an open run's overdue gate",
    "adapters.sqlite.cost_ledger": "recording the attempts a lost runner's end closes",
    "adapters.rate_card_file": "recording the attempts a lost runner's end closes",
    "domain.costs": "recording the attempts a lost runner's end closes",
    # the run lifecycle, imported by what moves a run: reconciling an open run, a write
    "domain.run": "deciding an open run's check (ReconcileExecution._check) or any move",
    "domain.run_write": "a run's write (RunWrite), its step lists and approval writes",
    "application.run_writes": "ending a run (a lost runner, an end found out of band)",
    "application.run_log": "fitting the run log of a run that ends",
    "application.sub_process_stops": "stopping the sub-processes of a lost runner's run",
    "application.ports.sub_executions": "the sub-process controllers a lost runner's end stops",
    "adapters.sub_process_dispatch": "the sub-process controllers a lost runner's end stops",
    "application.ports.logs": "the run log's sources, read when a run ends",
    "application.run_log_sources": "the run log's sources, read when a run ends",
}

# What the list builds: ListExecutions and the ReconcileExecution it holds, and the output
# targets its table shows as the list route's document does.
USE_CASES_OF_A_LIST = {
    "application.use_cases.list_executions",
    "application.use_cases.reconcile_execution",
    "application.use_cases.read_output_targets",
}

_IMPORTED_BY_THE_CONSOLE_SCRIPT = """
import atexit, json, sys
path = sys.argv[1]
atexit.register(lambda: open(path, "w").write(json.dumps(sorted(sys.modules))))
sys.argv = ["wfx", "executions", "list", *sys.argv[2:]]
from entrypoints.cli.program import main
main()
"""


def _modules_of_a_cold_list(
    home: Path, *arguments: str, runs: int = 2, lease_seconds: float | None = None
) -> tuple[set[str], str]:
    """The modules a cold `wfx executions list ARGUMENTS` imported, and what it printed."""
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("WFX_", "AWS_"))
        and name not in ("FORCE_COLOR", "TTY_COMPATIBLE", "COLUMNS")  # rich's terminal
    } | {"WFX_HOME": str(home)}
    if lease_seconds is not None:
        environment["WFX_RUNNER_LEASE_SECONDS"] = str(lease_seconds)
    modules = home / "modules.json"
    for _ in range(runs):  # the first one creates the tables (SQLAlchemy); the second is measured
        completed = subprocess.run(
            [sys.executable, "-c", _IMPORTED_BY_THE_CONSOLE_SCRIPT, str(modules), *arguments],
            env=environment,
            cwd=home,
            capture_output=True,
            text=True,
            check=False,
        )
        assert completed.returncode == 0, completed.stderr
    return set(json.loads(modules.read_text(encoding="utf-8"))), completed.stdout


def test_a_cold_list_imports_neither_unused_libraries_nor_other_commands_use_cases(
    tmp_path: Path,
) -> None:
    imported, _ = _modules_of_a_cold_list(tmp_path)

    unneeded = {
        name: why
        for name, why in NOT_FOR_A_LIST.items()
        if name in imported or any(module.startswith(f"{name}.") for module in imported)
    }
    assert unneeded == {}
    use_cases = {module for module in imported if module.startswith("application.use_cases.")}
    assert use_cases == USE_CASES_OF_A_LIST


def _home_with_a_run_nobody_took(home: Path) -> str:
    """A home whose one run was launched and never taken by a runner (its lease 1 s)."""
    from tests.e2e.never_taken import launched_and_never_taken

    execution_id, container = launched_and_never_taken(home, lease_seconds=1.0)
    container.sqlite_database().close()
    return execution_id


def test_a_cold_list_still_ends_a_run_whose_runner_is_lost(tmp_path: Path) -> None:
    """The run lifecycle a list leaves out is imported when a listed run needs its check."""
    execution_id = _home_with_a_run_nobody_took(tmp_path)
    time.sleep(1.2)  # past the 1 s lease, with no runner to renew it

    imported, printed = _modules_of_a_cold_list(tmp_path, "--json", runs=1, lease_seconds=1.0)

    (row,) = json.loads(printed)["Items"]
    assert row["workflowExecutionId"] == execution_id
    assert row["executionStatus"] == "FAILED", row
    assert row["executionError"].startswith(RUNNER_LOST_ERROR), row
    assert {"domain.run", "domain.run_write", "application.run_writes"} <= imported


def test_a_cold_list_ends_a_run_whose_runner_is_gone_at_once_building_no_runner(
    tmp_path: Path,
) -> None:
    """Its lease (30 s) is good, but the runner's record names the lease holder's pid with
    another start time: that process is gone (its pid reused). The list reads the record
    (runner_liveness), not the local runner and the run reporter it would take to build."""
    from tests.e2e.never_taken import launched_and_never_taken

    execution_id, container = launched_and_never_taken(tmp_path, lease_seconds=30.0)
    container.sqlite_database().close()
    gone = ProcessRecord(host=HOST, pid=os.getpid(), start_time=1, mode="thread")
    RunFolder(tmp_path / "runs" / execution_id).write_runner(gone)

    imported, printed = _modules_of_a_cold_list(tmp_path, "--json", runs=1, lease_seconds=30.0)

    (row,) = json.loads(printed)["Items"]
    assert row["executionStatus"] == "FAILED", row
    cause = f"the local runner (wfx in the foreground, pid {os.getpid()}) ended before the run did"
    assert row["executionError"] == f"{RUNNER_LOST_ERROR}: {cause}", row
    assert "adapters.local.runner_liveness" in imported
    assert not {"adapters.local.runner", "application.reporting"} & imported


def test_a_cold_list_writes_its_table_off_a_terminal_without_rich(tmp_path: Path) -> None:
    execution_id = _home_with_a_run_nobody_took(tmp_path)

    imported, printed = _modules_of_a_cold_list(tmp_path, runs=1)

    header, row = printed.splitlines()
    assert header.split()[:3] == ["EXECUTION", "ID", "WORKFLOW"] and execution_id in row
    assert not {module for module in imported if module.split(".")[0] == "rich"}


def _command_paths(command: Any, path: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    paths = {path}
    for name, sub in getattr(command, "commands", {}).items():
        paths |= _command_paths(sub, (*path, name))
    return paths


def test_the_console_script_builds_only_the_command_it_runs() -> None:
    pruned = typer.main.get_command(_app_for(["executions", "list", "--limit", "5"]))

    assert _command_paths(pruned) == {(), ("executions",), ("executions", "list")}


def test_a_group_asked_for_its_help_is_built_whole() -> None:
    whole = _command_paths(typer.main.get_command(app))
    pruned = _command_paths(typer.main.get_command(_app_for(["executions", "--help"])))

    assert pruned == {(), *(path for path in whole if path[:1] == ("executions",))}


def test_no_command_an_option_first_or_an_unknown_name_gets_the_whole_app() -> None:
    for arguments in ([], ["--help"], ["--version"], ["no-such-command"]):
        assert _app_for(arguments) is app
