"""The execution routes of seed 000 and VAMS 2.6: list, launch, read, logs, abort, redrive, delete.

Each route is the same few lines: tier 1 has let the caller through (`Caller`), tier 2 checks the
objects the route touches, the use case runs, its result leaves as the shared response model.
A route imports its use case and its response model when it is first used (`ModelIn`, imports in
the route): a Lambda's cold start answers one route and pays for that one's alone.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Body, Depends, Path, Query
from fastapi.responses import JSONResponse

from application.use_cases.get_execution_events import MAX_EVENTS_PER_PAGE
from application.use_cases.list_executions import ListExecutionsQuery
from application.use_cases.list_readable_executions import ListReadableExecutionsQuery
from domain.authorization import Action, AssetKey
from domain.bounds import MAX_STORED_INTEGER
from domain.errors import ExecutionNotFoundError, InvalidInputError
from domain.execution import WorkflowExecution
from domain.paging import Page
from domain.run import DEFAULT_ABORT_CAUSE
from entrypoints.http.dependencies import App, Caller
from entrypoints.http.errors import ERROR_RESPONSES
from entrypoints.http.lazy_route import BuiltOnFirstUse, ModelIn
from entrypoints.http.list_parameters import ListParameters, list_parameters
from entrypoints.http.requests import (
    AbortRequest,
    ExecuteRequest,
    LaunchRequest,
    PermanentDeleteRequest,
    VamsAbortRequest,
)
from entrypoints.http.route_table import ASSET_EXECUTIONS, EXECUTE, EXECUTIONS, ONE_EXECUTION
from entrypoints.vams_execution_list import (
    AssetExecutionList,
    AssetExecutionListAnswer,
    ExecutionAnswer,
    ExecutionList,
    ExecutionListAnswer,
    ExecutionRow,
)
from entrypoints.vams_responses import (
    ABORTED_MESSAGE,
    DELETED_MESSAGE,
    GroupAbortResponse,
    LaunchAnswer,
    Launched,
    MessageResponse,
)

SHARED = "entrypoints.responses"  # the response models the CLI and the Python API answer too
ENVELOPES = "entrypoints.vams_envelopes"  # VAMS's {"message": ...} around two of them
router = APIRouter(tags=["executions"], responses=ERROR_RESPONSES, route_class=BuiltOnFirstUse)

ExecutionId = Annotated[str, Path(alias="executionId", min_length=1, max_length=256)]
Text = Annotated[str | None, Query(min_length=1, max_length=256)]
Token = Annotated[str | None, Query(min_length=1, max_length=4096)]
Listing = Annotated[ListParameters, Depends(list_parameters)]
# up to 9999-12-31T23:59:59.999Z, the last moment a date holds
EpochMilliseconds = Annotated[int | None, Query(ge=0, le=253_402_300_799_999)]
MAX_METADATA_PAGE = 500  # VAMS's ceiling on a details/metadata page
MAX_LOG_LINES = 1000  # VAMS's ceiling on the events of one read


def paired(first: str, second: str, values: tuple[str | None, str | None]) -> str | None:
    """Two query parameters that name one thing together, as `DATABASE_ID/ID`."""
    given = [value is not None for value in values]
    if any(given) and not all(given):
        missing = second if values[0] is not None else first
        raise InvalidInputError(f"{missing}: required together with {first} / {second}")
    return None if values[0] is None else f"{values[0]}/{values[1]}"


@router.get(EXECUTIONS, response_model=ExecutionListAnswer, summary="List executions (VAMS)")
def list_executions(
    wfx: App,
    caller: Caller,
    listing: Listing,
    workflow_database_id: Annotated[Text, Query(alias="workflowDatabaseId")] = None,
    workflow_id: Annotated[Text, Query(alias="workflowId")] = None,
    database_id: Annotated[Text, Query(alias="databaseId")] = None,
    asset_id: Annotated[Text, Query(alias="assetId")] = None,
    direction: Annotated[Literal["read", "wrote", "both"] | None, Query()] = None,
) -> JSONResponse:
    """Newest first, within the start-date window (entrypoints.http.list_parameters). Only the
    runs the caller may read are listed, and a page is still full."""
    both = workflow_database_id is not None and workflow_id is not None
    query = listing.query(
        wfx.clock(),
        workflow=f"{workflow_database_id}/{workflow_id}" if both else None,
        workflow_database_id=None if both else workflow_database_id,
        workflow_id=None if both else workflow_id,
        asset=paired("databaseId", "assetId", (database_id, asset_id)),
        direction=direction,
    )
    page = _readable_page(wfx, caller, query)
    answer = ExecutionListAnswer(
        message=ExecutionList.of(page, read_outputs(wfx, page), listing.echo(wfx.clock()))
    )
    return JSONResponse(answer.dump())


@router.get(
    ASSET_EXECUTIONS,
    response_model=AssetExecutionListAnswer,
    summary="List the executions that read or wrote an asset (VAMS)",
)
def list_asset_executions(
    wfx: App,
    caller: Caller,
    listing: Listing,
    database_id: Annotated[str, Path(alias="databaseId", min_length=1, max_length=256)],
    asset_id: Annotated[str, Path(alias="assetId", min_length=1, max_length=256)],
    workflow_database_id: Annotated[Text, Query(alias="workflowDatabaseId")] = None,
) -> JSONResponse:
    """Both directions, each run once, newest first; the other filters as the global list's."""
    return _asset_page(wfx, caller, listing, database_id, asset_id, workflow_database_id, None)


