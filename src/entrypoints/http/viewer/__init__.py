"""The web viewer: server-rendered pages on the same app, the same use cases and the same
authorization as the JSON routes, logged in by a session cookie that holds a verified token."""

from __future__ import annotations

from fastapi import FastAPI, Request, Response
from fastapi.staticfiles import StaticFiles
from starlette.middleware.base import RequestResponseEndpoint

from application.ports.access import TokenVerifier
from entrypoints.http.viewer import (
    actions,
    execution_page,
    executions_list,
    login,
    workflows_page,
)
from entrypoints.http.viewer.errors import install_page_errors
from entrypoints.http.viewer.rendering import STATIC
from entrypoints.http.viewer.session import SessionKeys


def install_viewer(app: FastAPI, verifier: TokenVerifier, key: bytes | None = None) -> None:
    """Mount the pages and /static on `app`, after its JSON error handlers are in place; `key`
    signs the CSRF tokens (default: a new one)."""
    app.state.viewer_keys = SessionKeys(verifier, key)
    for module in (login, executions_list, execution_page, actions, workflows_page):
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    install_page_errors(app)

    @app.middleware("http")
    async def no_sniffing(request: Request, call_next: RequestResponseEndpoint) -> Response:
        answer = await call_next(request)
        # a vendored file is only ever what its extension says
        answer.headers.setdefault("X-Content-Type-Options", "nosniff")
        return answer
