"""A viewer request that fails gets a page, not JSON: the same status and the same one-line,
redacted message the JSON API's handler gives (which also logs the unexpected), in HTML."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import cast

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from domain.errors import DomainError
from entrypoints.http.viewer.rendering import render

Handler = Callable[[Request, Exception], Awaitable[Response]]
_KINDS: tuple[type[Exception], ...] = (
    DomainError,
    RequestValidationError,
    ValidationError,
    StarletteHTTPException,
    Exception,
)


def _as_page(json_handler: Handler) -> Handler:
    async def handle(request: Request, error: Exception) -> Response:
        answer = await json_handler(request, error)
        if not getattr(request.state, "viewer", False):
            return answer
        try:
            text = str(json.loads(bytes(answer.body))["message"])
        except (ValueError, KeyError, TypeError):
            text = "the request failed"
        template = "login_help.html" if answer.status_code == 401 else "error.html"
        return render(request, template, status_code=answer.status_code, message=text)

    return handle


def install_page_errors(app: FastAPI) -> None:
    """Wrap the JSON handlers install_error_handlers put in place (call it after that)."""
    for kind in _KINDS:
        # install_error_handlers put async handlers of this shape there
        json_handler = cast(Handler, app.exception_handlers[kind])
        app.add_exception_handler(kind, _as_page(json_handler))