@router.get(
    ASSET_EXECUTIONS + "/{workflowId}",
    response_model=AssetExecutionListAnswer,
    summary="List one workflow's executions that read or wrote an asset (VAMS)",
)
def list_asset_workflow_executions(
    wfx: App,
    caller: Caller,
    listing: Listing,
    database_id: Annotated[str, Path(alias="databaseId", min_length=1, max_length=256)],
    asset_id: Annotated[str, Path(alias="assetId", min_length=1, max_length=256)],
    workflow_id: Annotated[str, Path(alias="workflowId", min_length=1, max_length=256)],
    workflow_database_id: Annotated[Text, Query(alias="workflowDatabaseId")] = None,
) -> JSONResponse:
    return _asset_page(
        wfx, caller, listing, database_id, asset_id, workflow_database_id, workflow_id
    )


def _asset_page(
    wfx: App,
    caller: Caller,
    listing: ListParameters,
    database_id: str,
    asset_id: str,
    workflow_database_id: str | None,
    workflow_id: str | None,
) -> JSONResponse:
    both = workflow_database_id is not None and workflow_id is not None
    query = listing.query(
        wfx.clock(),
        asset=f"{database_id}/{asset_id}",
        workflow=f"{workflow_database_id}/{workflow_id}" if both else None,
        workflow_database_id=None if both else workflow_database_id,
        workflow_id=None if both else workflow_id,
    )
    page = _readable_page(wfx, caller, query)
    asset = AssetKey(database_id=database_id, asset_id=asset_id)
    ids = [e.workflow_execution_id for e in page.items]
    keys = wfx.read_asset_input_keys().execute(asset, ids)
    listed = AssetExecutionList.on_asset(
        page, read_outputs(wfx, page), asset, keys, listing.echo(wfx.clock())
    )
    return JSONResponse(AssetExecutionListAnswer(message=listed).dump())


def _readable_page(wfx: App, caller: Caller, query: ListExecutionsQuery) -> Page[WorkflowExecution]:
    return wfx.list_readable_executions().execute(
        ListReadableExecutionsQuery(subject=caller.subject, listing=query)
    )


def _require_execution(
    wfx: App, caller: Caller, execution_id: str, action: Action = Action.GET
) -> None:
    """Tier 2 on the run (seed 000 authorize_execution_access), before the route reads it."""
    wfx.access_control().require_execution_access(
        caller.subject, execution_id, action, caller.route
    )


