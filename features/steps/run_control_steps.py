"""Steps of run_control.feature: an abort racing the runner, in the foreground and detached.

The foreground runs are threads of this process on the scenario's own store (DynamoDB in moto
in-process). A detached run is a real worker process (`wfx internal-run-worker`), which reaches
the store the way any wfx process does: the SQLite file, or moto's server over HTTP.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from dependency_injector import providers
from pytest_bdd import parsers, then, when
from tests.home_settings import home_settings
from tests.integration.moto_server import moto_server

from adapters.local.processes_on_host import is_running
from adapters.local.supervisor import RunFolder
from application.use_cases.abort_execution import AbortExecutionCommand, AbortResult
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from domain.assets import AssetRef
from domain.execution import ExecutionDetails, execution_output_prefix
from domain.statuses import ExecutionStatus, StepStatus
from entrypoints.container import Container, build_container, create_all_tables
from entrypoints.settings import Settings
from features.steps.warm_workers import fork_workers_warm
from features.workflows.steps import AFTER_FILE, CHILD_PID_FILE

WORKFLOWS = Path(__file__).resolve().parents[1] / "workflows"
_WAIT_SECONDS = 30.0


@dataclass
class RaceRecord:
    """One run of the race: what the abort returned, the child's pid, what the store says."""

    execution_id: str
    child_pid: int
    aborted: AbortResult
    # a worker process (detached) still running when the abort returned
    worker_left: bool = False
    details: ExecutionDetails | None = None
    output_keys: list[str] = field(default_factory=list)


@dataclass
class Races:
    runs: list[RaceRecord] = field(default_factory=list)
    runner: Container | None = None


@pytest.fixture
def races() -> Races:
    return Races()


@pytest.fixture
def moto_endpoint() -> Iterator[str]:
    # an abort and a worker race on one run's items: each request whole, as DynamoDB makes it
    # (moto's threads otherwise let a step's SUCCEEDED pass the main row's condition that the
    # abort's request, served at the same moment, was setting)
    with moto_server(one_request_at_a_time=True) as endpoint:
        yield endpoint


def _runner_container(
    mode: str,
    container: Container,
    storage: str,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> Container:
    """A container whose runner runs in the foreground (a thread) or detached (a worker)."""
    home, database = container.config.home(), container.config.sqlite_path()
    if mode == "foreground":
        settings = home_settings(Path(home), store=storage, sqlite_path=Path(database))
        runner = build_container(settings, runner_mode="thread")
        if storage == "dynamodb":
            runner.dynamodb_client.override(providers.Object(container.dynamodb_client()))
        return runner
    # the worker reads its settings from the environment it inherits from this process
    monkeypatch.setenv("WFX_HOME", str(home))
    monkeypatch.setenv("WFX_DB", str(database))
    monkeypatch.setenv("WFX_STORE", storage)
    monkeypatch.setenv("WFX_USER", "alice")
    for name, value in (
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", "testing"),
        ("AWS_DEFAULT_REGION", "us-east-1"),
    ):
        monkeypatch.setenv(name, value)
    if storage == "dynamodb":
        monkeypatch.setenv("WFX_DYNAMODB_ENDPOINT", request.getfixturevalue("moto_endpoint"))
    fork_workers_warm(monkeypatch)
    runner = build_container(Settings.from_environment(), runner_mode="detached")
    create_all_tables(runner)
    return runner


def _publish(runner: Container, workflow: str) -> None:
    document = parse_workflow_document(
        yaml.safe_load((WORKFLOWS / "waits_on_child.yaml").read_text())
    )
    version = runner.publish_workflow_version().execute(
        PublishWorkflowVersionCommand(document=document)
    )
    assert f"{version.version.database_id}/{version.version.workflow_id}" == workflow


def _child_of(runner: Container, execution_id: str) -> int:
    marker = Path(runner.config.home()) / "outputs" / CHILD_PID_FILE.format(execution_id)
    deadline = time.monotonic() + _WAIT_SECONDS
    while not marker.exists():
        assert time.monotonic() < deadline, f"{execution_id}: the step never registered a child"
        time.sleep(0.005)
    return int(marker.read_text())


@when(
    parsers.parse('a {mode} run of "{workflow}" is aborted while its step waits, {times:d} times')
)
def _(
    container: Container,
    storage: str,
    races: Races,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    mode: str,
    workflow: str,
    times: int,
) -> None:
    runner = races.runner = _runner_container(mode, container, storage, monkeypatch, request)
    _publish(runner, workflow)
    ref = AssetRef.parse(workflow, "workflow", allow_file=False)
    for _ in range(times):
        launched = runner.launch_execution().execute(
            LaunchExecutionCommand(
                workflow_database_id=ref.database_id,
                workflow_id=ref.asset_id,
                user_id="alice",
            )
        )
        execution_id = launched.execution.workflow_execution_id
        child = _child_of(runner, execution_id)
        aborted = runner.abort_execution().execute(
            AbortExecutionCommand(workflow_execution_id=execution_id)
        )
        record = RunFolder(Path(runner.config.home()) / "runs" / execution_id).runner()
        assert record is not None
        worker_left = record.pid != os.getpid() and record.running()
        assert runner.local_runner().join(execution_id, timeout=_WAIT_SECONDS)
        races.runs.append(RaceRecord(execution_id, child, aborted, worker_left))
    store, objects = runner.execution_store(), runner.object_store()
    for race in races.runs:
        race.details = store.get_details(race.execution_id)
        prefix = execution_output_prefix(race.execution_id)
        race.output_keys = [stored.key[len(prefix) :] for stored in objects.list_latest(prefix)]


@then(parsers.parse('every one of those runs is ABORTED with its step "{name}" ABORTED'))
def _(races: Races, name: str) -> None:
    assert races.runs
    for race in races.runs:
        assert race.details is not None
        assert race.aborted.execution.status is ExecutionStatus.ABORTED, race.execution_id
        assert race.details.execution.status is ExecutionStatus.ABORTED, race.execution_id
        (step,) = [d.step for d in race.details.steps if d.step.pipeline_id == name]
        assert step.status is StepStatus.ABORTED, (race.execution_id, step.status)
        assert {a.status for d in race.details.steps for a in d.attempts} <= {StepStatus.ABORTED}


@then(parsers.parse('in none of them did the step "{name}" start or its output reach the store'))
def _(races: Races, name: str) -> None:
    for race in races.runs:
        assert race.details is not None
        (step,) = [d for d in race.details.steps if d.step.pipeline_id == name]
        assert step.step.start_date is None and step.attempts == (), race.execution_id
        assert AFTER_FILE not in race.output_keys, race.execution_id
        recorded = [f.relative_file_path for d in race.details.steps for f in d.outputs.files]
        assert AFTER_FILE not in recorded, race.execution_id


@then("no child and no runner of those runs is left running")
def _(races: Races) -> None:
    assert races.runner is not None
    runs = Path(races.runner.config.home()) / "runs"
    deadline = time.monotonic() + 5
    for race in races.runs:
        assert not race.worker_left, f"{race.execution_id}: the abort returned before its worker"
        record = RunFolder(runs / race.execution_id).runner()
        assert record is not None
        others = record.pid != os.getpid()
        while is_running(race.child_pid, None) or (others and record.running()):
            assert time.monotonic() < deadline, f"{race.execution_id}: a process is left"
            time.sleep(0.02)
