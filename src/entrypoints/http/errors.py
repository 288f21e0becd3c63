"""Every failure as `{"message": "..."}` with its status: 400 naming the field and the rule, 401,
403, 404, 405, 409, 503 for a store that is not there; 500 for the unexpected, whose details go to
the server's own log (redacted) and never to the caller - no trace, no internal or table name."""

from __future__ import annotations

import errno
import logging
import sys
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from application.ports.executions import EventNumberTakenError
from application.validation_messages import MAX_PROBLEMS_NAMED, describe_validation_error
from domain.errors import (
    ConflictError,
    DomainError,
    InvalidInputError,
    NotAuthenticatedError,
    NotAuthorizedError,
    NotFoundError,
)
from domain.redaction import redact

LOGGER = logging.getLogger("wfx.http")


class ErrorResponse(BaseModel):
    """Every failure's body."""

    message: str


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse, "description": description}
    for status, description in (
        (400, "The request broke a rule; the message names the field and the rule."),
        (401, "No valid bearer token."),
        (403, "The caller may not do this."),
        (404, "No such execution, workflow or route."),
        (409, "The request clashes with what is stored."),
        (503, "The store or the identity provider's keys cannot be reached, or no tables."),
    )
}

_BY_KIND: tuple[tuple[type[DomainError], int], ...] = (
    (NotAuthenticatedError, 401),
    (NotAuthorizedError, 403),
    (NotFoundError, 404),
    (ConflictError, 409),
    (InvalidInputError, 400),
)
# the request part a validation problem sits in reads as the name a client sent
_PARTS = {"query": "query parameter", "path": "path parameter", "body": "body"}


def status_of(error: DomainError) -> int:
    return next((status for kind, status in _BY_KIND if isinstance(error, kind)), 400)


def message(status: int, text: str) -> JSONResponse:
    # One line, redacted: a message may quote what the caller sent.
    one_line = " / ".join(part.strip() for part in redact(text).splitlines() if part.strip())
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse({"message": one_line}, status_code=status, headers=headers)


def request_problems(errors: Sequence[Any], content_type: str | None = None) -> str:
    """FastAPI's validation errors as `query parameter maxItems: ...; body.inputs[0]: ...`.
    `content_type`: the request's, which says why a body read as bytes is no object."""
    problems = []
    for problem in errors[:MAX_PROBLEMS_NAMED]:
        if problem["type"] == "json_invalid":
            # FastAPI puts the decoder's offset where a field would be: `body.[30]`
            reason = problem.get("ctx", {}).get("error", "")
            problems.append(f"body: not valid JSON ({reason} at character {problem['loc'][-1]})")
            continue
        if tuple(problem["loc"]) == ("body",) and not _is_json(content_type):
            # FastAPI reads only a JSON content type's body as JSON; any other is bytes, and
            # "should be a valid dictionary" would say nothing of the header to fix
            sent = "no Content-Type" if content_type is None else f"Content-Type {content_type!r}"
            problems.append(f"body: send it as JSON, with Content-Type: application/json ({sent})")
            continue
        loc = [str(part) if not isinstance(part, int) else f"[{part}]" for part in problem["loc"]]
        part = _PARTS.get(loc[0], loc[0]) if loc else ""
        field = ".".join(loc[1:]).replace(".[", "[")
        where = (
            f"{part} {field}".strip() if part != "body" else ".".join(["body", field]).strip(".")
        )
        if problem["type"] == "missing":
            rule = "required"
        elif problem["type"] == "extra_forbidden":
            rule = "unknown key"
        else:
            rule = str(problem["msg"]).removeprefix("Value error, ")
        problems.append(f"{where}: {rule}")
    if len(errors) > MAX_PROBLEMS_NAMED:
        problems.append(f"and {len(errors) - MAX_PROBLEMS_NAMED} more")
    return "; ".join(problems)


def _is_json(content_type: str | None) -> bool:
    media = (content_type or "").partition(";")[0].strip().lower()
    kind, _, subtype = media.partition("/")
    return kind == "application" and (subtype == "json" or subtype.endswith("+json"))


# FastAPI's answer when reading the JSON raised something other than a decode error; the cause
# says which rule the body broke.
_UNPARSED_BODY = "There was an error parsing the body"


