"""Steps of approvals.feature: gates reached, decided by whoever the scenario names, timed out."""

from __future__ import annotations

import pytest
from pytest_bdd import parsers, then, when

from application.use_cases.approvals import DecideApprovalCommand, ListApprovalsQuery
from domain.approvals import (
    ApprovalClosedError,
    ApprovalRequest,
    ApprovalStatus,
    Decision,
    NotAnApproverError,
    parked_approval,
)
from domain.authorization import ADMIN_ROLE, Subject
from domain.errors import DomainError
from domain.run_write import RunWrite
from domain.statuses import ExecutionStatus, StepStatus
from entrypoints.container import Container
from features.steps.reading import details_of, step_named
from features.steps.world import World, split_list

REFUSALS: dict[str, type[DomainError]] = {
    "not authorized": NotAnApproverError,
    "closed": ApprovalClosedError,
}


class Decisions:
    """The refusal of the scenario's last decision, if it was refused."""

    refusal: DomainError | None = None


@pytest.fixture
def decisions() -> Decisions:
    return Decisions()


def _requests(container: Container, world: World) -> list[ApprovalRequest]:
    query = ListApprovalsQuery(
        subject=Subject(user_id=world.user, roles=(ADMIN_ROLE,)),
        workflow_execution_id=world.execution_id,
    )
    return list(container.list_approvals().execute(query).items)


def _the_request(container: Container, world: World, newest: bool = False) -> ApprovalRequest:
    requests = _requests(container, world)
    if newest:
        return requests[-1]
    assert len(requests) == 1, requests
    return requests[0]


def _decide(
    container: Container,
    world: World,
    decisions: Decisions,
    user: str,
    roles: tuple[str, ...],
    decision: Decision,
    reason: str,
    newest: bool = False,
) -> None:
    command = DecideApprovalCommand(
        approval_id=_the_request(container, world, newest).approval_id,
        decision=decision,
        reason=reason,
        subject=Subject(user_id=user, roles=roles),
    )
    try:
        container.decide_approval().execute(command)
    except DomainError as refused:
        decisions.refusal = refused


@when(
    parsers.re(
        r'(?P<user>\w+)(?:, holding the role "(?P<role>[\w-]+)",)? '
        r'(?P<verb>approves|rejects) the (?P<which>new )?gate saying "(?P<reason>[^"]*)"'
    )
)
def _(
    container: Container,
    world: World,
    decisions: Decisions,
    user: str,
    role: str | None,
    verb: str,
    which: str | None,
    reason: str,
) -> None:
    decision = Decision.APPROVE if verb == "approves" else Decision.REJECT
    roles = (role,) if role else ()
    _decide(container, world, decisions, user, roles, decision, reason, newest=bool(which))


@then(parsers.parse('{user}\'s approval of the gate is refused as {kind} naming "{text}"'))
def _(
    container: Container, world: World, decisions: Decisions, user: str, kind: str, text: str
) -> None:
    _decide(container, world, decisions, user, (), Decision.APPROVE, "")
    assert isinstance(decisions.refusal, REFUSALS[kind]), repr(decisions.refusal)
    assert text in str(decisions.refusal)


@then(parsers.parse('the decision is refused as {kind} naming "{text}"'))
def _(decisions: Decisions, kind: str, text: str) -> None:
    assert isinstance(decisions.refusal, REFUSALS[kind]), repr(decisions.refusal)
    assert text in str(decisions.refusal)


@then(
    parsers.parse('the execution is RUNNING, parked at the gate "{name}" with no runner holding it')
)
def _(container: Container, world: World, name: str) -> None:
    details = details_of(container, world.execution_id)
    assert details.execution.status is ExecutionStatus.RUNNING, details.execution
    gate = step_named(details, name).step
    assert gate.status is StepStatus.RUNNING, gate
    lease = details.execution.runner_lease
    request = _the_request(container, world)
    assert lease is not None and lease.owner == f"parked:{request.approval_id}", lease
    assert request.pipeline_execution_id == gate.pipeline_execution_id


