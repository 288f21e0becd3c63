"""`/executions/{id}`: one run as its JSON routes describe it - VAMS's details document (with
sub-executions and their stages), events, approvals, costs, logs - each part only as far as the
caller may read it; one log
source on its own (`/executions/{id}/logs/{logId}`, polled while its step runs); an output
file's body for a preview or a download."""

from __future__ import annotations

import mimetypes
from pathlib import PurePosixPath
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Path
from fastapi.responses import FileResponse, Response

from application.use_cases.get_execution_details import GetExecutionDetailsQuery
from application.use_cases.get_execution_events import GetExecutionEventsQuery
from application.use_cases.get_execution_logs import GetExecutionLogsQuery
from application.use_cases.read_output_file import OutputFileQuery
from application.use_cases.summarize_costs import SummarizeCostsQuery, SummaryScope
from domain.approvals import is_approver
from domain.authorization import Action
from domain.control_characters import first_control_character
from domain.errors import NotAuthorizedError, OutputFileNotFoundError, UnreadableRowError
from domain.redaction import redact
from entrypoints.cost_responses import CostSummaryResponse
from entrypoints.http.route_table import EXECUTIONS
from entrypoints.http.viewer.log_tail import newest, newest_text
from entrypoints.http.viewer.rendering import TERMINAL, render
from entrypoints.http.viewer.timeline import timeline_of
from entrypoints.http.viewer.visit import Viewer
from entrypoints.responses import ExecutionEventsResponse, ExecutionLogsResponse
from entrypoints.vams_details import VamsExecutionDetails

router = APIRouter(include_in_schema=False)

ExecutionId = Annotated[str, Path(min_length=1, max_length=256)]
# a source is read from its first line, a page at a time (the most the logs use case serves),
# for want of a read from its end: TAIL_PAGES pages reach the newest lines of most logs, and
# bound the time a page or a live tail's poll takes (30,000 lines of 90 characters: ~0.8 s)
PAGE_LINES = 10_000
TAIL_PAGES = 3
EVENTS = 200
# shown inline as <img>: a browser never runs a script of an SVG it loads as an image
PREVIEWED = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg"}


def _read_details(page: Viewer, execution_id: str) -> dict[str, Any]:
    route = f"{EXECUTIONS}/{execution_id}/details"
    page.require_route(route)
    page.wfx.access_control().require_execution_access(
        page.subject, execution_id, Action.GET, route
    )
    query = GetExecutionDetailsQuery(
        workflow_execution_id=execution_id, include_sub_executions=True
    )
    details = page.wfx.get_execution_details().execute(query)
    # the details route's own document: the page shows what the API says, never more
    return VamsExecutionDetails.of(details, with_sub_executions=True).dump()


def _events(page: Viewer, execution_id: str) -> dict[str, Any] | None:
    if not page.may_route(f"{EXECUTIONS}/{execution_id}/events"):
        return None
    query = GetExecutionEventsQuery(workflow_execution_id=execution_id, max_items=EVENTS)
    try:
        listed = page.wfx.get_execution_events().execute(query)
    except UnreadableRowError as error:  # the rest of the page still shows: said in its place
        return {"problem": redact(str(error))}
    return ExecutionEventsResponse.of(execution_id, listed).dump()


def _costs(page: Viewer, execution_id: str) -> dict[str, Any] | None:
    if not page.may_route("/costs"):
        return None
    query = SummarizeCostsQuery(
        scope=SummaryScope.EXECUTION, key=execution_id, subject=page.subject, route="/costs"
    )
    try:
        return CostSummaryResponse.of(page.wfx.summarize_costs().execute(query)).dump()
    except NotAuthorizedError:
        return None
    except UnreadableRowError as error:  # the rest of the page still shows: said in its place
        return {"problem": redact(str(error))}


def _log_lines(page: Viewer, execution_id: str, log_id: str | None) -> dict[str, Any]:
    """The logs route's answer for one source (or the run's own log), with only its newest
    lines: `earlier` says how many before them are not shown, `unread` that the log goes on
    past what was read."""
    logs = page.wfx.get_execution_logs()

    def read(token: str | None) -> dict[str, Any]:
        query = GetExecutionLogsQuery(
            workflow_execution_id=execution_id, log_id=log_id, next_token=token, limit=PAGE_LINES
        )
        return ExecutionLogsResponse.of(logs.execute(query)).dump()

    first = said = read(None)
    events = newest([], list(first.get("events", ())))
    lines = len(first.get("events", ()))
    for _ in range(TAIL_PAGES - 1):
        if not said["nextToken"]:
            break
        said = read(said["nextToken"])
        events = newest(events, list(said.get("events", ())))
        lines += len(said.get("events", ()))
    token = said["nextToken"]
    answer = first | {"events": events, "earlier": lines - len(events), "unread": bool(token)}
    if first.get("executionLog"):
        answer["executionLog"], left_out = newest_text(first["executionLog"])
        # a long log came as its last PAGE_LINES lines already: those before them count too
        answer["earlier"] = left_out + first.get("executionLogEarlierLines", 0)
    return answer


def _may_read_logs(page: Viewer, execution_id: str) -> bool:
    return page.may_route(f"{EXECUTIONS}/{execution_id}/logs")


def _decidable(page: Viewer, approvals: list[dict[str, Any]]) -> set[str]:
    """The pending gates this caller is an approver of (by id or a role it holds)."""
    pending = [a for a in approvals if a["status"] == "PENDING"]
    if not pending:
        return set()
    subject = page.wfx.access_control().subject_with_roles(page.subject)
    return {
        a["approvalId"]
        for a in pending
        if is_approver(a["approvers"], subject.user_id, subject.roles)
        and page.may_route(f"/approvals/{a['approvalId']}/decision", Action.POST)
    }


