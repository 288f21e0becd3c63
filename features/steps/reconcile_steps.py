"""Reads under the 30-second rule, a clock the scenario moves, and what a check stamps."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from application.ports.executions import ExecutionStore
from application.use_cases.complete_execution import CompleteExecutionCommand
from application.use_cases.get_execution import GetExecutionQuery
from application.use_cases.list_executions import ListExecutionsQuery
from domain.execution import WorkflowExecution
from domain.statuses import ExecutionStatus, StepStatus
from entrypoints.container import Container
from features.steps.reading import details_of
from features.steps.world import World, split_list

UNITS = {"second": timedelta(seconds=1), "day": timedelta(days=1)}


@dataclass
class Reads:
    """The rows the scenario's reads returned, oldest first, and a row kept to compare with."""

    returned: list[WorkflowExecution] = field(default_factory=list)
    kept: WorkflowExecution | None = None

    @property
    def last(self) -> WorkflowExecution:
        assert self.returned, "the scenario has not read the execution yet"
        return self.returned[-1]


@pytest.fixture
def reads() -> Reads:
    return Reads()


def read(container: Container, world: World, reads: Reads) -> WorkflowExecution:
    query = GetExecutionQuery(workflow_execution_id=world.execution_id)
    execution = container.get_execution().execute(query)
    reads.returned.append(execution)
    return execution


def stored(container: Container, world: World) -> WorkflowExecution:
    """The main row as stored, read past every use case (so nothing is reconciled)."""
    store: ExecutionStore = container.execution_store()
    return store.get_execution(world.execution_id)


@given(parsers.re(r"(?P<count>\d+) (?P<unit>second|day)s? pass(?:es)?"))
@when(parsers.re(r"(?P<count>\d+) (?P<unit>second|day)s? pass(?:es)?"))
def _(container: Container, count: str, unit: str) -> None:
    clock: Any = container.clock()  # the scenario's FixedClock
    clock.advance(int(count) * UNITS[unit])


@given("the execution has been read")
@when("the execution is read")
def _(container: Container, world: World, reads: Reads) -> None:
    read(container, world, reads)


@then(parsers.parse("a read shows the execution {status:w}"))
def _(container: Container, world: World, reads: Reads, status: str) -> None:
    execution = read(container, world, reads)
    assert execution.status is ExecutionStatus(status), execution


@then(parsers.parse("the executions list shows the execution {status:w}"))
def _(container: Container, world: World, status: str) -> None:
    page = container.list_executions().execute(ListExecutionsQuery(limit=100))
    found = [e for e in page.items if e.workflow_execution_id == world.execution_id]
    assert len(found) == 1, page.items
    assert found[0].status is ExecutionStatus(status), found[0]


@then(parsers.parse('the steps "{names}" are {status:w}'))
def _(container: Container, world: World, names: str, status: str) -> None:
    steps = {e.step.pipeline_id: e.step for e in details_of(container, world.execution_id).steps}
    for name in split_list(names):
        assert steps[name].status is StepStatus(status), steps[name]
        assert steps[name].stop_date is not None, steps[name]


@then("the stored row was stamped by that read")
def _(container: Container, world: World, reads: Reads) -> None:
    checked = stored(container, world).last_sfn_sync_check_date
    assert checked is not None
    assert checked == reads.last.last_sfn_sync_check_date


@then(parsers.parse("the stamp moved on by more than {seconds:d} seconds"))
def _(reads: Reads, seconds: int) -> None:
    stamps = [r.last_sfn_sync_check_date for r in reads.returned if r.last_sfn_sync_check_date]
    distinct = sorted(set(stamps))
    assert len(distinct) >= 2, stamps
    assert distinct[-1] - distinct[-2] > timedelta(seconds=seconds), distinct


@then("the stamp did not change")
def _(reads: Reads) -> None:
    assert len(reads.returned) >= 2
    before, after = reads.returned[-2], reads.returned[-1]
    assert after.last_sfn_sync_check_date == before.last_sfn_sync_check_date is not None


@given(parsers.parse("the end-state callback recorded the execution {status:w}"))
@when(parsers.parse("the end-state callback recorded the execution {status:w}"))
def _(container: Container, world: World, reads: Reads, status: str) -> None:
    command = CompleteExecutionCommand(
        workflow_execution_id=world.execution_id, status=ExecutionStatus(status)
    )
    assert container.complete_execution().execute(command).status is ExecutionStatus(status)
    reads.kept = stored(container, world)


@then("the stored main row is unchanged since it finished")
def _(container: Container, world: World, reads: Reads) -> None:
    assert reads.kept is not None
    now, then_ = stored(container, world).model_dump(), reads.kept.model_dump()
    assert now == then_, {
        name: (then_[name], now[name]) for name in now if now[name] != then_[name]
    }