@then(parsers.parse('the pending approvals are the gate "{name}" of the execution, for "{who}"'))
def _(container: Container, world: World, name: str, who: str) -> None:
    query = ListApprovalsQuery(subject=Subject(user_id="carol"), pending_only=True)
    pending = container.list_approvals().execute(query).items
    assert [(r.workflow_execution_id, r.pipeline_id) for r in pending] == [
        (world.execution_id, name)
    ]
    assert list(pending[0].approvers) == split_list(who)


@then("no approval is pending")
def _(container: Container) -> None:
    query = ListApprovalsQuery(subject=Subject(user_id="carol"), pending_only=True)
    assert container.list_approvals().execute(query).items == ()


@then(parsers.parse('the approval is {status:w} by "{user}" saying "{reason}"'))
def _(container: Container, world: World, status: str, user: str, reason: str) -> None:
    request = _the_request(container, world)
    assert (request.status, request.decided_by, request.reason) == (
        ApprovalStatus(status),
        user,
        reason,
    )
    assert request.decided_at is not None


@then(parsers.parse("the approval is {status:w}"))
def _(container: Container, world: World, status: str) -> None:
    assert _the_request(container, world).status is ApprovalStatus(status)


@then(
    parsers.parse(
        'the event log of the execution has "{expected}" between the steps "{before}" and "{after}"'
    )
)
def _(container: Container, world: World, expected: str, before: str, after: str) -> None:
    events = container.execution_events().events_after(world.execution_id, 0, 1000).items
    details = details_of(container, world.execution_id)
    first = step_named(details, before).step.pipeline_execution_id
    last = step_named(details, after).step.pipeline_execution_id
    finished = next(
        n
        for n, e in enumerate(events)
        if e.event_type == "StepFinished" and e.pipeline_execution_id == first
    )
    started = next(
        n
        for n, e in enumerate(events)
        if e.event_type == "StepStarted" and e.pipeline_execution_id == last
    )
    between = [
        f"{e.event_type.value} {e.status}"
        for e in events[finished:started]
        if e.event_type.value.startswith("Approval")
    ]
    assert between == split_list(expected)


@then(
    parsers.parse('the execution is RUNNING, parked at the new gate "{name}" of its second attempt')
)
def _(container: Container, world: World, name: str) -> None:
    details = details_of(container, world.execution_id)
    assert details.execution.status is ExecutionStatus.RUNNING, details.execution
    requests = _requests(container, world)
    assert [(r.pipeline_id, r.attempt, r.status.value) for r in requests] == [
        (name, 1, "REJECTED"),
        (name, 2, "PENDING"),
    ]
    lease = details.execution.runner_lease
    assert lease is not None and lease.owner == f"parked:{requests[-1].approval_id}", lease


@then(parsers.parse('the approvals of the execution are "{expected}"'))
def _(container: Container, world: World, expected: str) -> None:
    requests = _requests(container, world)
    assert [f"{r.status.value} by {r.decided_by}" for r in requests] == split_list(expected)


@when(
    parsers.re(
        r"an older wfx (?P<what>records carol's approval of the gate|closes the gate timed out), "
        r"then dies before handing the run on"
    )
)
def _(container: Container, world: World, what: str) -> None:
    """The gate's request closed in a write of its own, the run left parked at it: what a wfx
    that wrote the two apart left when it died between them. Read past every use case."""
    store = container.execution_store()
    lease = store.get_execution(world.execution_id).runner_lease
    approval_id = parked_approval(lease.owner if lease is not None else None)
    assert approval_id is not None, lease
    request = container.approvals().get(approval_id)
    now = container.clock().now()
    if what.startswith("records"):
        decided = request.decide(Decision.APPROVE, "carol", (), "file list checked", now)
        assert store.commit(RunWrite.deciding(decided))
    else:
        assert store.commit(RunWrite.closing(request.timed_out(now)))
