"""The one ASGI app: every route, one error shape, OpenAPI at /openapi.json and docs at /docs."""

from __future__ import annotations

import warnings
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from application.ports.access import TokenVerifier
from entrypoints.container import Container
from entrypoints.http import approvals, costs, executions, rerun, workflows
from entrypoints.http.body_limit import RequestBodyLimit
from entrypoints.http.control_characters import RefuseControlCharacters
from entrypoints.http.errors import install_error_handlers
from entrypoints.http.identity import Identify
from entrypoints.http.one_read_at_a_time import OneReadAtATime
from entrypoints.http.stale_reads import MarkStaleReads
from entrypoints.settings import DEFAULT_MAX_REQUEST_BYTES

DESCRIPTION = (
    "Launch, track, inspect, abort, redrive, list and delete workflow executions. Every request "
    "carries a bearer JWT; every route and every execution it touches is authorized."
)


def create_app(
    container: Container,
    identify: Identify,
    sessions: TokenVerifier | None = None,
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
    session_key: bytes | None = None,
    reads_in_turn: bool = False,
) -> FastAPI:
    """The service on the given application; `identify` names the caller of a request (a token
    verified here, or the claims API Gateway verified). With `sessions`, the web viewer too,
    its session cookie's token verified by it (`wfx serve` passes the bearer path's verifier).
    A request body past `max_request_bytes` is a 413. `session_key` signs the viewer's CSRF
    tokens (default: a new one): every process of one service must share it. `reads_in_turn`:
    this process answers its reads one at a time (`wfx serve` on SQLite: one_read_at_a_time)."""
    # pydantic >= 2.12 warns, as FastAPI first builds an optional body parameter (`body:
    # Annotated[X | None, Body()]`, for the schema or a route's first request), that the alias
    # it gives it has no effect; it has (requests and the schema name it `body`), and the
    # warning reached `wfx serve`'s terminal. Only that message, for the whole process.
    warnings.filterwarnings("ignore", message="The 'alias' attribute with value 'body' was")
    app = FastAPI(
        title="wfx",
        description=DESCRIPTION,
        version="1",
        openapi_url="/openapi.json",
        docs_url="/docs",
        redoc_url=None,
    )
    app.state.container = container
    app.state.identify = identify
    install_error_handlers(app)
    if reads_in_turn:  # the innermost: the turn covers the route's work and nothing around it
        app.add_middleware(OneReadAtATime)
    app.add_middleware(RequestBodyLimit, max_bytes=max_request_bytes)
    app.add_middleware(RefuseControlCharacters)
    app.add_middleware(MarkStaleReads)
    # The JSON routes go onto the app as they are: `include_router` would have FastAPI build
    # each route a second time for the app, on the first request (a Lambda's cold start).
    for module in (executions, rerun, workflows, costs, approvals):
        app.router.routes.extend(module.router.routes)
    if sessions is not None:
        # here, not at the top: the pages (Jinja among them) are no part of a Lambda's cold start
        from entrypoints.http.viewer import install_viewer

        install_viewer(app, sessions, session_key)
    app.openapi = lambda: _schema(app)  # type: ignore[method-assign]
    return app


def _schema(app: FastAPI) -> dict[str, Any]:
    """FastAPI's schema, saying what the service answers: a bad request is a 400 with a message,
    never FastAPI's own 422 document."""
    if app.openapi_schema is None:
        schema = get_openapi(
            title=app.title, version=app.version, description=app.description, routes=app.routes
        )
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                operation.get("responses", {}).pop("422", None)
        for name in ("HTTPValidationError", "ValidationError"):
            schema.get("components", {}).get("schemas", {}).pop(name, None)
        schema["components"]["securitySchemes"] = {
            "bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}
        }
        schema["security"] = [{"bearer": []}]
        app.openapi_schema = schema
    return app.openapi_schema
