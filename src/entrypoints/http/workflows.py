"""The workflow routes: list the workflow definitions, show one with its versions, publish."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path, Query, Request
from fastapi.responses import JSONResponse

from application.workflow_documents import parse_workflow_document
from domain.authorization import Action
from domain.bounds import MAX_STORED_INTEGER
from domain.errors import InvalidInputError
from domain.workflow import IDENTIFIER_PATTERN
from entrypoints.http.dependencies import App, Caller
from entrypoints.http.errors import ERROR_RESPONSES
from entrypoints.http.lazy_route import BuiltOnFirstUse, ModelIn

# imported by a route's first use, as its use case (entrypoints.http.executions says why)
SHARED = "entrypoints.responses"
router = APIRouter(tags=["workflows"], responses=ERROR_RESPONSES, route_class=BuiltOnFirstUse)

# the identifier rule said here too, so that a refusal names the parameter a client sends
# (`path parameter databaseId`), not the use case's field (`database_id`)
Name = Annotated[str, Path(min_length=1, max_length=256, pattern=IDENTIFIER_PATTERN)]
Token = Annotated[str | None, Query(alias="startingToken", min_length=1, max_length=4096)]
MaxItems = Annotated[int, Query(alias="maxItems", ge=1, le=100)]


@router.get(
    "/workflows",
    response_model=ModelIn(SHARED, "WorkflowDefinitionPageResponse"),
    summary="List workflows",
)
def list_workflows(
    wfx: App,
    caller: Caller,
    database_id: Annotated[
        str | None,
        Query(alias="databaseId", min_length=1, max_length=256, pattern=IDENTIFIER_PATTERN),
    ] = None,
    max_items: MaxItems = 20,
    starting_token: Token = None,
) -> JSONResponse:
    """Each workflow's definition (owner, latest version, created); only those the caller may
    GET."""
    from application.use_cases.list_workflows import ListWorkflowsQuery
    from entrypoints.responses import WorkflowDefinitionPageResponse

    query = ListWorkflowsQuery(
        database_id=database_id, limit=max_items, starting_token=starting_token
    )
    page = wfx.list_readable_workflows().execute(caller.subject, query)
    return JSONResponse(WorkflowDefinitionPageResponse.of(page).dump())


@router.get(
    "/database/{databaseId}/workflows/{workflowId}",
    response_model=ModelIn(SHARED, "WorkflowResponse"),
    summary="A workflow: its definition, a version's steps, its versions newest first",
)
def list_workflow_versions(
    wfx: App,
    caller: Caller,
    database_id: Annotated[Name, Path(alias="databaseId")],
    workflow_id: Annotated[Name, Path(alias="workflowId")],
    version: Annotated[
        int | None, Query(ge=1, le=MAX_STORED_INTEGER, description="Default: the latest.")
    ] = None,
    max_items: MaxItems = 20,
    starting_token: Token = None,
) -> JSONResponse:
    from application.use_cases.show_workflow import ShowWorkflowQuery
    from entrypoints.responses import WorkflowResponse

    wfx.access_control().require_workflow(
        caller.subject, database_id, workflow_id, Action.GET, caller.route
    )
    query = ShowWorkflowQuery(
        database_id=database_id,
        workflow_id=workflow_id,
        version=version,
        limit=max_items,
        starting_token=starting_token,
    )
    return JSONResponse(WorkflowResponse.of_view(wfx.show_workflow().execute(query)).dump())


def _each_key_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise InvalidInputError(f"body: key {key!r} given twice in one object")
        seen.add(key)
    return dict(pairs)


async def _no_key_twice(request: Request) -> None:
    """JSON's reading keeps the last of a key given twice; an author who wrote one twice meant
    one of them, and which is theirs to say (as in a workflow file, entrypoints.cli.workflow_file).
    The body is the one FastAPI read and kept, read again: a publish is rare and at most 1 MiB."""
    try:
        json.loads(await request.body(), object_pairs_hook=_each_key_once)
    except InvalidInputError:
        raise
    except (ValueError, RecursionError):
        return  # what FastAPI's own reading refuses, it refuses in its own words


@router.put(
    "/workflows",
    response_model=ModelIn(SHARED, "WorkflowVersionResponse"),
    summary="Publish a workflow version (an unchanged document reuses the latest)",
    responses={
        201: {"model": ModelIn(SHARED, "WorkflowVersionResponse"), "description": "A new version."}
    },
)
def publish_workflow(
    wfx: App,
    caller: Caller,
    document: Annotated[dict[str, Any], Body(description="The workflow document, as its YAML.")],
    _: Annotated[None, Depends(_no_key_twice)],
) -> JSONResponse:
    from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
    from entrypoints.responses import WorkflowVersionResponse

    parsed = parse_workflow_document(document)
    wfx.access_control().require_publish(caller.subject, parsed, caller.route)
    command = PublishWorkflowVersionCommand(document=parsed, published_by=caller.subject.user_id)
    result = wfx.publish_workflow_version().execute(command)
    answer = WorkflowVersionResponse.of(
        result.version, created=result.created, warnings=result.warnings
    )
    return JSONResponse(answer.dump(), status_code=201 if result.created else 200)
