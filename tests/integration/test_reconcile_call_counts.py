"""How many times reads call Step Functions (seed 000 "Status tracking", the 30-second rule).

Executions are launched on Step Functions (moto, in-process: in its default mode an execution
stays RUNNING), on SQLite and on DynamoDB; every Step Functions call is counted with a botocore
`before-call` handler on the client (see notes/moto.md, "Counting AWS requests").
"""

from __future__ import annotations

import copy
import json
import shutil
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from dependency_injector import providers

from application.use_cases.complete_execution import CompleteExecutionCommand
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.list_executions import ListExecutionsQuery
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from conftest import FAKE_AWS_ENVIRONMENT, dynamodb_tables_snapshot, restore_dynamodb_tables
from domain.statuses import ExecutionStatus
from entrypoints.container import Container, build_container, create_all_tables
from tests.home_settings import home_settings

RUNS = 100
WORKFLOW = Path(__file__).resolve().parents[2] / "features" / "workflows" / "generate.yaml"
DEFINITION = {"StartAt": "Wait", "States": {"Wait": {"Type": "Pass", "End": True}}}


class SteppedClock:
    """A clock the test moves: one second per reading, plus whatever the test lets pass."""

    def __init__(self, start: datetime | None = None) -> None:
        self._next = start or datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            moment, self._next = self._next, self._next + timedelta(seconds=1)
            return moment

    def advance(self, delta: timedelta) -> None:
        with self._lock:
            self._next += delta


@dataclass
class Setup:
    container: Container
    clock: SteppedClock
    calls: Counter[str]
    execution_ids: list[str]
    stepfunctions: Any  # the orchestrator's client


@dataclass(frozen=True)
class Launched:
    """What launching the runs on DynamoDB left in moto (its tables, its Step Functions state
    machines with their executions) and the clock's next reading: made once per module."""

    tables: dict[str, Any]
    state_machines: list[Any]
    clock_at: datetime
    execution_ids: list[str]


def _step_functions_backend() -> Any:
    from moto.core.models import DEFAULT_ACCOUNT_ID
    from moto.stepfunctions.models import stepfunctions_backends

    return stepfunctions_backends[DEFAULT_ACCOUNT_ID]["us-east-1"]


def _container(
    request: pytest.FixtureRequest, storage: str, home: Path, clock: SteppedClock
) -> Container:
    settings = home_settings(home / "home", store=storage, sqlite_path=home / "wfx.db")
    container = build_container(settings)
    container.clock.override(providers.Object(clock))
    if storage == "dynamodb":
        client = request.getfixturevalue("_session_dynamodb_client")
        container.dynamodb_client.override(providers.Object(client))
    return container


def _counted_step_functions(container: Container) -> tuple[Counter[str], Any]:
    """The container's orchestrator on Step Functions (moto, in the active mock_aws()): the
    count of its calls by name, and its client."""
    import boto3

    from adapters.aws.stepfunctions import StepFunctionsOrchestrator

    stepfunctions = boto3.client("stepfunctions", region_name="us-east-1")
    calls: Counter[str] = Counter()

    def count(model: Any, **_: Any) -> None:
        calls[model.name] += 1

    stepfunctions.meta.events.register("before-call.*.*", count, unique_id="count-calls")
    container.orchestrator.override(providers.Object(StepFunctionsOrchestrator(stepfunctions)))
    return calls, stepfunctions


def _launched(request: pytest.FixtureRequest, storage: str, home: Path) -> Launched:
    """The runs launched once on `storage` in `home`, and what they left in moto."""
    from moto import mock_aws

    clock = SteppedClock()
    container = _container(request, storage, home, clock)
    with pytest.MonkeyPatch.context() as patch, mock_aws():
        for name, value in FAKE_AWS_ENVIRONMENT.items():
            patch.setenv(name, value)
        _counted_step_functions(container)
        create_all_tables(container)
        ids = _launch_on_step_functions(container, RUNS)
        machines = copy.deepcopy(_step_functions_backend().state_machines)
        tables = dynamodb_tables_snapshot() if storage == "dynamodb" else {}
    if storage == "sqlite":
        container.sqlite_database().close()  # the file whole, its log checkpointed
    return Launched(tables, machines, clock.now(), ids)


