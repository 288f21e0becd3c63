"""VAMS's rerun route: a new execution rebuilt from the stored records of one that has ended.

VAMS's body (`executionGroupId`, optional; other keys ignored, as VAMS ignores them) and answer
(200 `{"message": {"executionId", "executionGroupId", "warnings"}}`, its execute answer). wfx adds
an optional `clientToken`, the launch's idempotency token.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Path
from fastapi.responses import JSONResponse
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from domain.assets import AssetRef
from domain.authorization import Action, AssetKey
from domain.registration import ID_RULE
from entrypoints.http.dependencies import App, Caller
from entrypoints.http.errors import ERROR_RESPONSES
from entrypoints.http.lazy_route import BuiltOnFirstUse
from entrypoints.http.requests import ClientToken
from entrypoints.http.route_table import EXECUTE, RERUN

router = APIRouter(tags=["executions"], responses=ERROR_RESPONSES, route_class=BuiltOnFirstUse)

ExecutionId = Annotated[str, Path(alias="executionId", min_length=1, max_length=256)]


def _vams_id(value: str) -> str:
    if not ID_RULE.allows(value):
        raise ValueError(f"must be {ID_RULE.text}")
    return value


class RerunRequest(BaseModel):
    """POST /workflows/executions/{executionId}/rerun."""

    model_config = ConfigDict(
        frozen=True,
        extra="ignore",
        alias_generator=to_camel,
        populate_by_name=True,
        defer_build=True,  # built by the first rerun: not a cold start's price
    )

    execution_group_id: Annotated[str, Field(max_length=64), AfterValidator(_vams_id)] | None = (
        Field(default=None, description="Put the new execution in this group (default: none).")
    )
    client_token: ClientToken | None = Field(
        default=None,
        description="wfx: the launch's idempotency token (a retry with it answers the same run).",
    )


class RerunStarted(BaseModel):
    model_config = ConfigDict(
        frozen=True, alias_generator=to_camel, populate_by_name=True, defer_build=True
    )

    execution_id: str
    execution_group_id: str | None
    warnings: list[str] | None


class RerunResponse(BaseModel):
    message: RerunStarted


@router.post(
    RERUN,
    response_model=RerunResponse,
    summary="Rerun an ended execution: a new execution with the same inputs and output",
)
def rerun_execution(
    wfx: App,
    caller: Caller,
    execution_id: ExecutionId,
    body: Annotated[RerunRequest | None, Body()] = None,
) -> JSONResponse:
    """The caller must be able to read the run, and to launch what the rerun launches: tier 1
    on the run's workflow's execute route (POST), as VAMS asks; POST on the workflow and each
    input asset, PUT on the output asset. A run not ended is a 409."""
    from application.use_cases.rerun_execution import RerunExecutionCommand

    access = wfx.access_control()
    access.require_execution_access(caller.subject, execution_id, Action.GET, caller.route)
    request = body or RerunRequest()
    rerun = wfx.rerun_execution()
    launch = rerun.plan(
        RerunExecutionCommand(
            workflow_execution_id=execution_id,
            execution_group_id=request.execution_group_id,
            user_id=caller.subject.user_id,
            client_token=request.client_token,
        )
    )
    execute = EXECUTE.replace("{workflowDatabaseId}", launch.workflow_database_id).replace(
        "{workflowId}", launch.workflow_id
    )
    access.require_route(caller.subject, execute, Action.POST)
    access.require_launch(
        caller.subject,
        launch.workflow_database_id,
        launch.workflow_id,
        tuple(_asset(selection) for selection in launch.inputs),
        None if launch.output is None else _asset(launch.output),
        caller.route,
    )
    execution = wfx.launch_execution().execute(launch).execution
    started = RerunStarted(
        execution_id=execution.workflow_execution_id,
        execution_group_id=execution.execution_group_id,
        warnings=None,
    )
    return JSONResponse(RerunResponse(message=started).model_dump(mode="json", by_alias=True))


def _asset(selection: str) -> AssetKey:
    ref = AssetRef.parse(selection, "inputs")
    return AssetKey(database_id=ref.database_id, asset_id=ref.asset_id)
