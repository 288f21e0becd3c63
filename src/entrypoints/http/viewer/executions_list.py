"""`/`: the executions list - the JSON list's filters, rules and errors, newest first, a page at
a time - and its table alone (`/fragments/executions`), which the page polls while a listed run
is still open."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Query
from fastapi.responses import Response
from pydantic import ValidationError

from application.use_cases.list_executions import ListExecutionsQuery
from application.use_cases.list_readable_executions import ListReadableExecutionsQuery
from application.validation_messages import describe_validation_error
from domain.errors import DomainError
from domain.statuses import ExecutionStatus
from entrypoints.http.errors import status_of
from entrypoints.http.executions import paired, read_outputs
from entrypoints.http.route_table import EXECUTIONS
from entrypoints.http.viewer.rendering import TERMINAL, render
from entrypoints.http.viewer.visit import Viewer
from entrypoints.vams_execution_list import ExecutionList

router = APIRouter(include_in_schema=False)

PAGE_SIZE = 25
Text = Annotated[str | None, Query(max_length=256)]
Token = Annotated[str | None, Query(alias="startingToken", max_length=4096)]
STATUSES = tuple(status.value for status in ExecutionStatus)


def _given(value: str | None) -> str | None:
    # an empty form field is a filter not given, as a query parameter left out is
    if value is None or not value.strip():
        return None
    return value.strip()


def _filters(**values: str | None) -> dict[str, str | None]:
    return {name: _given(value) for name, value in values.items()}


def _listing(page: Viewer, filters: dict[str, str | None], token: str | None) -> dict[str, Any]:
    """The page's context: the rows, or the JSON list's own message for a bad filter."""
    f = filters
    context: dict[str, Any] = {"filters": f, "statuses": STATUSES, "items": [], "problem": None}
    context["next_query"], context["open"] = None, False
    context["fragment_query"] = urlencode({k: v for k, v in f.items() if v is not None})
    try:
        query = ListExecutionsQuery(
            workflow=paired(
                "workflowDatabaseId", "workflowId", (f["workflowDatabaseId"], f["workflowId"])
            ),
            group=f["executionGroupId"],
            asset=paired("databaseId", "assetId", (f["databaseId"], f["assetId"])),
            direction=f["direction"],
            status=f["status"],
            limit=PAGE_SIZE,
            starting_token=_given(token),
        )
        listed = page.wfx.list_readable_executions().execute(
            ListReadableExecutionsQuery(subject=page.subject, listing=query)
        )
    except ValidationError as error:
        context["problem"], context["status_code"] = describe_validation_error(error), 400
        return context
    except DomainError as error:
        if status_of(error) != 400:
            raise
        context["problem"], context["status_code"] = str(error), 400
        return context
    # the list route's own document (its rows, its NextToken): the page shows what the API says
    answer = ExecutionList.of(listed, read_outputs(page.wfx, listed)).dump()
    context["items"] = answer["Items"]
    if answer.get("NextToken"):
        more = {k: v for k, v in f.items() if v is not None} | {
            "startingToken": answer["NextToken"]
        }
        context["next_query"] = urlencode(more)
    if token:
        context["fragment_query"] = urlencode(
            {k: v for k, v in f.items() if v is not None} | {"startingToken": token}
        )
    context["open"] = any(item["executionStatus"] not in TERMINAL for item in context["items"])
    context["status_code"] = 200
    return context


def _query_filters(
    workflow_database_id: Annotated[Text, Query(alias="workflowDatabaseId")] = None,
    workflow_id: Annotated[Text, Query(alias="workflowId")] = None,
    execution_group_id: Annotated[Text, Query(alias="executionGroupId")] = None,
    database_id: Annotated[Text, Query(alias="databaseId")] = None,
    asset_id: Annotated[Text, Query(alias="assetId")] = None,
    direction: Text = None,
    status: Text = None,
) -> dict[str, str | None]:
    """The list's filters as the page and its refreshed fragment both take them."""
    return _filters(
        workflowDatabaseId=workflow_database_id,
        workflowId=workflow_id,
        executionGroupId=execution_group_id,
        databaseId=database_id,
        assetId=asset_id,
        direction=direction,
        status=status,
    )


Filters = Annotated[dict[str, str | None], Depends(_query_filters)]


@router.get("/")
def executions_page(page: Viewer, filters: Filters, starting_token: Token = None) -> Response:
    if page.session is None:
        return render(page.request, "login_help.html", status_code=401, message=page.session_ended)
    page.require_route(EXECUTIONS)
    context = _listing(page, filters, starting_token)
    return render(page.request, "executions.html", **context)


@router.get("/fragments/executions")
def executions_table(page: Viewer, filters: Filters, starting_token: Token = None) -> Response:
    page.require_route(EXECUTIONS)
    context = _listing(page, filters, starting_token)
    return render(page.request, "_executions_table.html", **context)
