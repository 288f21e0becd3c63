"""`wfx approvals`: the gates runs wait at, and their decisions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from entrypoints.cli import context

if TYPE_CHECKING:
    from domain.approvals import ApprovalRequest, Decision
    from entrypoints.container import Container

approvals_app = typer.Typer(
    no_args_is_help=True,
    help="Approval gates: list the requests runs wait at, approve or reject them.",
)

JsonFlag = Annotated[bool, typer.Option("--json", help="Print the answer as JSON.")]
Reason = Annotated[
    str, typer.Option("--reason", metavar="TEXT", help="Why: kept with the decision.")
]
NoWait = Annotated[
    bool, typer.Option("--no-wait", help="Record the decision and return (a worker goes on).")
]


def describe(request: ApprovalRequest) -> str:
    """One line: id, status, the step and run it gates, who may decide or who did."""
    where = f"{request.pipeline_id} of {request.workflow_execution_id}"
    if request.is_pending:
        until = request.expires_at.strftime("%Y-%m-%d %H:%M:%SZ")
        return (
            f"{request.approval_id}  PENDING  {where}  approvers: {', '.join(request.approvers)}"
            f"  until {until}"
        )
    who = f" by {request.decided_by}" if request.decided_by else ""
    why = f": {request.reason}" if request.reason else ""
    return f"{request.approval_id}  {request.status.value}{who}  {where}{why}"


@approvals_app.command("list")
def approvals_list(
    pending: Annotated[bool, typer.Option("--pending", help="Only those still waiting.")] = False,
    execution: Annotated[
        str | None, typer.Option("--execution", metavar="ID", help="Only this run's.")
    ] = None,
    limit: Annotated[int, typer.Option(min=1, max=100, help="Page size, 1 to 100.")] = 20,
    starting_token: Annotated[
        str | None, typer.Option(help="Token printed by the previous page.")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Approval requests, newest first (a gate past its time is closed TIMED_OUT as it is
    read)."""
    from application.use_cases.approvals import ListApprovalsQuery
    from domain.redaction import redact
    from entrypoints.cli.render import dump_json
    from entrypoints.cli.subject import cli_subject
    from entrypoints.responses import ApprovalPageResponse

    container = context.container()
    query = ListApprovalsQuery(
        subject=cli_subject(),
        pending_only=pending,
        limit=limit,
        starting_token=starting_token,
        workflow_execution_id=None if execution is None else context.run_id(container, execution),
    )
    page = container.list_approvals().execute(query)
    if json_output:
        context.echo(dump_json(ApprovalPageResponse.of(page).dump()))
        return
    if not page.items:
        context.echo("no pending approvals" if pending else "no approvals")
    for request in page.items:
        context.echo(redact(describe(request)))
    if page.next_token:
        context.echo(f"more: --starting-token {page.next_token}")


def _decide(
    approval_id: str, decision: Decision, reason: str, no_wait: bool, json_output: bool
) -> None:
    from application.use_cases.approvals import DecideApprovalCommand
    from domain.approvals import NotAnApproverError
    from domain.redaction import redact
    from entrypoints.cli.errors import named_as_given
    from entrypoints.cli.render import dump_json
    from entrypoints.cli.subject import cli_subject, who_you_are
    from entrypoints.responses import ApprovalResponse

    # the run goes on in a thread of this process until its next gate or its end, which a
    # Ctrl-C, SIGTERM or SIGHUP aborts as it does `wfx run`'s; or in a worker
    container = context.container(runner_mode="detached" if no_wait else "thread")
    with named_as_given({"approval_id": "APPROVAL_ID", "reason": "--reason"}):
        command = DecideApprovalCommand(
            approval_id=approval_id, decision=decision, reason=reason, subject=cli_subject()
        )
        try:
            decided = container.decide_approval().execute(command)
        except NotAnApproverError as refused:
            raise NotAnApproverError(f"{refused}; {who_you_are()}") from None
    if not no_wait:
        _carry_on(container, decided.workflow_execution_id, json_output)
    if json_output:
        context.echo(dump_json(ApprovalResponse.of(decided).dump()))
        return
    context.echo(redact(describe(decided)))
    if not no_wait:
        from application.use_cases.get_execution import GetExecutionQuery

        query = GetExecutionQuery(workflow_execution_id=decided.workflow_execution_id)
        execution = container.get_execution().execute(query)
        context.echo(f"{execution.workflow_execution_id} {execution.status.value}")


def _carry_on(container: Container, execution_id: str, json_output: bool) -> None:
    """Until the run this process resumed (none: its runner never left) parks or ends."""
    from entrypoints.cli.interrupts import aborting_on_signals

    runner = container.local_runner()

    def ended() -> None:
        while not runner.join(execution_id, timeout=1.0):
            pass

    aborting_on_signals(container, execution_id, ended, json_output)


@approvals_app.command("approve")
def approvals_approve(
    approval_id: Annotated[str, typer.Argument(metavar="APPROVAL_ID")],
    reason: Reason = "",
    no_wait: NoWait = False,
    json_output: JsonFlag = False,
) -> None:
    """Approve a gate you are an approver of: its run goes on (here, unless --no-wait)."""
    from domain.approvals import Decision

    _decide(approval_id, Decision.APPROVE, reason, no_wait, json_output)


@approvals_app.command("reject")
def approvals_reject(
    approval_id: Annotated[str, typer.Argument(metavar="APPROVAL_ID")],
    reason: Annotated[
        str, typer.Option("--reason", metavar="TEXT", help="Why: required, kept with it.")
    ],
    no_wait: NoWait = False,
    json_output: JsonFlag = False,
) -> None:
    """Reject a gate you are an approver of: its step and run fail with your reason."""
    from domain.approvals import Decision

    _decide(approval_id, Decision.REJECT, reason, no_wait, json_output)
