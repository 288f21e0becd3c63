"""The cost route: summaries of the ledger, for one execution (tier 2 on it) or any wider scope
(counting only the runs the caller may read)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from entrypoints.http.dependencies import App, Caller
from entrypoints.http.errors import ERROR_RESPONSES
from entrypoints.http.lazy_route import BuiltOnFirstUse, ModelIn

router = APIRouter(tags=["costs"], responses=ERROR_RESPONSES, route_class=BuiltOnFirstUse)

Id = Annotated[str | None, Query(min_length=1, max_length=512)]


@router.get(
    "/costs",
    response_model=ModelIn("entrypoints.cost_responses", "CostSummaryResponse"),
    summary="Cost totals per currency, estimate and actual apart (superseded entries left out)",
)
def cost_summary(
    wfx: App,
    caller: Caller,
    execution: Id = None,
    workflow: Annotated[Id, Query(description="DATABASE_ID/WORKFLOW_ID")] = None,
    group: Id = None,
    asset: Annotated[Id, Query(description="DATABASE_ID/ASSET_ID")] = None,
    by: Literal["day"] | None = None,
) -> JSONResponse:
    # imported by the route's first use (entrypoints.http.executions says why)
    from application.use_cases.summarize_costs import SummarizeCostsQuery
    from entrypoints.cost_responses import CostSummaryResponse
    from entrypoints.cost_scope import summary_scope

    scope, key = summary_scope(execution, workflow, group, asset)
    query = SummarizeCostsQuery(
        scope=scope, key=key, by_day=by == "day", subject=caller.subject, route=caller.route
    )
    result = wfx.summarize_costs().execute(query)
    return JSONResponse(CostSummaryResponse.of(result).dump())