def read_outputs(wfx: App, page: Page[WorkflowExecution]) -> dict[str, AssetKey | None]:
    """Each listed run's output asset, as VAMS's rows name it: one read for the page."""
    return wfx.read_output_targets().execute([e.workflow_execution_id for e in page.items])


@router.post(
    EXECUTIONS,
    response_model=ModelIn(SHARED, "ExecutionResponse"),
    status_code=201,
    summary="Launch an execution",
    responses={
        200: {
            "model": ModelIn(SHARED, "ExecutionResponse"),
            "description": "A retry with the same token.",
        }
    },
)
def launch_execution(wfx: App, caller: Caller, body: LaunchRequest) -> JSONResponse:
    """A `fileUpload` launch is attributed to SYSTEM_USER; the caller still needs POST on the
    workflow and each input asset, and PUT on the output asset."""
    from application.use_cases.launch_execution import LaunchExecutionCommand
    from entrypoints.responses import ExecutionResponse

    wfx.access_control().require_launch(
        caller.subject,
        body.workflow_database_id,
        body.workflow_id,
        tuple(AssetKey(database_id=i.database_id, asset_id=i.asset_id) for i in body.inputs),
        None
        if body.output_asset is None
        else AssetKey(
            database_id=body.output_asset.database_id, asset_id=body.output_asset.asset_id
        ),
        caller.route,
    )
    output = body.output_asset
    command = LaunchExecutionCommand(
        workflow_database_id=body.workflow_database_id,
        workflow_id=body.workflow_id,
        workflow_version=body.workflow_version,
        inputs=tuple(i.reference for i in body.inputs),
        output=None if output is None else f"{output.database_id}/{output.asset_id}",
        execution_group_id=body.execution_group_id,
        trigger=body.trigger_type,
        user_id=caller.subject.user_id,
        client_token=body.client_token,
    )
    result = wfx.launch_execution().execute(command)
    status = 201 if result.created else 200
    return JSONResponse(ExecutionResponse.of(result.execution).dump(), status_code=status)


@router.post(
    EXECUTE,
    response_model=LaunchAnswer,
    summary="Launch an execution of a workflow (VAMS's execute)",
)
def execute_workflow(
    wfx: App,
    caller: Caller,
    workflow_database_id: Annotated[
        str, Path(alias="workflowDatabaseId", min_length=1, max_length=256)
    ],
    workflow_id: Annotated[str, Path(alias="workflowId", min_length=1, max_length=256)],
    body: ExecuteRequest,
) -> JSONResponse:
    """Authorized as the launch above; answers VAMS's `{"message": {"executionId", ...}}`."""
    from application.use_cases.launch_execution import LaunchExecutionCommand

    output = body.output
    wfx.access_control().require_launch(
        caller.subject,
        workflow_database_id,
        workflow_id,
        tuple(AssetKey(database_id=i.database_id, asset_id=i.asset_id) for i in body.input_files),
        None if output is None else AssetKey(database_id=output[0], asset_id=output[1]),
        caller.route,
    )
    command = LaunchExecutionCommand(
        workflow_database_id=workflow_database_id,
        workflow_id=workflow_id,
        inputs=tuple(i.reference for i in body.input_files),
        output=None if output is None else "/".join(output),
        execution_group_id=body.execution_group_id or None,
        trigger=body.trigger,
        user_id=caller.subject.user_id,
    )
    execution = wfx.launch_execution().execute(command).execution
    answer = LaunchAnswer(
        message=Launched(
            execution_id=execution.workflow_execution_id,
            execution_group_id=execution.execution_group_id,
        )
    )
    return JSONResponse(answer.model_dump(mode="json", by_alias=True))


