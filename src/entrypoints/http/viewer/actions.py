"""The forms that write: abort, redrive and an approval decision. Each is a POST carrying the
session's CSRF token (checked before anything else) and, for abort and redrive, a ticked
confirmation; then the JSON route's own tier 1 and tier 2 checks and its use case."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Path
from fastapi.responses import RedirectResponse, Response

from application.use_cases.abort_execution import AbortExecutionCommand
from application.use_cases.approvals import DecideApprovalCommand
from application.use_cases.redrive_execution import RedriveExecutionCommand
from domain.approvals import MAX_REASON_CHARS, Decision
from domain.authorization import Action
from domain.run import DEFAULT_ABORT_CAUSE
from entrypoints.http.route_table import EXECUTIONS
from entrypoints.http.viewer.rendering import SECURITY_HEADERS, render
from entrypoints.http.viewer.visit import Viewer, Visit

router = APIRouter(include_in_schema=False)

ExecutionId = Annotated[str, Path(min_length=1, max_length=256)]
Csrf = Annotated[str | None, Form(max_length=256)]
Confirmed = Annotated[str | None, Form(max_length=16)]


def _back_to(execution_id: str) -> Response:
    # 303: the browser follows with a GET, so a reload never repeats the write
    return RedirectResponse(
        f"/executions/{execution_id}", status_code=303, headers=SECURITY_HEADERS
    )


def _unconfirmed(page: Visit, execution_id: str, what: str) -> Response:
    return render(
        page.request,
        "confirm.html",
        status_code=400,
        execution_id=execution_id,
        what=what,
        message=f"tick “Yes, {what} this run” to {what} it",
    )


def _authorized(page: Visit, execution_id: str, verb: str) -> str:
    route = f"{EXECUTIONS}/{execution_id}/{verb}"
    page.require_route(route, Action.POST)
    access = page.wfx.access_control()
    if verb == "abort":
        access.require_abort(page.subject, execution_id, route)
    else:
        access.require_execution_access(page.subject, execution_id, Action.POST, route)
    return route


@router.post("/executions/{execution_id}/abort")
def abort(
    page: Viewer,
    execution_id: ExecutionId,
    csrf: Csrf = None,
    confirmed: Confirmed = None,
    cause: Annotated[str | None, Form(max_length=1000)] = None,
) -> Response:
    page.require_csrf(csrf)
    if confirmed != "yes":
        return _unconfirmed(page, execution_id, "abort")
    _authorized(page, execution_id, "abort")
    command = AbortExecutionCommand(
        workflow_execution_id=execution_id, cause=(cause or "").strip() or DEFAULT_ABORT_CAUSE
    )
    page.wfx.abort_execution().execute(command)
    return _back_to(execution_id)


@router.post("/executions/{execution_id}/redrive")
def redrive(
    page: Viewer, execution_id: ExecutionId, csrf: Csrf = None, confirmed: Confirmed = None
) -> Response:
    page.require_csrf(csrf)
    if confirmed != "yes":
        return _unconfirmed(page, execution_id, "redrive")
    _authorized(page, execution_id, "redrive")
    page.wfx.redrive_execution().execute(
        RedriveExecutionCommand(workflow_execution_id=execution_id)
    )
    return _back_to(execution_id)


@router.post("/executions/{execution_id}/approvals/{approval_id}")
def decide(
    page: Viewer,
    execution_id: ExecutionId,
    approval_id: Annotated[str, Path(min_length=1, max_length=256)],
    decision: Annotated[Decision, Form()],
    csrf: Csrf = None,
    reason: Annotated[str, Form(max_length=MAX_REASON_CHARS)] = "",
) -> Response:
    page.require_csrf(csrf)
    page.require_route(f"/approvals/{approval_id}/decision", Action.POST)
    command = DecideApprovalCommand(
        approval_id=approval_id, decision=decision, reason=reason.strip(), subject=page.subject
    )
    page.wfx.decide_approval().execute(command)
    return _back_to(execution_id)
