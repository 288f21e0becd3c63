"""`GET /login?token=TOKEN` turns a token `wfx auth token` printed into the session cookie (after
a confirmation, `POST /login`, when another site sent the browser there); `POST /logout` ends
it, on the server too (the token is revoked)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Query
from fastapi.responses import RedirectResponse, Response

from domain.authorization import Subject
from domain.errors import NotAuthenticatedError
from entrypoints.http.viewer.rendering import SECURITY_HEADERS, render
from entrypoints.http.viewer.session import (
    COOKIE,
    MAX_TOKEN_CHARS,
    came_from_another_site,
    clear_session_cookie,
    require_same_site,
    set_session_cookie,
)
from entrypoints.http.viewer.visit import Viewer, Visit

router = APIRouter(include_in_schema=False)
# No max_length: its message names the field, and redaction takes the rule after `token:` for a
# secret. The length is bounded first thing, by _session_subject.
Token = str | None


@router.get("/login")
def login(page: Viewer, token: Annotated[Token, Query()] = None) -> Response:
    if not token:
        return render(page.request, "login_help.html", status_code=401, message=page.session_ended)
    subject = _session_subject(page, token)
    if isinstance(subject, Response):
        return subject
    if came_from_another_site(page.request):
        # Login CSRF: another site's page may send the browser here with the attacker's token,
        # to have the user act as the attacker. Set nothing: the user confirms it on our page.
        return render(page.request, "login_confirm.html", token=token, user=subject.user_id)
    return _logged_in(page, token)


@router.post("/login")
def confirm_login(page: Viewer, token: Annotated[Token, Form()] = None) -> Response:
    """The confirmation `GET /login` asks for when another site sent the browser there."""
    require_same_site(page.request)
    if not token:  # as GET /login without one: a required field's message would be redacted
        return render(page.request, "login_help.html", status_code=401, message="")
    subject = _session_subject(page, token)
    return subject if isinstance(subject, Response) else _logged_in(page, token)


def _session_subject(page: Visit, token: str) -> Subject | Response:
    """Whom the token logs in, or the page saying why it logs nobody in."""
    if len(token) > MAX_TOKEN_CHARS:
        return render(
            page.request,
            "login_help.html",
            status_code=401,
            message=(
                f"that token is {len(token):,} characters; a browser keeps a session cookie of "
                f"at most {MAX_TOKEN_CHARS:,} characters: print one that carries fewer roles "
                "(give the user roles with `wfx auth users assign USER ROLE` instead of --role); "
                "it still works as a bearer token for the API"
            ),
        )
    try:
        return page.keys.verify(token)
    except NotAuthenticatedError as refused:
        return render(
            page.request,
            "login_help.html",
            status_code=401,
            message=f"that token does not log you in: {refused}",
        )


def _logged_in(page: Visit, token: str) -> Response:
    # 303 to a URL without the token, so neither history nor a bookmark keeps it
    from adapters.identity.revocation import token_facts

    answer = RedirectResponse("/", status_code=303, headers=SECURITY_HEADERS)
    # verified: every verifier requires `exp`
    set_session_cookie(answer, page.request, token, token_facts(token).expires_at)
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