@router.get("/executions/{execution_id}")
def execution(page: Viewer, execution_id: ExecutionId) -> Response:
    details = _read_details(page, execution_id)
    status = details["executionStatus"]
    logs_allowed = _may_read_logs(page, execution_id)
    sources = []
    for step in details["pipelines"]:
        for source in step.get("availableLogs", ()):
            lines = _log_lines(page, execution_id, source["logId"]) if logs_allowed else None
            sources.append(
                {
                    "source": source,
                    "step": step,
                    "lines": lines,
                    "live": step["executionStatus"] not in TERMINAL,
                }
            )
    run_log = _log_lines(page, execution_id, None) if logs_allowed else None
    approvals = list(details.get("approvals") or ())
    context: dict[str, Any] = {
        "run": details,
        "timeline": timeline_of(details),
        "events": _events(page, execution_id),
        "costs": _costs(page, execution_id),
        "logs_allowed": logs_allowed,
        "sources": sources,
        "run_log": run_log,
        "approvals": approvals,
        "decidable": _decidable(page, approvals),
        "may_abort": status not in TERMINAL
        and page.may_route(f"{EXECUTIONS}/{execution_id}/abort", Action.POST),
        "may_redrive": status in TERMINAL
        and status != "SUCCEEDED"
        and details.get("redriveStatus", "REDRIVABLE") == "REDRIVABLE"
        and page.may_route(f"{EXECUTIONS}/{execution_id}/redrive", Action.POST),
        "open": status not in TERMINAL,
        "previewed": PREVIEWED,
        "suffix": lambda name: PurePosixPath(name).suffix.lower(),
        "in_a_path": lambda name: first_control_character(name) is None,
    }
    return render(page.request, "execution.html", **context)


@router.get("/executions/{execution_id}/logs/{log_id}")
def log_source(
    page: Viewer, execution_id: ExecutionId, log_id: Annotated[str, Path(max_length=64)]
) -> Response:
    """One source's lines; polled by the page while its step runs."""
    details = _read_details(page, execution_id)
    found = [
        (step, source)
        for step in details["pipelines"]
        for source in step.get("availableLogs", ())
        if source["logId"] == log_id
    ]
    if not _may_read_logs(page, execution_id):
        lines = None
    else:
        page.require_route(f"{EXECUTIONS}/{execution_id}/logs")
        lines = _log_lines(page, execution_id, log_id)
    step, source = (
        found[0] if found else ({"executionStatus": "", "pipelineId": ""}, {"logId": log_id})
    )
    live = step["executionStatus"] not in TERMINAL
    entry = {"source": source, "step": step, "lines": lines, "live": live}
    return render(
        page.request,
        "_log_source.html",
        run={"workflowExecutionId": execution_id},
        entry=entry,
        logs_allowed=lines is not None,
    )


@router.get("/executions/{execution_id}/outputs/{pipeline_execution_id}/{path:path}")
def output_file(
    page: Viewer,
    execution_id: ExecutionId,
    pipeline_execution_id: Annotated[str, Path(max_length=256)],
    path: Annotated[str, Path(max_length=1024)],
) -> Response:
    _read_details(page, execution_id)  # the same tier 1 and tier 2 as the details route
    return _served(page, execution_id, pipeline_execution_id, path)


@router.get("/executions/{execution_id}/output-versions/{pipeline_execution_id}/{version_id}")
def output_file_version(
    page: Viewer,
    execution_id: ExecutionId,
    pipeline_execution_id: Annotated[str, Path(max_length=256)],
    version_id: Annotated[str, Path(max_length=1024)],
) -> Response:
    """A file whose name no path may carry (a control or bidirectional character: the service
    refuses such a path before any route), by the version the details list for it."""
    details = _read_details(page, execution_id)
    named = [
        file["relativeFilePath"]
        for file in details["outputs"]["files"]
        if file["pipelineExecutionId"] == pipeline_execution_id
        and file.get("s3VersionId") == version_id
    ]
    if len(named) != 1:
        raise OutputFileNotFoundError(
            f"output file version {version_id} of {pipeline_execution_id} not found"
        )
    return _served(page, execution_id, pipeline_execution_id, named[0])


def _served(page: Viewer, execution_id: str, pipeline_execution_id: str, path: str) -> Response:
    query = OutputFileQuery(
        workflow_execution_id=execution_id,
        pipeline_execution_id=pipeline_execution_id,
        relative_file_path=path,
    )
    found = page.wfx.read_output_file().execute(query)
    name = PurePosixPath(found.file.relative_file_path).name
    suffix = PurePosixPath(name).suffix.lower()
    media = mimetypes.guess_type(name)[0] if suffix in PREVIEWED else None
    headers = {
        "X-Content-Type-Options": "nosniff",
        # opened on its own, an SVG is a document: sandboxed, none of its scripts run
        "Content-Security-Policy": "sandbox; default-src 'none'; style-src 'unsafe-inline'",
        "Cache-Control": "no-store",
    }
    if media is None:
        headers["Content-Disposition"] = _attachment(name)
    # streamed from the file, a chunk at a time
    return FileResponse(found.path, media_type=media or "application/octet-stream", headers=headers)


def _attachment(name: str) -> str:
    """A download named as the file is (RFC 6266: an ASCII name, and the UTF-8 one when they
    differ; a header is Latin-1 at most), each control or bidirectional character made `_` so
    the saved name reads as the page shows it."""
    plain = "".join("_" if first_control_character(c) else c for c in name)
    ascii_name = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "_" for c in plain)
    said = f'attachment; filename="{ascii_name or "output"}"'
    return said if ascii_name == plain else f"{said}; filename*=UTF-8''{quote(plain, safe='')}"
