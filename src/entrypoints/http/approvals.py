"""The approval routes: the gates runs wait at, and a listed approver's decision."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from domain.approvals import MAX_REASON_CHARS, Decision
from domain.control_characters import FREE_TEXT_KEEPS
from entrypoints.http.dependencies import App, Caller
from entrypoints.http.errors import ERROR_RESPONSES
from entrypoints.http.lazy_route import BuiltOnFirstUse, ModelIn
from entrypoints.http.requests import no_control_character

# imported by a route's first use, as its use case (entrypoints.http.executions says why)
SHARED = "entrypoints.responses"
router = APIRouter(tags=["approvals"], responses=ERROR_RESPONSES, route_class=BuiltOnFirstUse)


APPROVALS = "/approvals"
ONE_APPROVAL = APPROVALS + "/{approvalId}"
ApprovalId = Annotated[str, Path(alias="approvalId", min_length=1, max_length=256)]


class DecisionRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    decision: Decision
    reason: Annotated[str, no_control_character(FREE_TEXT_KEEPS)] = Field(
        default="", max_length=MAX_REASON_CHARS
    )


@router.get(
    APPROVALS,
    response_model=ModelIn(SHARED, "ApprovalPageResponse"),
    summary="Approval requests, newest first (only the pending ones with pending=true)",
)
def list_approvals(
    wfx: App,
    caller: Caller,
    pending: bool = False,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    starting_token: Annotated[
        str | None, Query(alias="startingToken", min_length=1, max_length=2048)
    ] = None,
    execution: Annotated[str | None, Query(min_length=1, max_length=512)] = None,
) -> JSONResponse:
    """The requests of runs the caller may read, and those it is an approver of."""
    from application.use_cases.approvals import ListApprovalsQuery
    from entrypoints.responses import ApprovalPageResponse

    query = ListApprovalsQuery(
        subject=caller.subject,
        pending_only=pending,
        limit=limit,
        starting_token=starting_token,
        workflow_execution_id=execution,
    )
    page = wfx.list_approvals().execute(query)
    return JSONResponse(ApprovalPageResponse.of(page).dump())


@router.get(
    ONE_APPROVAL, response_model=ModelIn(SHARED, "ApprovalResponse"), summary="One approval request"
)
def get_approval(wfx: App, caller: Caller, approval_id: ApprovalId) -> JSONResponse:
    from application.use_cases.approvals import GetApprovalQuery
    from entrypoints.responses import ApprovalResponse

    query = GetApprovalQuery(approval_id=approval_id, subject=caller.subject, route=caller.route)
    return JSONResponse(ApprovalResponse.of(wfx.get_approval().execute(query)).dump())


@router.post(
    ONE_APPROVAL + "/decision",
    response_model=ModelIn(SHARED, "ApprovalResponse"),
    summary="Approve or reject a gate (only its approvers; the admin role does not bypass it)",
)
def decide_approval(
    wfx: App, caller: Caller, approval_id: ApprovalId, body: DecisionRequest
) -> JSONResponse:
    """Records who decided, when and why; an approved run goes on, a rejected one fails with
    the reason. 409 once the request is closed (decided, timed out, or its run ended)."""
    from application.use_cases.approvals import DecideApprovalCommand
    from entrypoints.responses import ApprovalResponse

    command = DecideApprovalCommand(
        approval_id=approval_id, decision=body.decision, reason=body.reason, subject=caller.subject
    )
    return JSONResponse(ApprovalResponse.of(wfx.decide_approval().execute(command)).dump())
