"""Steps of logs.feature: a step registers a log, the details list it, the logs route reads it."""

from __future__ import annotations

from pathlib import Path

from pytest_bdd import given, parsers, then, when
from tests.contract.builders import a_registrar

from application.use_cases.get_execution_logs import ExecutionLogs, GetExecutionLogsQuery
from application.use_cases.register_pipeline_execution import (
    RegisterPipelineExecutionCommand,
)
from domain.available_logs import AvailableLog, LogReadStatus
from domain.errors import DomainError
from domain.logs import LogKind
from entrypoints.container import Container
from features.steps.observer import ObservingReporter
from features.steps.reading import details_of, step_named
from features.steps.world import World

OTHER_RUN_LINE = "another-run converted its mesh"


def _this_run_line(world: World) -> str:
    return f"{world.execution_id} converted its mesh"


def _register_as_it_runs(
    container: Container, observer: ObservingReporter, name: str, log: dict[str, str]
) -> None:
    """Once the step `name` is running, it registers `log`, as a step does with what it made."""

    def register(execution_id: str) -> None:
        step = step_named(details_of(container, execution_id), name).step
        source = f"wfx.execution.{execution_id}.pipeline.{step.pipeline_execution_id}"
        command = RegisterPipelineExecutionCommand.model_validate(
            {
                "source": source,
                "detail-type": "pipeline.execution.register",
                "detail": {"pipelineExecutionId": step.pipeline_execution_id, "logs": [log]},
            }
        )
        result = a_registrar(container.execution_store()).execute(command)
        assert result.accepted, result.reason

    observer.once_started[name] = register


def _offered(container: Container, world: World, name: str) -> tuple[AvailableLog, ...]:
    return step_named(details_of(container, world.execution_id), name).available_logs


def _read(container: Container, world: World, log_id: str) -> ExecutionLogs | DomainError:
    query = GetExecutionLogsQuery(workflow_execution_id=world.execution_id, log_id=log_id)
    try:
        return container.get_execution_logs().execute(query)
    except DomainError as refused:
        return refused


@when(
    parsers.parse(
        'the local log folder "{group}" holds "{stream}" with a line of this run and one of another'
    )
)
def _(container: Container, world: World, group: str, stream: str) -> None:
    folder = Path(container.config.home()) / "logs" / group
    folder.mkdir(parents=True, exist_ok=True)
    text = f"{_this_run_line(world)}\n{OTHER_RUN_LINE}\n"
    (folder / stream).write_text(text, encoding="utf-8")


@given(
    parsers.parse(
        'the step "{name}" registers the log stream "{stream}" of the log group "{group}" '
        "as it runs"
    )
)
def _(
    container: Container, observer: ObservingReporter, name: str, stream: str, group: str
) -> None:
    log = {"logGroupName": group, "logStreamName": stream}
    _register_as_it_runs(container, observer, name, log)


@given(
    parsers.parse(
        'the step "{name}" registers the log stream prefix "{prefix}" of the log group '
        '"{group}" as it runs'
    )
)
def _(
    container: Container, observer: ObservingReporter, name: str, prefix: str, group: str
) -> None:
    log = {"logGroupName": group, "logStreamPrefix": prefix}
    _register_as_it_runs(container, observer, name, log)


@then(
    parsers.parse(
        'the step "{name}" offers its invocation log and then a registered log of "{group}"'
    )
)
def _(container: Container, world: World, name: str, group: str) -> None:
    offered = _offered(container, world, name)
    # VAMS's order: the invocation log (the step's log file under the run's folder) comes first
    assert [(entry.kind, entry.group) for entry in offered] == [
        (LogKind.INVOCATION, world.execution_id),
        (LogKind.REGISTERED, group),
    ]
    assert all(len(entry.log_id) == 16 for entry in offered)
    assert offered[0].log_id != offered[1].log_id


@when(
    parsers.parse('alice reads the registered log "{group}" of the step "{name}" by its logId'),
    target_fixture="logs_read",
)
def _(container: Container, world: World, group: str, name: str) -> ExecutionLogs | DomainError:
    (entry,) = [
        e
        for e in _offered(container, world, name)
        if e.kind is LogKind.REGISTERED and e.group == group
    ]
    return _read(container, world, entry.log_id)


@when(
    parsers.parse('alice reads the invocation log of the step "{name}" by its logId'),
    target_fixture="logs_read",
)
def _(container: Container, world: World, name: str) -> ExecutionLogs | DomainError:
    (entry,) = [e for e in _offered(container, world, name) if e.kind is LogKind.INVOCATION]
    return _read(container, world, entry.log_id)


@when(parsers.parse('alice reads the log "{log_id}"'), target_fixture="logs_read")
def _(container: Container, world: World, log_id: str) -> ExecutionLogs | DomainError:
    return _read(container, world, log_id)


def _answer(logs_read: ExecutionLogs | DomainError) -> ExecutionLogs:
    assert isinstance(logs_read, ExecutionLogs), f"the read was refused: {logs_read}"
    return logs_read


@then("the source read is reported read and every other log source notRead")
def _(logs_read: ExecutionLogs | DomainError) -> None:
    statuses = [report.status for report in _answer(logs_read).log_sources]
    assert statuses.count(LogReadStatus.READ) == 1, statuses
    assert statuses.count(LogReadStatus.NOT_READ) == len(statuses) - 1, statuses
    assert len(statuses) >= 4  # three invocation logs and the registered one


@then("the lines read are the line of this run and the line of the other run")
def _(logs_read: ExecutionLogs | DomainError, world: World) -> None:
    messages = [line.message for line in _answer(logs_read).lines]
    assert messages == [_this_run_line(world), OTHER_RUN_LINE]


@then("the lines read are the line of this run only")
def _(logs_read: ExecutionLogs | DomainError, world: World) -> None:
    assert [line.message for line in _answer(logs_read).lines] == [_this_run_line(world)]


@then(parsers.parse('the lines read are "{text}"'))
def _(logs_read: ExecutionLogs | DomainError, text: str) -> None:
    assert [line.message for line in _answer(logs_read).lines] == [text]


@then(parsers.parse('the read is refused as not found naming "{text}"'))
def _(logs_read: ExecutionLogs | DomainError, text: str) -> None:
    from domain.errors import NotFoundError

    assert isinstance(logs_read, NotFoundError), f"expected a refusal, got {logs_read!r}"
    assert text in str(logs_read)
