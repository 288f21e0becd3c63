"""Fault injection (issue 8): the store refuses or drops a tenth of the calls during 50 runs;
every run ends terminal and nothing is recorded twice. And a run outlives a 5 s outage.

The whole application on each store (a SQLite file, DynamoDB on moto) with the local runner:
the container's execution store is a `FaultyStore` around the real one, so the launches, the
runner's reports and its keeper meet the faults; the checks read the real store directly.

50 runs on SQLite, 20 on DynamoDB: moto answers a call in ~18 ms, and 50 runs (~2,000 calls)
would take 40 s there, against 1.5 s on SQLite. The runner's backoff is cut a hundredfold
(`store_backoff`): the same tries in the same order, without a minute of sleeping. The outage
test runs its clock five times fast: the backoff a fifth of the real one, the outage 1 s for 5 s,
the step ending in the middle of it; the runner's lease (30 s) stays far beyond the outage.
"""

from __future__ import annotations

import random
import re
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable
from enum import Enum
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import BotoCoreError, ClientError, ReadTimeoutError
from dependency_injector import providers

from adapters.local.supervisor import DEFAULT_LEASE_SECONDS
from application.use_cases.get_execution import GetExecutionQuery
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from domain.errors import RUNNER_LOST_ERROR
from domain.execution import ExecutionDetails, StepDetails
from domain.statuses import ExecutionStatus, StepStatus
from entrypoints.container import Container, build_container, create_all_tables
from tests.home_settings import home_settings
from tests.step_documents import python_step as shared_python_step

pytestmark = pytest.mark.integration

THIS_MODULE = __name__  # the python steps below are imported by this name, as any handler is
FAULT_RATE = 0.10
RUNS = {"sqlite": 50, "dynamodb": 20}  # see above
# Seeded: the same calls fail from one run of the test to the next, but for the keeper's calls,
# which fall in by time.
SEEDS = {"sqlite": 8, "dynamodb": 80}
LAUNCH_TRIES = 20  # a launch faulted 20 times in a row at 10% would be a broken seed
STORE_FAILED = "local runner: the store failed: "
# The runner's backoff, a hundredth of the real one: the same tries, a second instead of a minute.
FAST_BACKOFF = 0.01
# A run its runner could not even record FAILED is ended by a read once its lease has run out.
LEASE_SECONDS = 2.0
END_WAIT_SECONDS = 20.0  # the most a read may take to find a run's runner gone and end the run
OUTAGE_SECONDS = 5.0
OUTAGE_CLOCK = 0.2  # the outage test's seconds: a 5 s outage and its backoff, five times fast
# What a runner may print while the store is away: its reports' backoff and its keeper's retry.
RETRY_LINE = re.compile(
    r"wfx: the store failed \(.+\); trying again in [\d.]+ s"
    r"|wfx: run \S+: lease or abort check failed, will retry: .+"
)
# ... and, when the store outlasted every try, the one line that says what it could not write.
UNRECORDED_LINE = re.compile(r"wfx: run (\S+): local runner: .+; not (?:recorded|run)")


class Fault(Enum):
    REFUSED = "refused"  # raised before the real store is called: nothing was written
    DROPPED = "dropped"  # raised after the real store answered: the write happened, unsaid


def transient_error(backend: str, fault: Fault, method: str) -> Exception:
    """What the real backend raises for a passing fault, as the use cases would see it."""
    if backend == "sqlite":
        return sqlite3.OperationalError("database is locked")
    if fault is Fault.DROPPED:  # the request was sent, its answer never came back
        return ReadTimeoutError(endpoint_url="https://dynamodb.us-east-1.amazonaws.com/")
    throttled = {"Code": "ProvisionedThroughputExceededException", "Message": "Rate exceeded"}
    operation = "Query" if method.startswith(("get_", "list_")) else "TransactWriteItems"
    return ClientError({"Error": throttled}, operation)  # type: ignore[typeddict-item]


TRANSIENT_ERRORS = (sqlite3.OperationalError, BotoCoreError, ClientError)


