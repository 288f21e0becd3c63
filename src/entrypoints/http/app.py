"""The one ASGI app: every route, one error shape, OpenAPI at /openapi.json and docs at /docs."""

from __future__ import annotations

from fastapi import FastAPI

from entrypoints.container import Container
from entrypoints.http import executions, workflows
from entrypoints.http.errors import install_error_handlers
from entrypoints.http.identity import Identify

DESCRIPTION = (
    "Launch, track, inspect, abort, redrive, list and delete workflow executions. Every request "
    "carries a bearer JWT; every route and every execution it touches is authorized."
)


def create_app(container: Container, identify: Identify) -> FastAPI:
    """The service on the given application; `identify` names the caller of a request (a token
    verified here, or the claims API Gateway verified)."""
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
    app.include_router(executions.router)
    app.include_router(workflows.router)
    return app
