"""The viewer's session: the bearer token itself in an HttpOnly cookie, verified on every request
exactly as the `Authorization` header is, and a CSRF token derived from it for every form that
writes.

Holding the token (not a server-side session id) keeps the service stateless: a restart, a second
worker or an expired token behave as they do for the JSON API. The CSRF token is an HMAC of the
cookie under a key made when the app starts, so a page rendered before a restart asks for a
reload before it can write - never a write without proof.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from fastapi import Request, Response

from application.ports.access import TokenVerifier
from domain.authorization import Subject
from domain.errors import NotAuthenticatedError, NotAuthorizedError

COOKIE = "wfx_session"
CSRF_FIELD = "csrf"
# Browsers keep a cookie whose name and value hold at most 4,096 bytes and drop a longer one
# without a word (RFC 6265bis 5.6): such a token would log in with a 303 and leave nobody in.
MAX_TOKEN_CHARS = 4096 - len(COOKIE)
# browsers send these on a form POST; anything but our own origin is a cross-site write
_SAME_SITE_FETCH = {"same-origin", "none"}


@dataclass(frozen=True)
class Session:
    """Who is logged in, and the token their forms must carry back."""

    subject: Subject
    csrf: str


@dataclass(frozen=True)
class EndedSession:
    """A cookie whose session no longer holds, and why: what the login page says."""

    why: str


class SessionKeys:
    """The server's CSRF key and the verifier of the cookie's token."""

    def __init__(self, verifier: TokenVerifier, key: bytes | None = None) -> None:
        self._verifier = verifier
        self._key = key if key is not None else secrets.token_bytes(32)

    def verify(self, token: str) -> Subject:
        return self._verifier.verify(token)

    def csrf_for(self, token: str) -> str:
        return hmac.new(self._key, token.encode("utf-8"), hashlib.sha256).hexdigest()

    def session_of(self, request: Request) -> Session | EndedSession | None:
        """The session the request's cookie proves; the one it no longer proves (revoked,
        expired, signed by a key the service does not trust) with why; None without a cookie."""
        token = request.cookies.get(COOKIE, "")
        if not token:
            return None
        try:
            subject = self.verify(token)
        except NotAuthenticatedError as refused:
            return EndedSession(why=str(refused))  # a verifier's refusal never quotes the token
        return Session(subject=subject, csrf=self.csrf_for(token))

    def require_csrf(self, request: Request, session: Session, sent: str | None) -> None:
        """A 403 unless the form carried this session's CSRF token and, when the browser says
        where the request came from, it came from this site."""
        require_same_site(request)
        # bytes, not str: compare_digest raises on a non-ASCII str, and the form is the caller's
        sent_bytes = (sent or "").encode("utf-8", "replace")
        if not sent or not hmac.compare_digest(sent_bytes, session.csrf.encode()):
            raise NotAuthorizedError(
                "the form's CSRF token is missing or wrong: reload the page and try again"
            )


def came_from_another_site(request: Request) -> bool:
    """The browser says another site sent it here (a link or a script of that site's page);
    typed, bookmarked or opened from a terminal, it says `none`."""
    return request.headers.get("sec-fetch-site", "none") not in _SAME_SITE_FETCH


def require_same_site(request: Request) -> None:
    """A 403 when the browser says the form was posted by another site."""
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site is not None and fetch_site not in _SAME_SITE_FETCH:
        raise NotAuthorizedError(f"a {fetch_site} form may not write here")
    origin = request.headers.get("origin")
    # "null": what a browser sends from our own pages under `Referrer-Policy: no-referrer`;
    # it says nothing either way, so the token (and Sec-Fetch-Site) decide
    if origin not in (None, "null") and origin != _own_origin(request):
        raise NotAuthorizedError(f"a form from {origin} may not write here")


def _own_origin(request: Request) -> str:
    host = request.headers.get("host", request.url.netloc)
    return f"{request.url.scheme}://{host}"


def set_session_cookie(response: Response, request: Request, token: str, expires_at: int) -> None:
    """`expires_at`: the token's `exp` (seconds since the epoch). The cookie ends with it, so a
    browser left open, or restoring its session, stops presenting a token no longer valid."""
    # the verifier checks `exp` against this same wall clock
    left = max(0, expires_at - int(time.time()))
    response.set_cookie(
        COOKIE,
        token,
        max_age=left,
        expires=datetime.fromtimestamp(expires_at, UTC),
        httponly=True,
        samesite="strict",
        path="/",
        secure=request.url.scheme == "https",
    )


def clear_session_cookie(response: Response, request: Request) -> None:
    response.delete_cookie(
        COOKIE, path="/", httponly=True, samesite="strict", secure=request.url.scheme == "https"
    )