def _unparsed_body(cause: BaseException | None) -> str:
    if isinstance(cause, RecursionError):
        return "body: nested too deeply (arrays and objects within one another) to be read"
    if isinstance(cause, UnicodeDecodeError):
        return f"body: not UTF-8, which JSON is sent in ({cause.reason} at byte {cause.start})"
    if isinstance(cause, ValueError) and "digits" in str(cause):
        return f"body: holds a number too long ({sys.get_int_max_str_digits()} digits at most)"
    return "body: cannot be read as JSON"


def setup_problem(error: BaseException) -> str | None:
    """The store or a service it needs is not there (unreachable, a table missing): what no retry
    mends, and what a request meeting it answers 503 for. A full disk is not one: a read whose
    reconciling write met it still answers the run as stored (entrypoints.http.stale_reads)."""
    full_disk = str(getattr(error, "sqlite_errorname", "")).startswith(
        ("SQLITE_FULL", "SQLITE_IOERR")
    ) or (isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS))
    return None if full_disk else _service_problem(error)


def _service_problem(error: BaseException) -> str | None:
    """A store that is not reachable or has no tables: how to start it, and no name of it."""
    from adapters.aws.failures import (
        CREDENTIALS_HINT,
        BucketUnusableError,
        denied_call,
        is_unreachable,
    )
    from adapters.identity.jwks import JwksUnavailableError
    from adapters.store_failures import tables_missing
    from adapters.tables import TableNameError

    if isinstance(error, JwksUnavailableError):
        return "the identity provider's keys (WFX_JWT_JWKS) cannot be read; try again"
    if isinstance(error, BucketUnusableError):
        return "the object store's bucket (WFX_S3_BUCKET) is missing, unversioned or unreachable"
    if isinstance(error, TableNameError):
        LOGGER.error("%s", error)  # names the parameter; the answer names no table
        return (
            "a table's name cannot be read from the VAMS deployment's parameters "
            "(VAMS_RESOURCE_PARAM_PREFIX); the service log names it"
        )
    if is_unreachable(error):
        return "the execution store cannot be reached; start it and try again"
    if type(error).__name__ == "NoCredentialsError":  # a local DynamoDB's requests are signed too
        return f"the service has no AWS credentials: {CREDENTIALS_HINT}, and restart it"
    if tables_missing(error):
        return "the store's wfx tables are missing or out of date; run `wfx tables create`"
    denied = denied_call(error)
    if denied is not None:
        LOGGER.error("%s", redact(str(error)))  # the resource and the role: the log's alone
        return (
            f"AWS denied the service's role {denied}: a right the deployment does not give it "
            "(the service log names the resource; a workflow deployed without the stack's "
            "WFX_STATE_MACHINE_PREFIX is one cause, docs/aws.md)"
        )
    if str(getattr(error, "sqlite_errorname", "")).startswith(("SQLITE_FULL", "SQLITE_IOERR")) or (
        isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS)
    ):
        return "the service's disk (WFX_HOME) is full or read-only; free space there and retry"
    return None


def install_error_handlers(app: FastAPI) -> None:
    async def on_domain_error(_: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, DomainError)
        return message(status_of(error), str(error))

    async def on_request_error(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, RequestValidationError)
        content_type = request.headers.get("content-type")
        return message(400, request_problems(error.errors(), content_type))

    async def on_model_error(_: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, ValidationError)  # a use case's own query or command model
        return message(400, describe_validation_error(error))

    async def on_http_error(_: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, StarletteHTTPException)
        if error.status_code == 400 and error.detail == _UNPARSED_BODY:
            return message(400, _unparsed_body(error.__cause__))
        return message(error.status_code, str(error.detail))

    async def on_unexpected(request: Request, error: Exception) -> JSONResponse:
        if isinstance(error, EventNumberTakenError):  # the run's log, not the request, is off
            return message(409, str(error))
        problem = _service_problem(error)
        if problem is not None:
            return message(503, problem)
        from adapters.aws.failures import throttling_code

        if throttling_code(error) is not None:
            return message(503, "the execution store is over its request rate; try again shortly")
        LOGGER.error(
            "%s %s failed: %s",
            request.method,
            request.url.path,
            redact(f"{type(error).__name__}: {error}"),
        )
        return message(500, "internal error; the service log has the details")

    app.add_exception_handler(DomainError, on_domain_error)
    app.add_exception_handler(RequestValidationError, on_request_error)
    app.add_exception_handler(ValidationError, on_model_error)
    app.add_exception_handler(StarletteHTTPException, on_http_error)
    app.add_exception_handler(Exception, on_unexpected)
