"""Launching runs, and what a launch records or refuses."""

from __future__ import annotations

from pytest_bdd import given, parsers, then, when

from application.use_cases.launch_execution import LaunchExecutionCommand, LaunchResult
from application.use_cases.list_executions import ListExecutionsQuery
from domain.errors import ConflictError, DomainError, InvalidInputError, NotFoundError
from domain.execution import chain_order
from domain.statuses import ExecutionStatus, StepStatus
from entrypoints.container import Container
from features.steps.observer import ObservingReporter
from features.steps.reading import current_file, details_of
from features.steps.world import World, split_list

# `alice launches "db/wf" over "db/asset, db/asset/file" writing to "db/asset" in group "g"
#  with trigger "fileUpload" with client token "t" as run "A"`: every clause after the workflow
# is optional, in this order; "launched" reads better in a Given.
LAUNCH = parsers.re(
    r'(?P<user>[\w-]+) launch(?:es|ed) "(?P<workflow>[^"]*)"'
    r'(?: over "(?P<inputs>[^"]*)")?'
    r'(?: writing to "(?P<output>[^"]*)")?'
    r'(?: in group "(?P<group>[^"]*)")?'
    r'(?: with trigger "(?P<trigger>[^"]*)")?'
    r'(?: with client token "(?P<token>[^"]*)")?'
    r'(?: as run "(?P<label>[^"]*)")?'
)

REFUSALS: dict[str, type[DomainError]] = {
    "not found": NotFoundError,
    "invalid": InvalidInputError,
    "a conflict": ConflictError,
}


def launch(
    container: Container,
    world: World,
    user: str,
    workflow: str,
    inputs: str | None,
    output: str | None,
    group: str | None,
    trigger: str | None,
    token: str | None,
    label: str | None,
) -> LaunchResult:
    database_id, _, workflow_id = workflow.partition("/")
    command = LaunchExecutionCommand(
        workflow_database_id=database_id,
        workflow_id=workflow_id,
        inputs=tuple(split_list(inputs or "")),
        output=output,
        execution_group_id=group,
        trigger=trigger or "manual",
        user_id=user,
        client_token=token,
    )
    result = container.launch_execution().execute(command)
    world.launches.append(result)
    if label is not None:
        world.runs[label] = result.execution.workflow_execution_id
    return result


@given(LAUNCH)
def _(
    container: Container,
    world: World,
    user: str,
    workflow: str,
    inputs: str | None,
    output: str | None,
    group: str | None,
    trigger: str | None,
    token: str | None,
    label: str | None,
) -> None:
    launch(container, world, user, workflow, inputs, output, group, trigger, token, label)


@when(LAUNCH)
def _(
    container: Container,
    world: World,
    user: str,
    workflow: str,
    inputs: str | None,
    output: str | None,
    group: str | None,
    trigger: str | None,
    token: str | None,
    label: str | None,
) -> None:
    try:
        launch(container, world, user, workflow, inputs, output, group, trigger, token, label)
    except DomainError as refused:
        world.refusal = refused


@then(parsers.parse('the launch is refused as {kind} naming "{text}"'))
def _(world: World, kind: str, text: str) -> None:
    assert world.refusal is not None, "the launch was accepted"
    assert isinstance(world.refusal, REFUSALS[kind]), repr(world.refusal)
    assert text in str(world.refusal), str(world.refusal)


@then(parsers.re(r"(?P<count>no|\d+) executions? (?:is|are) listed"))
def _(container: Container, count: str) -> None:
    page = container.list_executions().execute(ListExecutionsQuery(limit=100))
    assert len(page.items) == (0 if count == "no" else int(count)), page.items


@then(parsers.parse("the execution is {status:w}"))
def _(container: Container, world: World, status: str) -> None:
    execution = details_of(container, world.execution_id).execution
    assert execution.status is ExecutionStatus(status), execution


@then("the execution was launched RUNNING with its first step RUNNING and the others NEW")
def _(observer: ObservingReporter, world: World) -> None:
    # the launch's one write: the run, its lease and its first step's start
    first = observer.snapshots[world.execution_id][0]
    (name, _), *others = first.steps
    assert first.moment == f"after start of {name}", first
    assert first.execution_status is ExecutionStatus.RUNNING, first
    assert first.steps[0][1] is StepStatus.RUNNING, first
    assert {status for _, status in others} == {StepStatus.NEW}, first


@then("the execution stayed RUNNING until it completed")
def _(observer: ObservingReporter, world: World) -> None:
    snapshots = observer.snapshots[world.execution_id]
    assert snapshots[-1].moment == "after completion"
    for snapshot in snapshots[:-1]:
        assert snapshot.execution_status is ExecutionStatus.RUNNING, snapshot


@then(parsers.parse('the execution has one step row per step of "{workflow}", in chain order'))
def _(container: Container, world: World, workflow: str) -> None:
    database_id, _, workflow_id = workflow.partition("/")
    version = container.workflow_catalog().latest_version(database_id, workflow_id)
    assert version is not None
    steps = [entry.step for entry in details_of(container, world.execution_id).steps]
    assert [s.pipeline_id for s in steps] == [d.pipeline_id for d in version.steps]
    assert chain_order(steps) == steps
    assert [s.step_index for s in steps] == list(range(len(version.steps)))
    assert [s.end_state for s in steps] == [False] * (len(steps) - 1) + [True]
    previous = [None, *(s.pipeline_execution_id for s in steps[:-1])]
    assert [s.from_pipeline_execution_id for s in steps] == previous


@then(parsers.parse('the execution read "{files}" at the versions first imported'))
def _(container: Container, world: World, files: str) -> None:
    inputs = details_of(container, world.execution_id).inputs
    read = {f"{i.database_id}/{i.asset_id}/{i.input_asset_file_key}": i for i in inputs}
    assert sorted(read) == sorted(split_list(files))
    for label, row in read.items():
        assert row.version_id == world.imported[label], label
        assert row.bucket and row.asset_root_key == f"assets/{row.database_id}/{row.asset_id}/"


@then(parsers.parse('the current version of "{reference}" is not the one the execution read'))
def _(container: Container, world: World, reference: str) -> None:
    assert current_file(container, reference).version_id != world.imported[reference]


@then(
    parsers.parse(
        'the execution\'s configuration records version {version:d} and the inputs "{inputs}"'
    )
)
def _(container: Container, world: World, version: int, inputs: str) -> None:
    details = details_of(container, world.execution_id)
    configuration = details.configuration
    assert configuration is not None
    assert configuration.workflow_version == version == details.execution.workflow_version
    assert list(configuration.input_selections) == split_list(inputs)
    assert configuration.execution_start_date == details.execution.execution_start_date


@then(parsers.parse('the execution was triggered by "{user}" as "{trigger_type}"'))
def _(container: Container, world: World, user: str, trigger_type: str) -> None:
    execution = details_of(container, world.execution_id).execution
    assert (execution.triggered_by_user_id, execution.trigger_type.value) == (user, trigger_type)


@then("both launches returned the same execution")
def _(world: World) -> None:
    first, second = world.launches
    assert first.created
    assert not second.created
    assert second.execution.workflow_execution_id == first.execution.workflow_execution_id


@then(parsers.parse('the run "{label}" read no input files'))
def _(container: Container, world: World, label: str) -> None:
    details = details_of(container, world.run(label))
    assert details.inputs == ()
    for entry in details.steps:
        assert entry.configuration is not None and entry.configuration.input_files == ()
