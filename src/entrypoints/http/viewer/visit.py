"""What every viewer page depends on: the application, the session its cookie proves (if any),
and the same tier-1 check the JSON route of the same data makes - a page never shows what its
JSON route would refuse."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from application.authorization import route_object
from domain.authorization import Action, Subject
from domain.errors import NotAuthenticatedError
from domain.redaction import redact
from entrypoints.container import Container
from entrypoints.http.viewer.session import EndedSession, Session, SessionKeys

HOW_TO_LOG_IN = (
    "open /login?token=<token> with a token that `wfx auth token USER` prints (or the link "
    "`wfx serve --open` prints)"
)
NOT_LOGGED_IN = f"you are not logged in: {HOW_TO_LOG_IN}"


@dataclass(frozen=True)
class Visit:
    request: Request
    wfx: Container
    keys: SessionKeys
    session: Session | None
    ended: str | None = None  # why the cookie's session no longer holds

    @property
    def session_ended(self) -> str:
        """Why the cookie's session no longer holds, for the login page; "" without one."""
        # redacted as every message is, though a verifier's refusal never quotes the token
        return "" if self.ended is None else redact(f"your session ended: {self.ended}")

    @property
    def logged_in(self) -> Session:
        if self.session is None:
            if self.ended is not None:
                raise NotAuthenticatedError(f"{self.session_ended}; {HOW_TO_LOG_IN}")
            raise NotAuthenticatedError(NOT_LOGGED_IN)
        return self.session

    @property
    def subject(self) -> Subject:
        return self.logged_in.subject

    def require_route(self, path: str, action: Action = Action.GET) -> None:
        """Tier 1 as the JSON route `path` asks it (a 401 first when nobody is logged in)."""
        self.wfx.access_control().require_route(self.subject, path, action)

    def may_route(self, path: str, action: Action = Action.GET) -> bool:
        """Whether tier 1 would let the subject through, without recording a refusal: for what
        a page offers (a button, a log), never for what it does."""
        return bool(self.wfx.access_control().may(self.subject, route_object(path), action))

    def require_csrf(self, sent: str | None) -> None:
        self.keys.require_csrf(self.request, self.logged_in, sent)


def visit(request: Request) -> Visit:
    # the error handlers answer a viewer request with a page, not JSON
    request.state.viewer = True
    keys: SessionKeys = request.app.state.viewer_keys
    found = keys.session_of(request)
    session = found if isinstance(found, Session) else None
    ended = found.why if isinstance(found, EndedSession) else None
    request.state.viewer_session = session
    return Visit(
        request=request, wfx=request.app.state.container, keys=keys, session=session, ended=ended
    )


Viewer = Annotated[Visit, Depends(visit)]
