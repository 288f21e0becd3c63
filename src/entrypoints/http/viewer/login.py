"""`GET /login?token=TOKEN` turns a token `wfx auth token` printed into the session cookie;
`POST /logout` ends it, on the server too (the token is revoked)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Query
from fastapi.responses import RedirectResponse, Response

from domain.errors import NotAuthenticatedError
from entrypoints.http.viewer.rendering import SECURITY_HEADERS, render
from entrypoints.http.viewer.session import COOKIE, clear_session_cookie, set_session_cookie
from entrypoints.http.viewer.visit import Viewer

router = APIRouter(include_in_schema=False)


@router.get("/login")
def login(page: Viewer, token: Annotated[str | None, Query(max_length=8192)] = None) -> Response:
    if not token:
        return render(page.request, "login_help.html", status_code=401, message=page.session_ended)
    try:
        page.keys.verify(token)
    except NotAuthenticatedError as refused:
        return render(
            page.request,
            "login_help.html",
            status_code=401,
            message=f"that token does not log you in: {refused}",
        )
    # 303 to a URL without the token, so neither history nor a bookmark keeps it
    answer = RedirectResponse("/", status_code=303, headers=SECURITY_HEADERS)
    set_session_cookie(answer, page.request, token)
    return answer


@router.post("/logout")
def logout(page: Viewer, csrf: Annotated[str | None, Form()] = None) -> Response:
    """Ends the session on the server too: the cookie's token is revoked until it expires, so
    a copy of it (as a cookie or a bearer token) no longer works."""
    from adapters.identity.revocation import token_facts

    page.require_csrf(csrf)
    facts = token_facts(page.request.cookies[COOKIE])  # verified: require_csrf needs a session
    page.wfx.revoke_tokens().token(facts.token_id, facts.expires_at)
    answer = RedirectResponse("/", status_code=303, headers=SECURITY_HEADERS)
    clear_session_cookie(answer, page.request)
    return answer