class FaultyStore:
    """An ExecutionStore proxy that refuses or drops a seeded share of calls, half each, and
    refuses every call during an outage. Thread-safe: the runner's keeper calls it too."""

    def __init__(self, store: Any, backend: str, rate: float, seed: int) -> None:
        self._store, self._backend, self._rate = store, backend, rate
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self._down_until = 0.0
        self.calls = 0
        self.faults: Counter[Fault] = Counter()
        self.faulted_methods: Counter[str] = Counter()
        self.outage_refusals = 0
        self._scripted: dict[str, list[Fault]] = {}

    def script(self, method: str, *faults: Fault) -> None:
        """The next calls of `method` fail so, one fault each, whatever the seed says."""
        with self._lock:
            self._scripted.setdefault(method, []).extend(faults)

    def recover(self) -> None:
        """No call fails from now on."""
        with self._lock:
            self._rate, self._down_until = 0.0, 0.0

    def outage(self, seconds: float) -> None:
        """Every call fails from now for `seconds`."""
        with self._lock:
            self._down_until = time.monotonic() + seconds

    def __getattr__(self, name: str) -> Any:
        real = getattr(self._store, name)
        if not callable(real):
            return real

        def call(*args: Any, **kwargs: Any) -> Any:
            fault = self._draw(name)
            if fault is Fault.REFUSED:
                raise transient_error(self._backend, fault, name)
            answer = real(*args, **kwargs)
            if fault is Fault.DROPPED:
                raise transient_error(self._backend, fault, name)
            return answer

        return call

    def _draw(self, name: str) -> Fault | None:
        with self._lock:
            self.calls += 1
            if time.monotonic() < self._down_until:
                self.outage_refusals += 1
                return Fault.REFUSED
            scripted = self._scripted.get(name)
            if scripted:
                return scripted.pop(0)
            if self._random.random() >= self._rate:
                return None
            fault = Fault.REFUSED if self._random.random() < 0.5 else Fault.DROPPED
            self.faults[fault] += 1
            self.faulted_methods[name] += 1
            return fault


# --- the workflow: three fast python steps, each writing one file ------------------------------

started_steps: Counter[str] = Counter()  # pipelineExecutionId -> times its handler was called
outage_step_running = threading.Event()
outage_began = threading.Event()


def _write(name: str, output_dir: str, pipeline_execution_id: str) -> None:
    started_steps[pipeline_execution_id] += 1
    Path(output_dir, f"{name}.txt").write_text(f"{name} by {pipeline_execution_id}\n")


def extract(*, output_dir: str, pipeline_execution_id: str, **_: Any) -> None:
    _write("extract", output_dir, pipeline_execution_id)


def transform(*, output_dir: str, pipeline_execution_id: str, **_: Any) -> None:
    _write("transform", output_dir, pipeline_execution_id)


def load(*, output_dir: str, pipeline_execution_id: str, **_: Any) -> None:
    _write("load", output_dir, pipeline_execution_id)


def wait_for_the_outage(*, output_dir: str, pipeline_execution_id: str, **_: Any) -> None:
    """Runs while the store goes away, and ends in the middle of the outage."""
    outage_step_running.set()
    assert outage_began.wait(10)
    time.sleep(0.5 * OUTAGE_CLOCK)
    _write("transform", output_dir, pipeline_execution_id)


_step = partial(shared_python_step, THIS_MODULE)  # the steps below, by this module's name


def workflow(workflow_id: str, middle: str) -> dict[str, Any]:
    steps = [_step("extract", "extract"), _step("transform", middle), _step("load", "load")]
    return {"databaseId": "db", "workflowId": workflow_id, "steps": steps}


STEP_FILES = {"extract": "extract.txt", "transform": "transform.txt", "load": "load.txt"}


@pytest.fixture(autouse=True)
def _fresh_handler_state() -> None:
    started_steps.clear()
    outage_step_running.clear()
    outage_began.clear()


