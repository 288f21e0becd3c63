"""`/catalog`: the workflows the caller may read; `/catalog/{db}/{workflow}`: one with its
versions and a version's steps."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from fastapi.responses import Response

from application.use_cases.list_workflows import ListWorkflowsQuery
from application.use_cases.show_workflow import ShowWorkflowQuery
from domain.authorization import Action
from domain.bounds import MAX_STORED_INTEGER
from entrypoints.http.viewer.rendering import render
from entrypoints.http.viewer.visit import Viewer
from entrypoints.responses import WorkflowDefinitionPageResponse, WorkflowResponse

router = APIRouter(include_in_schema=False)

Name = Annotated[str, Path(min_length=1, max_length=256)]
Token = Annotated[str | None, Query(alias="startingToken", min_length=1, max_length=4096)]


@router.get("/catalog")
def workflows(page: Viewer, starting_token: Token = None) -> Response:
    page.require_route("/workflows")
    query = ListWorkflowsQuery(limit=50, starting_token=starting_token)
    listed = page.wfx.list_readable_workflows().execute(page.subject, query)
    answer = WorkflowDefinitionPageResponse.of(listed).dump()
    return render(
        page.request, "workflows.html", items=answer["Items"], next_token=answer.get("NextToken")
    )


@router.get("/catalog/{database_id}/{workflow_id}")
def workflow(
    page: Viewer,
    database_id: Name,
    workflow_id: Name,
    version: Annotated[int | None, Query(ge=1, le=MAX_STORED_INTEGER)] = None,
) -> Response:
    route = f"/database/{database_id}/workflows/{workflow_id}"
    page.require_route(route)
    page.wfx.access_control().require_workflow(
        page.subject, database_id, workflow_id, Action.GET, route
    )
    query = ShowWorkflowQuery(
        database_id=database_id, workflow_id=workflow_id, version=version, limit=50
    )
    shown = WorkflowResponse.of_view(page.wfx.show_workflow().execute(query)).dump()
    return render(page.request, "workflow.html", workflow=shown)