@router.get(
    ONE_EXECUTION,
    response_model=ExecutionAnswer,
    summary="Get an execution: its list row, in VAMS's envelope",
)
def get_execution(wfx: App, caller: Caller, execution_id: ExecutionId) -> JSONResponse:
    from application.use_cases.get_execution import GetExecutionQuery

    _require_execution(wfx, caller, execution_id)
    execution = wfx.get_execution().execute(GetExecutionQuery(workflow_execution_id=execution_id))
    output = wfx.read_output_targets().execute([execution_id]).get(execution_id)
    return JSONResponse(ExecutionAnswer(message=ExecutionRow.of(execution, output)).dump())


@router.get(
    ONE_EXECUTION + "/details",
    response_model=ModelIn("entrypoints.vams_details", "VamsDetailsAnswer"),
    summary="Every record of an execution, each collection bounded (VAMS's details)",
)
def get_execution_details(
    wfx: App,
    caller: Caller,
    execution_id: ExecutionId,
    include_sub_executions: Annotated[bool, Query(alias="includeSubExecutions")] = False,
) -> JSONResponse:
    from application.use_cases.get_execution_details import GetExecutionDetailsQuery
    from entrypoints.vams_details import VamsDetailsAnswer

    _require_execution(wfx, caller, execution_id)
    query = GetExecutionDetailsQuery(
        workflow_execution_id=execution_id, include_sub_executions=include_sub_executions
    )
    details = wfx.get_execution_details().execute(query)
    answer = VamsDetailsAnswer.of(details, with_sub_executions=include_sub_executions)
    return JSONResponse(answer.dump())


@router.get(
    ONE_EXECUTION + "/details/metadata",
    response_model=ModelIn(ENVELOPES, "MetadataPageAnswer"),
    summary="Page one collection of the details (the rest of one the details bounded)",
)
def get_execution_metadata(
    wfx: App,
    caller: Caller,
    execution_id: ExecutionId,
    collection: Annotated[
        str,
        Query(
            min_length=1,
            max_length=512,
            description="VAMS's input, inputDatabase or output (every step's rows, or those of "
            "pipelineId's steps), or a collection path as truncatedCollectionPages names it: "
            "inputs, pipelineExecutions, pipelineExecutions[ID].outputFiles, ...",
        ),
    ] = "input",
    pipeline_id: Annotated[Text, Query(alias="pipelineId")] = None,
    page_size: Annotated[
        int | None,
        Query(alias="pageSize", ge=1, description=f"At most {MAX_METADATA_PAGE} are served."),
    ] = None,
    max_items: Annotated[int | None, Query(alias="maxItems", ge=1, le=1000)] = None,
    starting_token: Annotated[Token, Query(alias="startingToken")] = None,
    next_token: Annotated[Token, Query(alias="NextToken", description="startingToken")] = None,
) -> JSONResponse:
    from application.use_cases.get_execution_metadata import GetExecutionMetadataQuery
    from entrypoints.metadata_page import MetadataPage
    from entrypoints.vams_envelopes import MetadataPageAnswer

    _require_execution(wfx, caller, execution_id)
    size = min(page_size, MAX_METADATA_PAGE) if page_size is not None else max_items
    query = GetExecutionMetadataQuery(
        workflow_execution_id=execution_id,
        collection=collection,
        pipeline_id=pipeline_id,
        max_items=size or 100,
        starting_token=starting_token or next_token,
    )
    page = wfx.get_execution_metadata().execute(query)
    answer = MetadataPageAnswer(message=MetadataPage.of(page, collection))
    return JSONResponse(answer.dump())


@router.get(
    ONE_EXECUTION + "/events",
    response_model=ModelIn(SHARED, "ExecutionEventsResponse"),
    summary="An execution's event log, oldest first, from a sequence number on",
)
def get_execution_events(
    wfx: App,
    caller: Caller,
    execution_id: ExecutionId,
    after_sequence: Annotated[int, Query(alias="afterSequence", ge=0, le=MAX_STORED_INTEGER)] = 0,
    max_items: Annotated[int, Query(alias="maxItems", ge=1, le=MAX_EVENTS_PER_PAGE)] = 100,
) -> JSONResponse:
    from application.use_cases.get_execution_events import GetExecutionEventsQuery
    from entrypoints.responses import ExecutionEventsResponse

    _require_execution(wfx, caller, execution_id)
    query = GetExecutionEventsQuery(
        workflow_execution_id=execution_id, after_sequence=after_sequence, max_items=max_items
    )
    page = wfx.get_execution_events().execute(query)
    return JSONResponse(ExecutionEventsResponse.of(execution_id, page).dump())