@pytest.fixture(params=["sqlite", "dynamodb"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def build(
    backend: str, home: Path, request: pytest.FixtureRequest, mode: str, lease_seconds: float
) -> Container:
    settings = home_settings(home, store=backend, lease_seconds=lease_seconds)
    container = build_container(settings, runner_mode=mode)
    if backend == "dynamodb":
        # every table there and empty (the session's, copied): create_all_tables makes none
        client = request.getfixturevalue("moto_dynamodb_tables")
        container.dynamodb_client.override(providers.Object(client))
    create_all_tables(container)
    return container


@pytest.fixture
def make_container(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Callable[..., Container]:
    """The whole application on `backend`, its runner in the mode given, tables created."""

    def make(mode: str, lease_seconds: float = DEFAULT_LEASE_SECONDS) -> Container:
        return build(backend, tmp_path, request, mode, lease_seconds)

    return make


def with_faults(
    container: Container, backend: str, seed: int, rate: float = FAULT_RATE
) -> tuple[Any, FaultyStore]:
    """The real store, and the faulty one every use case and the runner now get. Published and
    created before: nothing built from the store may exist yet."""
    real = container.execution_store()
    faulty = FaultyStore(real, backend, rate, seed)
    container.execution_store.override(providers.Object(faulty))
    return real, faulty


def publish(container: Container, document: dict[str, Any]) -> None:
    command = PublishWorkflowVersionCommand(document=parse_workflow_document(document))
    container.publish_workflow_version().execute(command)


def launch(container: Container, workflow_id: str, token: str) -> str:
    """Launch with a client token, again with the same token while the store fails it."""
    command = LaunchExecutionCommand(
        workflow_database_id="db", workflow_id=workflow_id, user_id="alice", client_token=token
    )
    for _ in range(LAUNCH_TRIES):
        try:
            return container.launch_execution().execute(command).execution.workflow_execution_id
        except TRANSIENT_ERRORS:
            continue
    raise AssertionError(f"launch {token}: the store failed {LAUNCH_TRIES} times in a row")


# --- what every run must look like -------------------------------------------------------------


def check_run(details: ExecutionDetails, objects: Any, unrecorded: bool = False) -> None:
    """Terminal, every step settled with one attempt per real start, each output once.
    `unrecorded`: the runner said it could not record the run's end (the store never let it)."""
    execution = details.execution
    where = execution.workflow_execution_id
    # the whole row and steps: a run left open names its orchestrator, lease and dates
    steps = [entry.step for entry in details.steps]
    assert execution.is_terminal, f"{where}: left {execution.status.value}: {execution!r} {steps!r}"
    assert execution.runner_lease is None, f"{where}: a lease left on a terminal row"
    error = execution.execution_error or ""
    succeeded = execution.status is ExecutionStatus.SUCCEEDED
    if not succeeded:
        # the store outlasted the runner's retries: it said so, or (when even that could not be
        # written) a read found its runner gone
        assert execution.status is ExecutionStatus.FAILED, f"{where}: {execution.status}"
        assert error.startswith((STORE_FAILED, RUNNER_LOST_ERROR)), f"{where}: {error}"
    lost = error.startswith(RUNNER_LOST_ERROR)
    # the runner's completion writes the summaries; a read ending a lost run does not
    summaries = not lost and not unrecorded
    for entry in details.steps:
        check_step(where, entry, succeeded, lost, summaries)
    check_outputs(details, objects)


def check_step(
    where: str, entry: StepDetails, succeeded: bool, lost: bool, summaries: bool
) -> None:
    step = entry.step
    name = f"{where} {step.pipeline_id}"
    starts = started_steps[step.pipeline_execution_id]
    attempts = entry.attempts
    if succeeded:
        assert step.status is StepStatus.SUCCEEDED, f"{name}: {step.status}"
    # a failed run stops before its later steps; a lost one is ended with them, FAILED
    if step.status is StepStatus.NEW or (lost and step.is_terminal and not attempts):
        assert not attempts and not starts, f"{name}: never started, yet attempts or a start"
        return
    assert step.is_terminal, f"{name}: left {step.status.value}"
    # One attempt per time the step really ran. On a run the store failed, the last start may
    # have been written with its answer lost every time: an attempt the handler never ran.
    allowed = {starts} if succeeded else {starts, starts + 1}
    assert len(attempts) in allowed, f"{name}: {len(attempts)} attempts, {starts} starts"
    assert [a.attempt for a in attempts] == list(range(1, len(attempts) + 1)), name
    assert not any(a.is_running for a in attempts), f"{name}: an attempt left RUNNING"
    assert attempts[-1].status is step.status, f"{name}: attempt closed {attempts[-1].status}"
    if summaries:
        logs = [log.status for log in entry.outputs.logs if log.log_type == "summary"]
        assert logs == [step.status.value], f"{name}: summaries {logs}"


def check_outputs(details: ExecutionDetails, objects: Any) -> None:
    """Each file the run wrote has one object version and at most one output row and result."""
    where = details.execution.workflow_execution_id
    files = [f for entry in details.steps for f in entry.outputs.files]
    results = [r for entry in details.steps for r in entry.outputs.results]
    paths = sorted(f.relative_file_path for f in files)
    assert len(paths) == len(set(paths)), f"{where}: an output recorded twice: {paths}"
    result_paths = sorted(r.relative_file_path for r in results)
    assert len(result_paths) == len(set(result_paths)), f"{where}: a result recorded twice"
    prefix = details.steps[0].step.output_files_path
    stored = {obj.key[len(prefix) :]: obj.version_id for obj in objects.list_latest(prefix)}
    for output in files:
        assert stored.get(output.relative_file_path) == output.version_id, (where, output)
    if details.execution.status is ExecutionStatus.SUCCEEDED:
        assert paths == sorted(stored) == sorted(STEP_FILES.values()) == result_paths, where


def end_every_run(
    container: Container, real: Any, execution_ids: list[str], unrecorded: set[str]
) -> Counter[str]:
    """Each run's main row read as a user would, then checked on the real store: how many ended
    how. A run whose runner could record nothing is ended by a read once its lease ran out."""
    outcomes: Counter[str] = Counter()
    objects = container.object_store()
    read = container.get_execution()
    for execution_id in execution_ids:
        query = GetExecutionQuery(workflow_execution_id=execution_id)
        # a read that ends a run makes a dozen store calls: on a loaded machine, seconds
        deadline = time.monotonic() + LEASE_SECONDS + END_WAIT_SECONDS
        while not read.execute(query).is_terminal and time.monotonic() < deadline:
            time.sleep(0.1)
        details = real.get_details(execution_id)
        check_run(details, objects, unrecorded=execution_id in unrecorded)
        outcomes[outcome(details)] += 1
    return outcomes


def outcome(details: ExecutionDetails) -> str:
    error = details.execution.execution_error or ""
    if details.execution.status is ExecutionStatus.SUCCEEDED:
        return "SUCCEEDED"
    return "FAILED (the store failed)" if error.startswith(STORE_FAILED) else "FAILED (lost)"


# --- the tests ---------------------------------------------------------------------------------


def test_every_run_ends_and_nothing_is_recorded_twice_when_a_tenth_of_store_calls_fail(
    backend: str, make_container: Callable[..., Container], capsys: pytest.CaptureFixture[str]
) -> None:
    container = make_container("inline", lease_seconds=LEASE_SECONDS)
    container.store_backoff.override(
        providers.Object(lambda seconds: time.sleep(seconds * FAST_BACKOFF))
    )
    publish(container, workflow("etl", middle="transform"))
    real, faulty = with_faults(container, backend, SEEDS[backend])
    began = time.monotonic()

    runs = RUNS[backend]
    execution_ids = [launch(container, "etl", f"fault-run-{n:02d}") for n in range(runs)]

    elapsed = time.monotonic() - began
    calls = faulty.calls
    faulty.recover()
    assert len(set(execution_ids)) == runs
    lines = capsys.readouterr().err.splitlines()
    said = [line for line in lines if not RETRY_LINE.fullmatch(line)]
    assert all(UNRECORDED_LINE.fullmatch(line) for line in said), said  # and no traceback
    unrecorded = {m.group(1) for m in map(UNRECORDED_LINE.fullmatch, said) if m is not None}
    outcomes = end_every_run(container, real, execution_ids, unrecorded)
    refused, dropped = faulty.faults[Fault.REFUSED], faulty.faults[Fault.DROPPED]
    print(
        f"\n{backend}: {runs} runs in {elapsed:.1f} s, {calls} store calls, {refused} refused, "
        f"{dropped} dropped; runs ended {dict(outcomes)}; faults by call "
        f"{dict(faulty.faulted_methods.most_common())}"
    )
    assert refused > 0 and dropped > 0
    # a run the store failed is the exception (a report of it failed 7 tries running), not the rule
    assert outcomes["SUCCEEDED"] >= runs / 2


def test_a_run_outlives_a_five_second_outage_in_the_middle_of_a_step(
    backend: str, make_container: Callable[..., Container], capsys: pytest.CaptureFixture[str]
) -> None:
    container = make_container("thread")
    container.store_backoff.override(
        providers.Object(lambda seconds: time.sleep(seconds * OUTAGE_CLOCK))
    )
    publish(container, workflow("patient", middle="wait_for_the_outage"))
    real, faulty = with_faults(container, backend, seed=0, rate=0.0)  # only the outage fails

    execution_id = launch(container, "patient", "outage-run")
    assert outage_step_running.wait(10)
    faulty.outage(OUTAGE_SECONDS * OUTAGE_CLOCK)
    outage_began.set()
    began = time.monotonic()
    assert container.local_runner().join(execution_id, timeout=30)

    waited = time.monotonic() - began
    details = real.get_details(execution_id)
    check_run(details, container.object_store())
    assert details.execution.status is ExecutionStatus.SUCCEEDED
    assert waited >= OUTAGE_SECONDS * OUTAGE_CLOCK and faulty.outage_refusals > 0
    stderr = capsys.readouterr().err
    assert "Traceback" not in stderr
    lines = stderr.splitlines()
    assert any("trying again" in line for line in lines), stderr
    assert all(RETRY_LINE.fullmatch(line) for line in lines), stderr


def test_a_launch_retried_after_its_answer_was_lost_runs_the_run_it_wrote(
    backend: str, make_container: Callable[..., Container]
) -> None:
    container = make_container("inline")
    publish(container, workflow("etl", middle="transform"))
    real, faulty = with_faults(container, backend, seed=0, rate=0.0)
    faulty.script("commit", Fault.DROPPED)  # the launch's rows are written, the launch raises

    execution_id = launch(container, "etl", "lost-answer")

    details = real.get_details(execution_id)
    check_run(details, container.object_store())
    assert details.execution.status is ExecutionStatus.SUCCEEDED
