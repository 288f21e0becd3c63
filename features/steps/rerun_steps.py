"""Rerunning runs that ended: the new run, and what it took from the one it reruns."""

from __future__ import annotations

from collections.abc import Sequence

from pytest_bdd import parsers, then, when

from application.use_cases.rerun_execution import RerunExecutionCommand
from domain.errors import DomainError, RerunNotAllowedError
from domain.execution import ExecutionInput
from domain.statuses import ExecutionStatus
from domain.triggers import TriggerType
from entrypoints.container import Container
from features.steps.reading import details_of
from features.steps.world import World


@when(
    parsers.re(r'(?P<user>[\w-]+) reruns run "(?P<label>[^"]+)"(?: in group "(?P<group>[^"]*)")?')
)
def _(container: Container, world: World, user: str, label: str, group: str | None) -> None:
    command = RerunExecutionCommand(
        workflow_execution_id=world.run(label), execution_group_id=group, user_id=user
    )
    world.steps_before = {
        entry.step.pipeline_id: entry.step
        for entry in details_of(container, world.run(label)).steps
    }
    try:
        world.launches.append(container.rerun_execution().execute(command))
    except DomainError as refused:
        world.refusal = refused


@then(
    parsers.re(
        r'the execution reruns run "(?P<label>[^"]+)", triggered by (?P<user>[\w-]+) in '
        r'(?:group "(?P<group>[^"]+)"|no group)'
    )
)
def _(container: Container, world: World, label: str, user: str, group: str | None) -> None:
    execution = details_of(container, world.execution_id).execution
    assert world.execution_id != world.run(label)
    assert execution.rerun_of_execution_id == world.run(label), execution
    assert (execution.trigger_type, execution.triggered_by_user_id) == (TriggerType.MANUAL, user)
    assert execution.execution_group_id == group, execution


@then(parsers.parse('the execution read the inputs of run "{label}" and writes to "{output}"'))
def _(container: Container, world: World, label: str, output: str) -> None:
    rerun, original = (
        details_of(container, world.execution_id),
        details_of(container, world.run(label)),
    )

    def read(rows: Sequence[ExecutionInput]) -> list[tuple[str, str, str, str]]:
        return [(r.database_id, r.asset_id, r.input_asset_file_key, r.version_id) for r in rows]

    assert read(rerun.inputs) == read(original.inputs)
    assert read(rerun.inputs), "the run read nothing"
    assert rerun.configuration is not None and original.configuration is not None
    assert rerun.configuration.output_asset_key == output.replace("/", ":")
    assert original.configuration.output_asset_key == output.replace("/", ":")


@then(parsers.parse('run "{label}" is {status:w} as it was'))
def _(container: Container, world: World, label: str, status: str) -> None:
    details = details_of(container, world.run(label))
    assert details.execution.status is ExecutionStatus(status), details.execution
    assert details.execution.rerun_of_execution_id is None
    assert {entry.step.pipeline_id: entry.step for entry in details.steps} == world.steps_before


@then(parsers.parse("the execution ran version {version:d} of the workflow"))
def _(container: Container, world: World, version: int) -> None:
    assert details_of(container, world.execution_id).execution.workflow_version == version


@then(parsers.parse('the rerun is refused: "{text}"'))
def _(world: World, text: str) -> None:
    assert isinstance(world.refusal, RerunNotAllowedError), repr(world.refusal)
    assert text in str(world.refusal)
