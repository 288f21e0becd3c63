"""Control characters refused at the edge, before a route reads anything: a path or a query
parameter holding one is a 400 naming it (identifiers and filters never hold them, and a
Database User's `executionGroupId` would otherwise reach an admin's terminal raw). Bodies are
checked by their models (entrypoints/http/requests.py)."""

from __future__ import annotations

from urllib.parse import parse_qsl

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from domain.control_characters import RULE, first_control_character


def _problem(scope: Scope) -> str | None:
    found = first_control_character(scope["path"])
    if found is not None:
        return f"path: {RULE}; found {found}"
    query = scope.get("query_string", b"").decode("utf-8", "replace")
    for name, value in parse_qsl(query, keep_blank_values=True):
        found = first_control_character(name) or first_control_character(value)
        if found is not None:
            shown = name if first_control_character(name) is None else "a name"
            return f"query parameter {shown}: {RULE}; found {found}"
    return None


class RefuseControlCharacters:
    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        problem = _problem(scope) if scope["type"] == "http" else None
        if problem is None:
            await self._app(scope, receive, send)
            return
        await JSONResponse({"message": problem}, status_code=400)(scope, receive, send)
