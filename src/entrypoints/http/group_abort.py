"""VAMS's `DELETE /workflows/executions/{executionId}?groupId=`: abort every open run of a group.

Each member is authorized as a single abort is, before anything of it is shown: a member the
caller may not abort is counted, never named (its id would tell of another user's run). Aborts
are bounded per request; `moreRemaining` asks the caller to send the request again.
"""

from __future__ import annotations

from application.use_cases.abort_execution import AbortExecutionCommand
from application.use_cases.list_executions import MAX_PAGE_SIZE, ListExecutionsQuery
from domain.errors import DomainError, NotAuthorizedError, NotFoundError
from domain.execution import WorkflowExecution
from domain.run import DEFAULT_ABORT_CAUSE
from entrypoints.container import Container
from entrypoints.http.dependencies import Requester
from entrypoints.vams_responses import GroupAbort, GroupMemberOutcome

MAX_GROUP_ABORT_PER_REQUEST = 200


def _members(wfx: Container, group_id: str) -> list[WorkflowExecution]:
    members: list[WorkflowExecution] = []
    token: str | None = None
    while True:
        query = ListExecutionsQuery(group=group_id, limit=MAX_PAGE_SIZE, starting_token=token)
        page = wfx.list_executions().execute(query)
        members.extend(page.items)
        if page.next_token is None:
            return members
        token = page.next_token


def abort_group(wfx: Container, caller: Requester, group_id: str) -> GroupAbort:
    members = _members(wfx, group_id)
    if not members:
        raise NotFoundError("No executions found for group")
    access, abort = wfx.access_control(), wfx.abort_execution()
    results: list[GroupMemberOutcome] = []
    hidden = aborted = 0
    more = False
    for member in members:
        execution_id = member.workflow_execution_id
        try:
            access.require_abort(caller.subject, execution_id, caller.route)
        except (NotAuthorizedError, NotFoundError):
            hidden += 1
            continue
        if member.is_terminal:
            results.append(GroupMemberOutcome(execution_id=execution_id, status="skipped-terminal"))
            continue
        if aborted == MAX_GROUP_ABORT_PER_REQUEST:
            more = True
            break
        aborted += 1
        command = AbortExecutionCommand(
            workflow_execution_id=execution_id, cause=DEFAULT_ABORT_CAUSE
        )
        try:
            abort.execute(command)
        except DomainError:
            results.append(GroupMemberOutcome(execution_id=execution_id, status="error"))
            continue
        results.append(GroupMemberOutcome(execution_id=execution_id, status="aborted"))
    return GroupAbort(
        group_id=group_id,
        results=tuple(results),
        skipped_inaccessible_count=hidden or None,
        more_remaining=more or None,
    )
