"""Steps advance NEW -> RUNNING -> terminal in chain order, and record what they add."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

from pytest_bdd import parsers, then, when

from application.use_cases.step_tracking import FinishStepCommand, StartStepCommand
from domain.statuses import StepStatus
from entrypoints.container import Container
from features.steps.observer import ObservingReporter
from features.steps.reading import details_of, step_named
from features.steps.world import World, split_list


def _remember_steps(container: Container, world: World) -> None:
    """Keep the steps as they were before the first late callback, to compare with after."""
    if not world.steps_before:
        steps = details_of(container, world.execution_id).steps
        world.steps_before = {entry.step.pipeline_id: entry.step for entry in steps}


@when(parsers.parse('a late start callback arrives for the step "{name}"'))
def _(container: Container, world: World, name: str) -> None:
    _remember_steps(container, world)
    command = StartStepCommand(
        workflow_execution_id=world.execution_id,
        pipeline_execution_id=world.steps_before[name].pipeline_execution_id,
    )
    returned = container.start_step().execute(command)
    assert returned.step.status is world.steps_before[name].status


@when(parsers.parse('a late finish callback with status {status:w} arrives for the step "{name}"'))
def _(container: Container, world: World, status: str, name: str) -> None:
    _remember_steps(container, world)
    command = FinishStepCommand(
        workflow_execution_id=world.execution_id,
        pipeline_execution_id=world.steps_before[name].pipeline_execution_id,
        status=StepStatus(status),
        error="a late failure",
    )
    returned = container.finish_step().execute(command)
    assert returned.status is world.steps_before[name].status


@then(parsers.parse('the step "{name}" is unchanged since before the late callbacks'))
def _(container: Container, world: World, name: str) -> None:
    now = step_named(details_of(container, world.execution_id), name).step
    assert now == world.steps_before[name]


@then(parsers.parse('the step "{name}" is {status:w}'))
def _(container: Container, world: World, name: str, status: str) -> None:
    step = step_named(details_of(container, world.execution_id), name).step
    assert step.status is StepStatus(status), step


@then(parsers.parse('the step "{name}" never started'))
def _(container: Container, world: World, name: str) -> None:
    step = step_named(details_of(container, world.execution_id), name).step
    assert (step.status, step.start_date, step.stop_date) == (StepStatus.NEW, None, None), step


@then("the steps started one at a time in chain order")
def _(container: Container, observer: ObservingReporter, world: World) -> None:
    chain = [entry.step.pipeline_id for entry in details_of(container, world.execution_id).steps]
    started = [
        s.moment.removeprefix("after start of ")
        for s in observer.snapshots[world.execution_id]
        if s.moment.startswith("after start of ")
    ]
    assert started == chain


@then(
    "each step was RUNNING while the steps before it had SUCCEEDED and the steps after it were NEW"
)
def _(observer: ObservingReporter, world: World) -> None:
    running_seen = 0
    for snapshot in observer.snapshots[world.execution_id]:
        if not snapshot.moment.startswith("after start of "):
            continue
        name = snapshot.moment.removeprefix("after start of ")
        names = [pipeline_id for pipeline_id, _ in snapshot.steps]
        position = names.index(name)
        expected = (
            [StepStatus.SUCCEEDED] * position
            + [StepStatus.RUNNING]
            + [StepStatus.NEW] * (len(names) - position - 1)
        )
        assert [status for _, status in snapshot.steps] == expected, snapshot
        running_seen += 1
    assert running_seen == len(observer.snapshots[world.execution_id][0].steps)


@then("every step started after the step before it stopped, and stopped after it started")
def _(container: Container, world: World) -> None:
    steps = [entry.step for entry in details_of(container, world.execution_id).steps]
    for step in steps:
        assert step.start_date is not None and step.stop_date is not None, step
        assert step.start_date < step.stop_date, step
    for before, after in pairwise(steps):
        assert before.stop_date is not None and after.start_date is not None
        assert before.stop_date <= after.start_date, (before, after)


@then(parsers.parse('the step "{name}" recorded the output files "{files}"'))
def _(container: Container, world: World, name: str, files: str) -> None:
    outputs = step_named(details_of(container, world.execution_id), name).outputs
    assert sorted(f.relative_file_path for f in outputs.files) == sorted(split_list(files))
    for output in outputs.files:
        assert output.version_id and output.size > 0 and output.etag, output


@then("no output file is recorded twice")
def _(container: Container, world: World) -> None:
    steps = details_of(container, world.execution_id).steps
    counts = Counter(f.relative_file_path for entry in steps for f in entry.outputs.files)
    assert counts and max(counts.values()) == 1, counts
