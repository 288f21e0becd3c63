"""Steps registering sub-processes and logs on a running step, and what its row then holds."""

from __future__ import annotations

from pytest_bdd import parsers, then, when

from application.ports.event_bus import Delivery, EventBus, RegistrationCredentials
from domain.execution import PipelineExecution
from domain.logs import RegisteredLog
from domain.registration import REGISTRATION_DETAIL_TYPE, compose_source
from entrypoints.container import Container
from features.steps.launch_steps import launch
from features.steps.observer import ObservingReporter
from features.steps.reading import details_of, step_named
from features.steps.world import World
from features.workflows.steps import inner_run_arn


def _step(container: Container, world: World, name: str) -> PipelineExecution:
    return step_named(details_of(container, world.execution_id), name).step


@when(
    parsers.parse(
        'alice launches "{workflow}" and, before the step "{name}" ends, its registration is '
        'delivered again with the label "{label}"'
    ),
    target_fixture="delivery",
)
def _(
    container: Container,
    observer: ObservingReporter,
    world: World,
    workflow: str,
    name: str,
    label: str,
) -> Delivery:
    deliveries: list[Delivery] = []

    def deliver_again(execution_id: str) -> None:
        step = step_named(details_of(container, execution_id), name).step
        # the same locations as stored, one of them now carrying a label it was sent without
        published = container.publish_registration().register(
            step.workflow_execution_id,
            step.pipeline_execution_id,
            sub_executions=[
                entry.model_dump(by_alias=True, exclude_defaults=True)
                for entry in step.registered_sub_executions
            ],
            logs=[_camel(log) | {"label": label} for log in step.registered_logs],
            registration_token=_token(container, step),
        )
        deliveries.append(Delivery(published.event_id, published.accepted, published.reason))

    observer.before_finish[name] = deliver_again
    launch(container, world, "alice", workflow, None, None, None, None, None, None)
    (delivery,) = deliveries
    return delivery


@when(
    parsers.parse('the log group "{group}" is registered on the step "{name}" with its token'),
    target_fixture="delivery",
)
def _(container: Container, world: World, group: str, name: str) -> Delivery:
    step = _step(container, world, name)
    published = container.publish_registration().register(
        step.workflow_execution_id,
        step.pipeline_execution_id,
        logs=[{"logGroupName": group}],
        registration_token=_token(container, step),
    )
    return Delivery(published.event_id, published.accepted, published.reason)


def _token(container: Container, step: PipelineExecution) -> str:
    """The registration token the local runner gave the step, as the step itself holds it."""
    credentials: RegistrationCredentials = container.registration_credentials()
    return credentials.issue(step.workflow_execution_id, step.pipeline_execution_id)


def _camel(log: RegisteredLog) -> dict[str, str]:
    return {
        "logGroupArn": log.log_group_arn,
        "logGroupName": log.log_group_name,
        "logStreamName": log.log_stream_name,
        "logStreamPrefix": log.log_stream_prefix,
        "stageName": log.stage_name,
        "label": log.label,
        "sourceType": log.source_type,
    }


@when(
    parsers.parse(
        'an event whose source names the step "{named}" registers the log group "{group}" '
        'on the step "{name}"'
    ),
    target_fixture="delivery",
)
def _(container: Container, world: World, named: str, group: str, name: str) -> Delivery:
    target = _step(container, world, name)
    named_step = _step(container, world, named)
    source = compose_source("wfx", world.execution_id, named_step.pipeline_execution_id)
    detail = {
        "pipelineExecutionId": target.pipeline_execution_id,
        "logs": [{"logGroupName": group}],
    }
    bus: EventBus = container.event_bus()
    # the step the source names sends its own token: only the source and detail disagree
    return bus.publish(
        source, REGISTRATION_DETAIL_TYPE, detail, credential=_token(container, named_step)
    )


def _step_of(container: Container, world: World, name: str, run: str) -> PipelineExecution:
    return step_named(details_of(container, world.run(run)), name).step


@when(
    parsers.parse(
        'the step "{name}" of run "{intruder}" registers the log group "{group}" on the step '
        '"{target}" of run "{victim}" with its own token'
    ),
    target_fixture="delivery",
)
def _(
    container: Container,
    world: World,
    name: str,
    intruder: str,
    group: str,
    target: str,
    victim: str,
) -> Delivery:
    own = _step_of(container, world, name, intruder)
    aimed_at = _step_of(container, world, target, victim)
    # everything about the event names the victim's step: only the token is the intruder's
    published = container.publish_registration().register(
        aimed_at.workflow_execution_id,
        aimed_at.pipeline_execution_id,
        logs=[{"logGroupName": group}],
        registration_token=_token(container, own),
    )
    return Delivery(published.event_id, published.accepted, published.reason)


@when(
    parsers.parse('the log group "{group}" is registered on the step "{name}" without a token'),
    target_fixture="delivery",
)
def _(container: Container, world: World, group: str, name: str) -> Delivery:
    step = _step(container, world, name)
    published = container.publish_registration().register(
        step.workflow_execution_id, step.pipeline_execution_id, logs=[{"logGroupName": group}]
    )
    return Delivery(published.event_id, published.accepted, published.reason)


@then(parsers.parse('nothing was registered on the step "{name}" of run "{run}"'))
def _(container: Container, world: World, name: str, run: str) -> None:
    step = _step_of(container, world, name, run)
    assert (step.registered_sub_executions, step.registered_logs) == ((), ())


@then("the registration is accepted")
def _(delivery: Delivery) -> None:
    assert delivery.accepted is True, delivery


@then(parsers.parse('the registration is refused, naming "{text}"'))
def _(delivery: Delivery, text: str) -> None:
    assert delivery.accepted is False, delivery
    assert text in (delivery.reason or ""), delivery


@then(
    parsers.parse('the step "{name}" registered its inner run as a "{resource_type}" sub-execution')
)
def _(container: Container, world: World, name: str, resource_type: str) -> None:
    (entry,) = _step(container, world, name).registered_sub_executions
    assert (entry.resource_type, entry.resource_id) == (
        resource_type,
        inner_run_arn(world.execution_id),
    )


@then(parsers.parse('the step "{name}" registered {count:d} sub-execution'))
def _(container: Container, world: World, name: str, count: int) -> None:
    assert len(_step(container, world, name).registered_sub_executions) == count


@then(
    parsers.parse(
        'the step "{name}" registered {count:d} log: the group "{group}" with the stream prefix '
        '"{prefix}" from a "{source_type}"'
    )
)
def _(
    container: Container,
    world: World,
    name: str,
    count: int,
    group: str,
    prefix: str,
    source_type: str,
) -> None:
    logs = _step(container, world, name).registered_logs
    assert len(logs) == count, logs
    assert all(log.group.endswith(f":log-group:{group}") for log in logs), logs
    assert all(log.log_stream_prefix == prefix for log in logs), logs
    assert all(log.source_type == source_type for log in logs), logs


@then(parsers.parse('the step "{name}" registered {count:d} logs'))
def _(container: Container, world: World, name: str, count: int) -> None:
    assert len(_step(container, world, name).registered_logs) == count


@then(parsers.parse('the log of the step "{name}" is labelled "{label}"'))
def _(container: Container, world: World, name: str, label: str) -> None:
    (log,) = _step(container, world, name).registered_logs
    assert log.label == label


@then(parsers.parse('the step "{name}" registered nothing'))
def _(container: Container, world: World, name: str) -> None:
    step = _step(container, world, name)
    assert step.registered_sub_executions == ()
    assert step.registered_logs == ()