@router.get(
    ONE_EXECUTION + "/logs",
    response_model=ModelIn(ENVELOPES, "LogsAnswer"),
    summary="An execution's logs",
)
def get_execution_logs(
    wfx: App,
    caller: Caller,
    execution_id: ExecutionId,
    log_id: Annotated[str | None, Query(alias="logId", min_length=1, max_length=64)] = None,
    mode: Annotated[Literal["truncated", "summary", "full"], Query()] = "truncated",
    next_token: Annotated[Token, Query(alias="nextToken")] = None,
    pipeline_execution_id: Annotated[Text, Query(alias="pipelineExecutionId")] = None,
    limit: Annotated[
        int, Query(ge=1, description=f"Lines per source; at most {MAX_LOG_LINES} are served.")
    ] = 100,
    start_time: Annotated[EpochMilliseconds, Query(alias="startTime")] = None,
    end_time: Annotated[EpochMilliseconds, Query(alias="endTime")] = None,
    filter_pattern: Annotated[
        str | None,
        Query(alias="filterPattern", min_length=1, max_length=1024, description="Taken literally."),
    ] = None,
) -> JSONResponse:
    """`truncated` (VAMS's name; `summary` is wfx's earlier one): the run's own log, or with
    `pipelineExecutionId` that step's; `full`: every log source (of that step); `logId`: that
    source alone, paged with its `nextToken`. `filterPattern`, `startTime` and `endTime` (epoch
    milliseconds) narrow the lines."""
    from application.use_cases.get_execution_logs import GetExecutionLogsQuery, token_option_named
    from entrypoints.responses import ExecutionLogsResponse
    from entrypoints.vams_envelopes import LogsAnswer

    _require_execution(wfx, caller, execution_id)
    start, end = _epoch(start_time), _epoch(end_time)
    if start is not None and end is not None and end < start:
        raise InvalidInputError("endTime: must not be before startTime")
    # as VAMS: the pattern is one literal text, its quotes dropped
    text = None if filter_pattern is None else filter_pattern.replace('"', "").strip() or None
    query = GetExecutionLogsQuery(
        workflow_execution_id=execution_id,
        log_id=log_id,
        next_token=next_token,
        full=mode == "full",
        limit=min(limit, MAX_LOG_LINES),
        pipeline_execution_id=pipeline_execution_id,
        contains=text,
        start_time=start,
        end_time=end,
    )
    try:
        logs = ExecutionLogsResponse.of(wfx.get_execution_logs().execute(query))
    except InvalidInputError as error:
        raise token_option_named(error, "nextToken") from None
    return JSONResponse(LogsAnswer(message=logs).dump())


def _epoch(milliseconds: int | None) -> datetime | None:
    return None if milliseconds is None else datetime.fromtimestamp(milliseconds / 1000, UTC)


@router.post(
    ONE_EXECUTION + "/abort",
    response_model=ModelIn(SHARED, "AbortResponse"),
    summary="Abort a running execution",
)
def abort_execution(
    wfx: App,
    caller: Caller,
    execution_id: ExecutionId,
    body: Annotated[AbortRequest | None, Body()] = None,
) -> JSONResponse:
    from application.use_cases.abort_execution import AbortExecutionCommand
    from entrypoints.responses import AbortResponse

    wfx.access_control().require_abort(caller.subject, execution_id, caller.route)
    cause = body.cause if body is not None and body.cause is not None else DEFAULT_ABORT_CAUSE
    result = wfx.abort_execution().execute(
        AbortExecutionCommand(workflow_execution_id=execution_id, cause=cause)
    )
    return JSONResponse(AbortResponse.of_abort(result.execution, result.warnings).dump())


