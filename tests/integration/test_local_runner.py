"""LocalRunner on real parts: a SQLite file, the filesystem object store and log store.

Launch records are built by hand; a reporter records the runner's calls and applies the status
changes the tracking use cases would, so each test sees exactly what the runner did.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import wfx_examples
import yaml

from adapters.local.log_store import FileLogStore
from adapters.local.object_store import FilesystemObjectStore
from adapters.local.runner import LocalRunner
from adapters.sqlite.catalogs import SqliteAssetCatalog, SqliteWorkflowCatalog
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.sqlite.workflow_definitions import SqliteWorkflowDefinitions
from adapters.system import SystemClock
from adapters.tables import TableNames
from application.reporting import UseCaseRunReporter
from application.use_cases.complete_execution import CompleteExecution
from application.use_cases.hand_on_step import HandOnStep
from application.use_cases.retry_step import RetryStep
from application.use_cases.runner_lease import RunnerLease
from application.use_cases.step_tracking import FinishStep, StartStep
from application.workflow_documents import parse_workflow_document
from domain.assets import asset_object_key, asset_root_key
from domain.execution import (
    ExecutionConfiguration,
    ExecutionInput,
    LaunchRecords,
    PipelineExecution,
    StepInputConfiguration,
    WorkflowExecution,
    execution_output_prefix,
    step_auxiliary_prefix,
)
from domain.run import Run
from domain.statuses import ExecutionStatus, StepStatus
from domain.triggers import TriggerType
from domain.workflow import InputFileArity, RetryPolicy, StepDefinition, WorkflowVersion
from tests.contract.builders import a_gate_passage, publish, write_launch
from tests.step_documents import python_step as shared_python_step

EXAMPLES = Path(wfx_examples.__file__).parent
MESHES = sorted((EXAMPLES / "mesh" / "assets").glob("*.obj"))
THIS_MODULE = __name__  # python steps below are imported by this name, as any handler is

pytestmark = pytest.mark.integration


def _now() -> datetime:
    return datetime.now(UTC)


class RecordingReporter(UseCaseRunReporter):
    """The real reporter (the tracking use cases on the test's store); records every call."""

    def __init__(
        self,
        store: SqliteExecutionStore,
        objects: FilesystemObjectStore,
        logs: FileLogStore,
        assets: SqliteAssetCatalog,
        database: SqliteDatabase,
    ) -> None:
        clock = SystemClock()
        finish = FinishStep(store, objects, clock)
        super().__init__(
            start_step=StartStep(store, clock),
            finish_step=finish,
            complete_execution=CompleteExecution(store, objects, assets, logs, clock),
            retry_step=RetryStep(store, clock),
            lease=RunnerLease(store, clock, lease_seconds=30),
            store=store,
            gate=a_gate_passage(database, store),
            hand_on=HandOnStep(store, store, finish, clock),
        )
        self.calls: list[tuple[Any, ...]] = []
        self.threads: set[str] = set()

    def step_started(
        self, workflow_execution_id: str, pipeline_execution_id: str, attempt: int = 1
    ) -> int:
        self.calls.append(("started", pipeline_execution_id))
        self.threads.add(threading.current_thread().name)
        return super().step_started(workflow_execution_id, pipeline_execution_id, attempt)

    def step_retrying(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        error: str | None,
        attempt: int,
    ) -> int:
        self.calls.append(("retrying", pipeline_execution_id, error))
        return super().step_retrying(workflow_execution_id, pipeline_execution_id, error, attempt)

    def step_finished(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        status: StepStatus,
        error: str | None,
        attempt: int,
    ) -> StepStatus:
        self.calls.append(("finished", pipeline_execution_id, status, error))
        return super().step_finished(
            workflow_execution_id, pipeline_execution_id, status, error, attempt
        )

    def step_handed_on(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        attempt: int,
        next_pipeline_execution_id: str,
        outputs_stored: bool = True,
    ) -> tuple[StepStatus, int | None]:
        # one write, recorded as the two moves it is
        self.calls.append(("finished", pipeline_execution_id, StepStatus.SUCCEEDED, None))
        self.calls.append(("started", next_pipeline_execution_id))
        return super().step_handed_on(
            workflow_execution_id,
            pipeline_execution_id,
            attempt,
            next_pipeline_execution_id,
            outputs_stored,
        )

    def execution_completed(
        self, workflow_execution_id: str, status: ExecutionStatus, error: str | None = None
    ) -> ExecutionStatus:
        self.calls.append(("completed", status, error))
        return super().execution_completed(workflow_execution_id, status, error)

    def last_step_finished(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        attempt: int,
        known: Run | None = None,
        outputs_stored: bool = True,
        status: StepStatus = StepStatus.SUCCEEDED,
        error: str | None = None,
        main_row_moved: bool = False,
    ) -> tuple[StepStatus, ExecutionStatus]:
        # one write, recorded as the two moves it is: the run ends as its step was recorded
        recorded, ended = super().last_step_finished(
            workflow_execution_id,
            pipeline_execution_id,
            attempt,
            known,
            outputs_stored,
            status,
            error,
            main_row_moved,
        )
        self.calls.append(("finished", pipeline_execution_id, status, error))
        self.calls.append(("completed", ExecutionStatus(recorded), error))
        return recorded, ended

    def take_lease_and_start(
        self,
        workflow_execution_id: str,
        owner: str,
        known: WorkflowExecution,
        first_pipeline_execution_id: str,
    ) -> tuple[WorkflowExecution | None, int | None]:
        leased, attempt = super().take_lease_and_start(
            workflow_execution_id, owner, known, first_pipeline_execution_id
        )
        if attempt is not None:  # one write, the lease and the first start: recorded as a start
            self.calls.append(("started", first_pipeline_execution_id))
            self.threads.add(threading.current_thread().name)
        return leased, attempt

    def started_at_launch(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        attempt: int,
        at: datetime | None,
    ) -> None:
        # the launch's write started it: recorded as a start
        self.calls.append(("started", pipeline_execution_id))
        self.threads.add(threading.current_thread().name)
        super().started_at_launch(workflow_execution_id, pipeline_execution_id, attempt, at)

    def step_calls(self) -> list[tuple[Any, ...]]:
        return [call for call in self.calls if call[0] != "completed"]

    def completion(self) -> tuple[Any, ...]:
        (completed,) = [call for call in self.calls if call[0] == "completed"]
        return completed


@dataclass
class Harness:
    """The runner's real collaborators over one temporary folder."""

    root: Path
    store: SqliteExecutionStore
    catalog: SqliteWorkflowCatalog
    definitions: SqliteWorkflowDefinitions
    objects: FilesystemObjectStore
    logs: FileLogStore
    reporter: RecordingReporter
    runners: list[LocalRunner] = field(default_factory=list)

    def runner(self, mode: str = "inline", work_dir: Path | None = None, **kw: Any) -> LocalRunner:
        runner = LocalRunner(
            self.store,
            self.catalog,
            self.objects,
            self.logs,
            self.reporter,
            work_dir=work_dir or self.root / "work",
            mode=mode,
            **kw,
        )
        self.runners.append(runner)
        return runner

    def publish(self, document: dict[str, Any]) -> WorkflowVersion:
        parsed = parse_workflow_document(document)
        steps = tuple(
            StepDefinition(
                pipeline_id=step.pipeline_id,
                pipeline_database_id=step.pipeline_database_id or parsed.database_id,
                execution_type=step.execution_type,
                handler=step.handler,
                command=tuple(step.command) if step.command else None,
                input_file_arity=step.input_file_arity,
                retry=RetryPolicy.model_validate(step.retry.model_dump()) if step.retry else None,
            )
            for step in parsed.steps
        )
        latest = self.catalog.latest_version(parsed.database_id, parsed.workflow_id)
        version = WorkflowVersion(
            database_id=parsed.database_id,
            workflow_id=parsed.workflow_id,
            version=latest.version + 1 if latest else 1,
            description=parsed.description,
            steps=steps,
            published_at=_now(),
            digest="test",
        )
        publish(self.definitions, version)
        return version

    def upload_asset(
        self, asset_id: str, source: Path, file_key: str | None = None
    ) -> ExecutionInput:
        key = file_key or source.name
        stored = self.objects.put_file(asset_object_key("demo", asset_id, key), source)
        return ExecutionInput(
            workflow_execution_id="set-at-launch",
            workflow_key="set-at-launch",
            database_id="demo",
            asset_id=asset_id,
            input_asset_file_key=key,
            bucket=self.objects.bucket,
            asset_root_key=asset_root_key("demo", asset_id),
            version_id=stored.version_id,
            execution_start_date=_now(),
        )

    def launch(
        self,
        execution_id: str,
        version: WorkflowVersion,
        inputs: Sequence[ExecutionInput] = (),
        statuses: dict[int, StepStatus] | None = None,
    ) -> list[str]:
        """Write the run's records as LaunchExecution would; the step ids, in chain order."""
        start = _now()
        workflow_key = version.workflow_key
        inputs = [
            row.model_copy(
                update={
                    "workflow_execution_id": execution_id,
                    "workflow_key": workflow_key,
                    "execution_start_date": start,
                }
            )
            for row in inputs
        ]
        labels = tuple(f"{r.database_id}/{r.asset_id}/{r.input_asset_file_key}" for r in inputs)
        # ids that sort against the chain, so storage order never passes for chain order
        step_ids = [
            f"{execution_id}-{chr(ord('z') - index)}" for index in range(len(version.steps))
        ]
        steps, configurations = [], []
        for index, definition in enumerate(version.steps):
            step_id = step_ids[index]
            prefix = execution_output_prefix(execution_id)
            steps.append(
                PipelineExecution(
                    pipeline_execution_id=step_id,
                    workflow_execution_id=execution_id,
                    pipeline_database_id=definition.pipeline_database_id,
                    pipeline_id=definition.pipeline_id,
                    step_index=index,
                    status=(statuses or {}).get(index, StepStatus.NEW),
                    execution_type=definition.execution_type,
                    input_file_arity=definition.input_file_arity,
                    from_pipeline_execution_id=step_ids[index - 1] if index else None,
                    end_state=index == len(version.steps) - 1,
                    input_path="",
                    output_files_path=prefix,
                    output_preview_path=f"{prefix}preview/",
                    output_metadata_path=f"{prefix}metadata/",
                    auxiliary_path=step_auxiliary_prefix(execution_id, step_id),
                )
            )
            arity = definition.input_file_arity
            configurations.append(
                StepInputConfiguration(
                    pipeline_execution_id=step_id,
                    workflow_execution_id=execution_id,
                    execution_type=definition.execution_type,
                    handler=definition.handler,
                    command=definition.command,
                    input_file_arity=arity,
                    input_files=() if arity is InputFileArity.NONE else labels,
                )
            )
        execution = WorkflowExecution(
            workflow_execution_id=execution_id,
            workflow_database_id=version.database_id,
            workflow_id=version.workflow_id,
            workflow_version=version.version,
            status=ExecutionStatus.RUNNING,
            execution_start_date=start,
            triggered_by_user_id="tester",
            trigger_type=TriggerType.MANUAL,
        )
        write_launch(
            self.store,
            LaunchRecords(
                execution=execution,
                inputs=tuple(inputs),
                configuration=ExecutionConfiguration(
                    workflow_execution_id=execution_id,
                    workflow_key=workflow_key,
                    workflow_version=version.version,
                    execution_start_date=start,
                ),
                steps=tuple(steps),
                step_configurations=tuple(configurations),
            ),
        )
        return step_ids

    def status_of(self, execution_id: str) -> ExecutionStatus:
        return self.store.get_execution(execution_id).status

    def step(self, step_id: str) -> PipelineExecution:
        return self.store.get_step(step_id)


def build_harness(root: Path) -> tuple[Harness, SqliteDatabase]:
    """The runner's real collaborators over `root`, and the database to close after."""
    database = SqliteDatabase(root / "wfx.db")
    store = SqliteExecutionStore(database, TableNames())
    catalog = SqliteWorkflowCatalog(database, TableNames())
    store.create_tables()
    catalog.create_tables()
    objects, logs = FilesystemObjectStore(root / "objects"), FileLogStore(root / "logs")
    assets = SqliteAssetCatalog(database, TableNames())
    harness = Harness(
        root=root,
        store=store,
        catalog=catalog,
        definitions=SqliteWorkflowDefinitions(database, TableNames()),
        objects=objects,
        logs=logs,
        reporter=RecordingReporter(store, objects, logs, assets, database),
    )
    return harness, database


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    built, database = build_harness(tmp_path)
    yield built
    for runner in built.runners:
        for execution_id in list(runner._threads) + list(runner._processes):
            runner.join(execution_id, timeout=60)
    database.close()


def example(name: str) -> dict[str, Any]:
    loaded = yaml.safe_load((EXAMPLES / name / "workflow.yaml").read_text())
    assert isinstance(loaded, dict)
    return loaded


def workflow(workflow_id: str, *steps: dict[str, Any]) -> dict[str, Any]:
    return {"databaseId": "demo", "workflowId": workflow_id, "steps": list(steps)}


python_step = partial(shared_python_step, THIS_MODULE)  # the steps below, by this module's name


def command_step(pipeline_id: str, script: str, arity: str = "none") -> dict[str, Any]:
    return {
        "pipelineId": pipeline_id,
        "executionType": "command",
        "command": ["{python}", "-c", textwrap.dedent(script)],
        "inputFileArity": arity,
    }


# --- python steps used by the tests (the runner imports them by THIS_MODULE) -----------------

handler_calls: list[dict[str, Any]] = []
step_has_printed = threading.Event()
main_thread_has_printed = threading.Event()


def record_call(**arguments: Any) -> None:
    handler_calls.append(arguments)


def explode(**_: Any) -> None:
    print("about to explode")
    raise RuntimeError("boom")


def fail_the_first_time(**_: Any) -> None:
    handler_calls.append({"flaky": True})
    if len(handler_calls) == 1:
        raise RuntimeError("first time unlucky")


def press_ctrl_c(**_: Any) -> None:
    raise KeyboardInterrupt


def talk_while_the_main_thread_prints(**_: Any) -> None:
    print("step: first line")
    step_has_printed.set()
    assert main_thread_has_printed.wait(10)
    print("step: second line", file=sys.stderr)


def call_register(register: Callable[..., Any], **_: Any) -> None:
    handler_calls.append({"outcome": register(logs=[{"logGroupName": "/g"}])})


@pytest.fixture(autouse=True)
def _fresh_handler_state() -> None:
    handler_calls.clear()
    step_has_printed.clear()
    main_thread_has_printed.clear()


# --- order, inputs, environment --------------------------------------------------------------


def test_steps_run_in_chain_order_and_the_run_succeeds(harness: Harness) -> None:
    version = harness.publish(example("trivial"))
    step_ids = harness.launch("exec-order", version)

    harness.runner().start("exec-order")

    assert harness.reporter.calls == [
        ("started", step_ids[0]),
        ("finished", step_ids[0], StepStatus.SUCCEEDED, None),
        ("started", step_ids[1]),
        ("finished", step_ids[1], StepStatus.SUCCEEDED, None),
        ("started", step_ids[2]),
        ("finished", step_ids[2], StepStatus.SUCCEEDED, None),
        ("completed", ExecutionStatus.SUCCEEDED, None),
    ]
    assert harness.status_of("exec-order") is ExecutionStatus.SUCCEEDED


def test_a_python_step_gets_its_inputs_output_folder_and_ids(harness: Harness) -> None:
    rows = [harness.upload_asset("meshes", path) for path in MESHES]
    version = harness.publish(workflow("calls", python_step("record", "record_call", "many")))
    (step_id,) = harness.launch("exec-calls", version, rows)
    runner = harness.runner()

    runner.start("exec-calls")

    (call,) = handler_calls
    assert [Path(p).name for p in call["input_files"]] == [p.name for p in MESHES]
    assert [Path(p).read_bytes() for p in call["input_files"]] == [p.read_bytes() for p in MESHES]
    assert call["output_dir"] == str(runner.output_dir("exec-calls"))
    assert (call["execution_id"], call["pipeline_execution_id"]) == ("exec-calls", step_id)


def test_a_step_reads_the_input_version_the_run_pinned(harness: Harness, tmp_path: Path) -> None:
    source = tmp_path / "mesh.obj"
    source.write_text("v 0 0 0\n")
    pinned = harness.upload_asset("a1", source)
    source.write_text("v 9 9 9\n")
    harness.upload_asset("a1", source)  # a newer version, uploaded after the launch chose
    version = harness.publish(workflow("pinned", python_step("record", "record_call", "one")))
    harness.launch("exec-pinned", version, [pinned])

    harness.runner().start("exec-pinned")

    (call,) = handler_calls
    assert [Path(p).read_text() for p in call["input_files"]] == ["v 0 0 0\n"]


def test_a_step_with_arity_none_gets_no_input_files(harness: Harness) -> None:
    rows = [harness.upload_asset("meshes", MESHES[0])]
    version = harness.publish(
        workflow(
            "arity",
            python_step("with-inputs", "record_call", "one"),
            python_step("without-inputs", "record_call", "none"),
        )
    )
    harness.launch("exec-arity", version, rows)

    harness.runner().start("exec-arity")

    assert [len(call["input_files"]) for call in handler_calls] == [1, 0]


def test_a_command_step_gets_its_inputs_and_ids_in_the_environment(harness: Harness) -> None:
    rows = [harness.upload_asset("meshes", path) for path in MESHES[:2]]
    dump_environment = """
        import json, os
        names = [n for n in os.environ if n.startswith("WFX_")]
        path = os.path.join(os.environ["WFX_OUTPUT_DIR"], "env.json")
        json.dump({n: os.environ[n] for n in names}, open(path, "w"))
    """
    version = harness.publish(workflow("env", command_step("dump", dump_environment, "many")))
    (step_id,) = harness.launch("exec-env", version, rows)
    runner = harness.runner()

    runner.start("exec-env")

    environment = json.loads((runner.output_dir("exec-env") / "env.json").read_text())
    input_files = environment["WFX_INPUT_FILES"].split(os.pathsep)
    assert [Path(p).name for p in input_files] == [p.name for p in MESHES[:2]]
    assert all(Path(p).is_file() for p in input_files)
    assert environment["WFX_OUTPUT_DIR"] == str(runner.output_dir("exec-env"))
    assert environment["WFX_EXECUTION_ID"] == "exec-env"
    assert environment["WFX_PIPELINE_EXECUTION_ID"] == step_id


def _token_of(execution_id: str, pipeline_execution_id: str) -> str:
    return f"token-of-{execution_id}-{pipeline_execution_id}"


def test_each_step_is_given_its_own_registration_token(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a runner started from inside a step inherits that step's token: its own steps must not
    monkeypatch.setenv("WFX_REGISTRATION_TOKEN", "token-of-the-step-this-runs-in")
    dump_token = """
        import os
        path = os.path.join(os.environ["WFX_OUTPUT_DIR"], "token.txt")
        open(path, "w").write(os.environ["WFX_REGISTRATION_TOKEN"])
    """
    version = harness.publish(
        workflow(
            "tokens",
            python_step("registers", "call_register"),
            command_step("dumps", dump_token),
        )
    )
    python_id, command_id = harness.launch("exec-tokens", version)
    registered: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def registrar(*ids: Any, **entries: Any) -> str:
        registered.append((ids, entries))
        return "accepted"

    runner = harness.runner(registrar=registrar, registration_token=_token_of)

    runner.start("exec-tokens")

    ((ids, entries),) = registered
    assert ids == ("exec-tokens", python_id)
    token = entries.pop("registration_token")
    assert token.get_secret_value() == _token_of("exec-tokens", python_id)
    assert _token_of("exec-tokens", python_id) not in repr(token)
    assert entries == {"logs": [{"logGroupName": "/g"}]}
    assert handler_calls == [{"outcome": "accepted"}]
    given = (runner.output_dir("exec-tokens") / "token.txt").read_text()
    assert given == _token_of("exec-tokens", command_id)


def test_without_credentials_a_command_step_is_given_no_token(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WFX_REGISTRATION_TOKEN", "token-of-the-step-this-runs-in")
    dump_token = """
        import os
        path = os.path.join(os.environ["WFX_OUTPUT_DIR"], "token.txt")
        open(path, "w").write(os.environ.get("WFX_REGISTRATION_TOKEN", "absent"))
    """
    version = harness.publish(workflow("no-tokens", command_step("dumps", dump_token)))
    harness.launch("exec-no-tokens", version)
    runner = harness.runner()

    runner.start("exec-no-tokens")

    assert (runner.output_dir("exec-no-tokens") / "token.txt").read_text() == ""


# --- failures ------------------------------------------------------------------------------


def test_a_failing_command_fails_with_its_exit_code_and_stderr_and_stops_the_run(
    harness: Harness,
) -> None:
    version = harness.publish(example("failing"))
    _, fail, never = harness.launch("exec-fail", version)
    runner = harness.runner()

    runner.start("exec-fail")

    error = "exit code 3: error: the input is not a mesh\ngiving up"
    assert harness.reporter.calls[-3:] == [
        ("started", fail),
        ("finished", fail, StepStatus.FAILED, error),
        ("completed", ExecutionStatus.FAILED, error),
    ]
    assert ("started", never) not in harness.reporter.calls
    assert harness.step(never).status is StepStatus.NEW
    assert not (runner.output_dir("exec-fail") / "never.txt").exists()
    assert harness.status_of("exec-fail") is ExecutionStatus.FAILED
    log = "".join(harness.logs.step_log_pieces("exec-fail", fail))
    assert "checking the input" in log
    assert "error: the input is not a mesh" in log


def test_only_the_tail_of_a_long_stderr_is_kept_in_the_error(harness: Harness) -> None:
    noisy = """
        import sys
        for n in range(500):
            print(f"line {n} " + "x" * 300, file=sys.stderr)
        sys.exit(7)
    """
    version = harness.publish(workflow("noisy", command_step("noisy", noisy)))
    (step_id,) = harness.launch("exec-noisy", version)

    harness.runner().start("exec-noisy")

    error = harness.step(step_id).error
    assert error is not None
    assert error.startswith("exit code 7: ")
    assert len(error) <= len("exit code 7: ") + 2000
    assert "line 499" in error and "line 489" not in error
    assert "line 0 " in "".join(harness.logs.step_log_pieces("exec-noisy", step_id))


def test_a_missing_executable_fails_the_step_naming_it(harness: Harness) -> None:
    missing = {
        "pipelineId": "missing",
        "executionType": "command",
        "command": ["wfx-no-such-program", "--flag"],
        "inputFileArity": "none",
    }
    version = harness.publish(workflow("missing", missing))
    (step_id,) = harness.launch("exec-missing", version)

    harness.runner().start("exec-missing")

    assert harness.step(step_id).error == "executable not found: wfx-no-such-program"
    assert harness.status_of("exec-missing") is ExecutionStatus.FAILED


def test_a_python_step_that_raises_fails_with_the_exception_type_and_message(
    harness: Harness,
) -> None:
    version = harness.publish(workflow("explode", python_step("explode", "explode")))
    (step_id,) = harness.launch("exec-explode", version)

    harness.runner().start("exec-explode")

    assert harness.reporter.completion() == (
        "completed",
        ExecutionStatus.FAILED,
        "RuntimeError: boom",
    )
    log = "".join(harness.logs.step_log_pieces("exec-explode", step_id))
    assert "about to explode" in log
    assert "Traceback" in log and 'raise RuntimeError("boom")' in log


def test_a_handler_that_cannot_be_imported_fails_its_step(harness: Harness) -> None:
    version = harness.publish(
        workflow("unknown", python_step("unknown", "no_such_function_in_this_module"))
    )
    (step_id,) = harness.launch("exec-unknown", version)

    harness.runner().start("exec-unknown")

    assert harness.step(step_id).error == (
        f"AttributeError: module '{THIS_MODULE}' has no attribute 'no_such_function_in_this_module'"
    )


def test_ctrl_c_during_a_step_ends_the_step_and_the_run_then_stops_the_caller(
    harness: Harness,
) -> None:
    version = harness.publish(
        workflow(
            "ctrl-c", python_step("interrupted", "press_ctrl_c"), python_step("next", "record_call")
        )
    )
    interrupted, following = harness.launch("exec-ctrl-c", version)

    with pytest.raises(KeyboardInterrupt):
        harness.runner().start("exec-ctrl-c")

    assert harness.reporter.calls[1:] == [
        ("finished", interrupted, StepStatus.ABORTED, "local runner: interrupted"),
        ("completed", ExecutionStatus.ABORTED, "local runner: interrupted"),
    ]
    assert handler_calls == []
    # as stored: the run and both steps ABORTED (the one never started with them)
    assert harness.status_of("exec-ctrl-c") is ExecutionStatus.ABORTED
    assert [harness.step(s).status for s in (interrupted, following)] == [StepStatus.ABORTED] * 2
    assert harness.step(following).error == "local runner: interrupted"


def test_an_error_in_the_runner_itself_still_ends_the_run_as_failed(harness: Harness) -> None:
    version = harness.publish(example("trivial"))
    harness.launch("exec-broken", version.model_copy(update={"version": 99}))

    harness.runner().start("exec-broken")

    (completed,) = harness.reporter.calls
    assert completed[:2] == ("completed", ExecutionStatus.FAILED)
    assert completed[2].startswith("local runner: WorkflowNotFoundError: ")
    assert "version 99" in completed[2]
    assert harness.status_of("exec-broken") is ExecutionStatus.FAILED


def test_a_step_its_version_does_not_define_fails_naming_the_index(harness: Harness) -> None:
    version = harness.publish(example("trivial"))  # three steps
    launched = version.model_copy(update={"steps": (*version.steps, version.steps[-1])})
    step_ids = harness.launch("exec-extra", launched)  # a fourth step the version lacks

    harness.runner().start("exec-extra")

    missing = f"workflow {version.workflow_key} version {version.version} has no step 3"
    assert harness.reporter.calls[-3:] == [
        ("started", step_ids[3]),
        ("finished", step_ids[3], StepStatus.FAILED, missing),
        ("completed", ExecutionStatus.FAILED, missing),
    ]
    assert [call[0] for call in harness.reporter.calls[:6]] == ["started", "finished"] * 3
    assert harness.status_of("exec-extra") is ExecutionStatus.FAILED


# --- outputs -------------------------------------------------------------------------------


def test_outputs_are_uploaded_only_when_new_or_changed(harness: Harness) -> None:
    write = """
        import os, sys
        out = os.environ["WFX_OUTPUT_DIR"]
        for name, body in [a.split("=", 1) for a in sys.argv[1:]]:
            os.makedirs(os.path.dirname(os.path.join(out, name)), exist_ok=True)
            open(os.path.join(out, name), "w").write(body)
    """

    def step(pipeline_id: str, *files: str) -> dict[str, Any]:
        command = command_step(pipeline_id, write)
        command["command"] = [*command["command"], *files]
        return command

    version = harness.publish(
        workflow(
            "outputs",
            step("first", "report.txt=same", "nested/a.txt=a"),
            step("rewrite", "report.txt=same"),  # the same bytes again: no new version
            step("change", "report.txt=other", "b.txt=b"),
        )
    )
    harness.launch("exec-outputs", version)

    harness.runner().start("exec-outputs")

    prefix = execution_output_prefix("exec-outputs")
    report = harness.objects.versions(f"{prefix}report.txt")
    assert [harness.objects.local_path(v.key, v.version_id).read_text() for v in report] == [
        "same",
        "other",
    ]
    assert len(harness.objects.versions(f"{prefix}nested/a.txt")) == 1
    assert [o.key.removeprefix(prefix) for o in harness.objects.list_latest(prefix)] == [
        "b.txt",
        "nested/a.txt",
        "report.txt",
    ]


def test_a_later_step_reads_what_an_earlier_step_wrote(harness: Harness) -> None:
    rows = [harness.upload_asset("meshes", path) for path in MESHES]
    version = harness.publish(example("mesh"))
    harness.launch("exec-mesh", version, rows)
    runner = harness.runner()

    runner.start("exec-mesh")

    assert harness.status_of("exec-mesh") is ExecutionStatus.SUCCEEDED
    prefix = execution_output_prefix("exec-mesh")
    stored = {o.key.removeprefix(prefix) for o in harness.objects.list_latest(prefix)}
    names = [p.stem for p in MESHES]
    assert stored == {
        "statistics.json",
        "metadata/statistics.json.json",
        *(f"normalized/{n}.obj" for n in names),
        *(f"preview/{n}.svg" for n in names),
    }


def test_a_redrive_skips_succeeded_steps_and_brings_down_their_outputs(
    harness: Harness, tmp_path: Path
) -> None:
    version = harness.publish(example("mesh"))
    rows = [harness.upload_asset("meshes", MESHES[1])]
    done = {0: StepStatus.SUCCEEDED, 1: StepStatus.SUCCEEDED}
    *_, preview = harness.launch("exec-redrive", version, rows, done)
    # what the first two steps uploaded in an earlier process
    prefix = execution_output_prefix("exec-redrive")
    normalized = harness.objects.put_bytes(
        f"{prefix}normalized/icosphere.obj", (MESHES[1]).read_bytes()
    )
    fresh_work_dir = tmp_path / "another-machine"

    harness.runner(work_dir=fresh_work_dir).start("exec-redrive")

    assert [call[1] for call in harness.reporter.step_calls()] == [preview, preview]
    assert harness.reporter.completion() == ("completed", ExecutionStatus.SUCCEEDED, None)
    assert (fresh_work_dir / "outputs" / "exec-redrive" / "preview" / "icosphere.svg").exists()
    assert harness.objects.list_latest(f"{prefix}normalized/") == [normalized]  # not re-uploaded
    assert [o.key for o in harness.objects.list_latest(f"{prefix}preview/")] == [
        f"{prefix}preview/icosphere.svg"
    ]


def test_a_redrive_replaces_a_stale_local_output_with_the_stored_version(
    harness: Harness,
) -> None:
    version = harness.publish(example("mesh"))
    rows = [harness.upload_asset("meshes", MESHES[1])]
    done = {0: StepStatus.SUCCEEDED, 1: StepStatus.SUCCEEDED}
    harness.launch("exec-stale", version, rows, done)
    prefix = execution_output_prefix("exec-stale")
    stored = harness.objects.put_bytes(f"{prefix}normalized/icosphere.obj", MESHES[1].read_bytes())
    runner = harness.runner()
    stale = runner.output_dir("exec-stale") / "normalized" / "icosphere.obj"
    stale.parent.mkdir(parents=True)
    stale.write_text("v 0 0 0\n")  # left by an older attempt on this machine

    runner.start("exec-stale")

    assert harness.status_of("exec-stale") is ExecutionStatus.SUCCEEDED
    assert stale.read_bytes() == MESHES[1].read_bytes()
    assert harness.objects.versions(stored.key) == [stored]


def test_a_run_already_finished_is_not_run_again(harness: Harness) -> None:
    version = harness.publish(example("trivial"))
    harness.launch("exec-twice", version)
    runner = harness.runner()
    runner.start("exec-twice")
    first = list(harness.reporter.calls)

    runner.start("exec-twice")

    assert harness.reporter.calls == first


# --- modes and logs ------------------------------------------------------------------------


def test_thread_mode_runs_in_the_background_and_join_waits_for_the_end(harness: Harness) -> None:
    version = harness.publish(example("trivial"))
    harness.launch("exec-thread", version)
    runner = harness.runner(mode="thread")

    runner.start("exec-thread")

    assert runner.join("exec-thread", timeout=30)
    assert harness.status_of("exec-thread") is ExecutionStatus.SUCCEEDED
    assert harness.reporter.threads == {"wfx-run-exec-thread"}
    assert runner.join("exec-thread")  # joining a finished run again is fine


def test_python_step_output_goes_to_its_log_while_other_threads_print_to_the_terminal(
    harness: Harness, capsys: pytest.CaptureFixture[str]
) -> None:
    version = harness.publish(
        workflow("talk", python_step("talk", "talk_while_the_main_thread_prints"))
    )
    (step_id,) = harness.launch("exec-talk", version)
    runner = harness.runner(mode="thread")
    stdout_before = sys.stdout

    runner.start("exec-talk")
    assert step_has_printed.wait(10)
    print("main: progress")
    main_thread_has_printed.set()
    assert runner.join("exec-talk", timeout=30)

    terminal = capsys.readouterr()
    log = "".join(harness.logs.step_log_pieces("exec-talk", step_id))
    assert "main: progress" in terminal.out
    assert "step:" not in terminal.out + terminal.err
    assert log == "step: first line\nstep: second line\n"
    assert sys.stdout is stdout_before


def test_the_run_log_gathers_every_step_log_in_order(harness: Harness) -> None:
    rows = [harness.upload_asset("meshes", path) for path in MESHES]
    version = harness.publish(example("mesh"))
    statistics, normalize, preview = harness.launch("exec-log", version, rows)

    harness.runner().start("exec-log")

    run_log = "".join(harness.logs.run_log_pieces("exec-log"))
    headers = [line for line in run_log.splitlines() if line.startswith("=====")]
    assert headers == [
        f"===== pipeline execution {s} =====" for s in (statistics, normalize, preview)
    ]
    assert "icosphere: 162 vertices, 320 faces" in run_log
    assert "preview/torus.svg" in run_log


def test_detached_mode_runs_the_worker_command_in_a_new_process(
    harness: Harness, tmp_path: Path
) -> None:
    version = harness.publish(example("mesh"))
    rows = [harness.upload_asset("meshes", MESHES[1])]
    harness.launch("exec-detached", version, rows)
    worker = tmp_path / "worker.py"
    worker.write_text(_WORKER.format(root=str(tmp_path)))
    runner = harness.runner(mode="detached", detached_command=[sys.executable, str(worker)])

    runner.start("exec-detached")

    assert runner.join("exec-detached", timeout=60)
    worker_log = (tmp_path / "work" / "runs" / "exec-detached" / "runner.log").read_text()
    assert harness.status_of("exec-detached") is ExecutionStatus.SUCCEEDED, worker_log
    assert f"worker pid {os.getpid()}" not in worker_log
    details = harness.store.get_details("exec-detached")
    assert all(s.step.status is StepStatus.SUCCEEDED for s in details.steps)
    assert harness.reporter.calls == []  # the worker reported, not this process


_WORKER = """
import os, sys
from pathlib import Path

from adapters.local.runner import LocalRunner
from entrypoints.container import build_container
from entrypoints.settings import Settings

root = Path({root!r})
settings = Settings.from_environment({{"WFX_HOME": str(root), "WFX_DB": str(root / "wfx.db")}})
container = build_container(settings)

print(f"worker pid {{os.getpid()}}", flush=True)
runner = LocalRunner(
    container.execution_store(), container.workflow_catalog(), container.object_store(),
    container.log_store(), container.run_reporter(), work_dir=root / "work",
)
print(runner.run(sys.argv[1]))
"""


def test_only_a_run_this_process_runs_is_launched_leased_to_its_runner(harness: Harness) -> None:
    """A launch writes the lease of a runner in this process with the run (inline, thread); a
    run handed to a worker process is launched unclaimed, so a worker that never starts leaves
    a run with no lease, which a read reconciles as any run without a runner."""
    worker = harness.runner(mode="detached", detached_command=[sys.executable, "-c", "pass"])
    assert worker.launch_claim() is None
    inline, thread = harness.runner(lease_seconds=7), harness.runner(mode="thread")
    first, second = inline.launch_claim(), inline.launch_claim()
    assert first is not None and second is not None and first.owner != second.owner
    assert first.lease == timedelta(seconds=7)
    assert thread.launch_claim() is not None


def test_an_unknown_mode_is_refused(harness: Harness) -> None:
    with pytest.raises(ValueError, match="mode"):
        harness.runner(mode="cluster")
    with pytest.raises(ValueError, match="detached_command"):
        harness.runner(mode="detached")


def test_a_subprocess_step_can_import_the_example_package() -> None:
    # the command steps of the examples run `python -m wfx_examples...`: the package is installed
    result = subprocess.run(
        [sys.executable, "-c", "import wfx_examples.mesh.preview"], capture_output=True, check=False
    )
    assert result.returncode == 0, result.stderr


# --- retries (seed 003: every attempt is a TaskExecution) ------------------------------------


def with_retry(step: dict[str, Any], max_attempts: int, backoff: float = 2.0) -> dict[str, Any]:
    policy = {"maxAttempts": max_attempts, "intervalSeconds": 1, "backoffRate": backoff}
    return step | {"retry": policy}


def test_a_step_that_fails_once_runs_again_under_its_retry_policy(harness: Harness) -> None:
    flaky = with_retry(python_step("flaky", "fail_the_first_time"), max_attempts=2)
    version = harness.publish(workflow("flaky", flaky))
    (step_id,) = harness.launch("exec-flaky", version)
    waits: list[float] = []

    harness.runner(sleep=waits.append).start("exec-flaky")

    assert harness.reporter.calls == [
        ("started", step_id),
        ("retrying", step_id, "RuntimeError: first time unlucky"),
        ("finished", step_id, StepStatus.SUCCEEDED, None),
        ("completed", ExecutionStatus.SUCCEEDED, None),
    ]
    assert waits == [1.0]


def test_a_step_that_keeps_failing_stops_after_its_last_attempt(harness: Harness) -> None:
    doomed = with_retry(python_step("explode", "explode"), max_attempts=3, backoff=3.0)
    version = harness.publish(workflow("doomed", doomed))
    (step_id,) = harness.launch("exec-doomed", version)
    waits: list[float] = []

    harness.runner(sleep=waits.append).start("exec-doomed")

    assert harness.reporter.step_calls() == [
        ("started", step_id),
        ("retrying", step_id, "RuntimeError: boom"),
        ("retrying", step_id, "RuntimeError: boom"),
        ("finished", step_id, StepStatus.FAILED, "RuntimeError: boom"),
    ]
    assert waits == [1.0, 3.0]
    assert harness.status_of("exec-doomed") is ExecutionStatus.FAILED
