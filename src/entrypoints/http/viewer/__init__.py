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
from entrypoints.http.viewer.rendering import SECURITY_HEADERS, STATIC
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
    async def secured(request: Request, call_next: RequestResponseEndpoint) -> Response:
        answer = await call_next(request)
        # Every answer, not only the pages: the router's 404/405 and a middleware's 400 on a
        # viewer URL are JSON a browser could frame or keep as well. An answer's own win.
        for name, value in _headers_for(request.url.path).items():
            answer.headers.setdefault(name, value)
        return answer


_DOCS_PATHS = ("/docs", "/docs/oauth2-redirect")
# The API's docs page runs FastAPI's inline script and Swagger UI from a CDN; a vendored file
# (a file with validators, no session data) may be kept by the browser.
_DOCS_HEADERS = {k: v for k, v in SECURITY_HEADERS.items() if k != "Content-Security-Policy"}
_STATIC_HEADERS = {k: v for k, v in SECURITY_HEADERS.items() if k != "Cache-Control"}


def _headers_for(path: str) -> dict[str, str]:
    if path in _DOCS_PATHS:
        return _DOCS_HEADERS
    if path.startswith("/static/"):
        return _STATIC_HEADERS
    return SECURITY_HEADERS