@router.post(
    ONE_EXECUTION + "/redrive",
    response_model=ModelIn(SHARED, "ExecutionResponse"),
    summary="Redrive a failed, aborted or timed-out execution",
)
def redrive_execution(wfx: App, caller: Caller, execution_id: ExecutionId) -> JSONResponse:
    from application.use_cases.redrive_execution import RedriveExecutionCommand
    from entrypoints.responses import ExecutionResponse

    _require_execution(wfx, caller, execution_id, Action.POST)
    execution = wfx.redrive_execution().execute(
        RedriveExecutionCommand(workflow_execution_id=execution_id)
    )
    return JSONResponse(ExecutionResponse.of(execution).dump())


@router.get(
    ONE_EXECUTION + "/describe",
    response_model=ModelIn(SHARED, "DescribeResponse"),
    summary="The execution as Step Functions' DescribeExecution describes it (seed 001)",
)
def describe_execution(wfx: App, caller: Caller, execution_id: ExecutionId) -> JSONResponse:
    from application.use_cases.describe_execution import DescribeExecutionQuery
    from entrypoints.responses import DescribeResponse

    _require_execution(wfx, caller, execution_id)
    query = DescribeExecutionQuery(workflow_execution_id=execution_id)
    return JSONResponse(DescribeResponse.of(wfx.describe_execution().execute(query)).dump())


@router.delete(
    ONE_EXECUTION,
    response_model=MessageResponse | GroupAbortResponse,
    summary="Abort a running execution, or with groupId every open execution of the group (VAMS)",
)
def abort_execution_vams(
    wfx: App,
    caller: Caller,
    execution_id: ExecutionId,
    group_id: Annotated[
        Text,
        Query(alias="groupId", description="Abort every open execution of this group instead."),
    ] = None,
    body: Annotated[VamsAbortRequest | None, Body()] = None,
) -> JSONResponse:
    """VAMS's abort: a run that has ended is left as it is (and answered the same way). A body,
    if any, is `{}`: a field in it (a date, `confirmDelete`) is a 400 naming it."""
    from application.use_cases.abort_execution import AbortExecutionCommand
    from entrypoints.http.group_abort import abort_group

    if group_id is not None:
        return JSONResponse(GroupAbortResponse(message=abort_group(wfx, caller, group_id)).dump())
    wfx.access_control().require_abort(caller.subject, execution_id, caller.route)
    result = wfx.abort_execution().execute(
        AbortExecutionCommand(workflow_execution_id=execution_id, cause=DEFAULT_ABORT_CAUSE)
    )
    return JSONResponse(MessageResponse.of(ABORTED_MESSAGE, result.warnings).dump())


@router.delete(
    ONE_EXECUTION + "/permanent",
    response_model=MessageResponse,
    summary="Delete an execution and everything it stored, for good (VAMS)",
)
def delete_execution(
    wfx: App,
    caller: Caller,
    execution_id: ExecutionId,
    body: Annotated[PermanentDeleteRequest | None, Body()] = None,
    force: Annotated[bool, Query(description="Abort a run that has not ended first.")] = False,
) -> JSONResponse:
    """The body must say `{"confirmDelete": true}`. A run that has not ended is refused (409)
    unless `force`; a run that is not there (deleted already) is a 404."""
    from application.use_cases.delete_execution import DeleteExecutionCommand

    if body is None or not body.confirm_delete:
        raise InvalidInputError("confirmDelete must be true to permanently delete an execution")
    wfx.access_control().require_execution_access(
        caller.subject, execution_id, Action.DELETE, caller.route, missing_ok=True
    )
    command = DeleteExecutionCommand(workflow_execution_id=execution_id, force=force)
    result = wfx.delete_execution().execute(command)
    if not result.deleted:
        raise ExecutionNotFoundError(execution_id)
    return JSONResponse(MessageResponse.of(DELETED_MESSAGE, result.warnings).dump())