@pytest.fixture(scope="module")
def launched_on_dynamodb(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Launched:
    """The runs launched on DynamoDB once (~3 s on moto); each test restores what it made."""
    return _launched(request, "dynamodb", tmp_path_factory.mktemp("launched"))


@pytest.fixture(scope="module")
def launched_on_sqlite(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Launched, Path]:
    """The runs launched on a SQLite file once (~4 s); each test starts from a copy of the
    file (its runs name no path of it) and of moto's Step Functions."""
    home = tmp_path_factory.mktemp("launched-sqlite")
    launched = _launched(request, "sqlite", home)
    assert not (home / "wfx.db-wal").exists()  # closed: every write is in the file
    return launched, home


@pytest.fixture(params=["sqlite", "dynamodb"])
def setup(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Setup]:
    from moto import mock_aws

    storage = str(request.param)
    launched: Launched
    if storage == "sqlite":
        launched, made = request.getfixturevalue("launched_on_sqlite")
        shutil.copyfile(made / "wfx.db", tmp_path / "wfx.db")
    else:
        launched = request.getfixturevalue("launched_on_dynamodb")
        request.getfixturevalue("moto_dynamodb_client")  # the fake credentials, set
    clock = SteppedClock(launched.clock_at)
    container = _container(request, storage, tmp_path, clock)
    with mock_aws():
        calls, stepfunctions = _counted_step_functions(container)
        if storage == "sqlite":
            create_all_tables(container)  # finds them all, as on any made file
        else:
            restore_dynamodb_tables(launched.tables)
        machines = copy.deepcopy(launched.state_machines)
        _step_functions_backend().state_machines[:] = machines
        # without them Step Functions would answer "does not exist", and the counts pass
        running = [e for m in machines for e in m.executions if e.status == "RUNNING"]
        assert len(running) == RUNS
        calls.clear()
        yield Setup(container, clock, calls, launched.execution_ids, stepfunctions)
    if storage == "sqlite":
        container.sqlite_database().close()


def _launch_on_step_functions(container: Container, runs: int) -> list[str]:
    import boto3

    stepfunctions = boto3.client("stepfunctions", region_name="us-east-1")
    document = parse_workflow_document(yaml.safe_load(WORKFLOW.read_text(encoding="utf-8")))
    version = (
        container.publish_workflow_version()
        .execute(PublishWorkflowVersionCommand(document=document))
        .version
    )
    machine = stepfunctions.create_state_machine(
        name="features-generate",
        definition=json.dumps(DEFINITION),
        roleArn="arn:aws:iam::123456789012:role/wfx-tests",
    )
    container.workflow_catalog().record_deployment(
        version.database_id, version.workflow_id, version.version, machine["stateMachineArn"]
    )
    launch = container.launch_execution()
    command = LaunchExecutionCommand(
        workflow_database_id=version.database_id, workflow_id=version.workflow_id, user_id="alice"
    )
    return [launch.execute(command).execution.workflow_execution_id for _ in range(runs)]


def _list_all(container: Container) -> list[Any]:
    page = container.list_executions().execute(ListExecutionsQuery(limit=100))
    assert page.next_token is None
    return list(page.items)


def test_listing_100_finished_executions_asks_step_functions_nothing(setup: Setup) -> None:
    complete = setup.container.complete_execution()
    for execution_id in setup.execution_ids:
        command = CompleteExecutionCommand(
            workflow_execution_id=execution_id, status=ExecutionStatus.SUCCEEDED
        )
        complete.execute(command)
    setup.clock.advance(timedelta(minutes=5))

    listed = _list_all(setup.container)

    assert len(listed) == RUNS
    assert {e.status for e in listed} == {ExecutionStatus.SUCCEEDED}
    assert setup.calls["DescribeExecution"] == 0, dict(setup.calls)


def test_100_running_executions_read_twice_within_30_seconds_ask_at_most_100_times(
    setup: Setup,
) -> None:
    first = _list_all(setup.container)
    setup.clock.advance(timedelta(seconds=10))
    second = _list_all(setup.container)

    assert len(first) == len(second) == RUNS
    assert {e.status for e in second} == {ExecutionStatus.RUNNING}
    assert setup.calls["DescribeExecution"] <= RUNS, dict(setup.calls)
    # the first read checked each once and stamped it; the second trusted every stamp
    assert setup.calls["DescribeExecution"] == RUNS, dict(setup.calls)
    assert all(e.last_sfn_sync_check_date is not None for e in second)
    assert [e.last_sfn_sync_check_date for e in second] == [
        e.last_sfn_sync_check_date for e in first
    ]


def test_a_read_more_than_30_seconds_after_the_last_check_asks_again(setup: Setup) -> None:
    _list_all(setup.container)
    setup.clock.advance(timedelta(seconds=31))
    _list_all(setup.container)

    assert setup.calls["DescribeExecution"] == 2 * RUNS, dict(setup.calls)


def test_a_pages_runs_are_described_at_once_and_each_answer_taken_as_its_own(
    setup: Setup,
) -> None:
    """The first two DescribeExecution calls wait for each other: described one after another,
    the first would wait for ever (10 s, then the barrier breaks and the row is answered as
    stored, unstamped). Three runs stopped in Step Functions' console meanwhile end ABORTED
    (an answer each, taken for its own run); the others stay RUNNING, stamped."""
    stopped = sorted(setup.execution_ids)[:3]
    for execution in _step_functions_backend().state_machines[0].executions:
        if execution.name in stopped:
            setup.stepfunctions.stop_execution(executionArn=execution.execution_arn)
    barrier, calls = threading.Barrier(2, timeout=10), iter(range(RUNS * 2))

    def meet(**_: Any) -> None:
        if next(calls) < 2:
            barrier.wait()

    setup.stepfunctions.meta.events.register("before-call.*.DescribeExecution", meet)
    listed = {e.workflow_execution_id: e for e in _list_all(setup.container)}

    assert setup.calls["DescribeExecution"] == RUNS, dict(setup.calls)
    assert {i for i, e in listed.items() if e.status is ExecutionStatus.ABORTED} == set(stopped)
    running = [e for i, e in listed.items() if i not in stopped]
    assert {e.status for e in running} == {ExecutionStatus.RUNNING}
    assert all(e.last_sfn_sync_check_date is not None for e in running)
