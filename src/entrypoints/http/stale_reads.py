"""A response that shows a run as stored, because what its read found could not be recorded,
says so in one header: `Wfx-Stale-Executions` lists those runs' ids (space-separated). The body
is the same as any other answer; the header is the caller's cue that the state may be stale and
that a later read tries again. Nothing of the failed write (its text may name paths) is sent: it
goes to the service's log, one warning line per request.

A write that failed because the store is not there (a table missing, the service unreachable) is
no stale read: the request answers 503 with the one line saying how to set it up, as any request
meeting it does (and as the CLI fails such a read)."""

from __future__ import annotations

import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from application.stale_reads import noting_stale_reads
from domain.redaction import redact
from entrypoints.http import errors

STALE_HEADER = "Wfx-Stale-Executions"
LOGGER = logging.getLogger("wfx.http")


class MarkStaleReads:
    """Opens one scope of application.stale_reads per request, read when the answer starts."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        with noting_stale_reads() as stale:
            replaced = False

            async def send_marked(message: Message) -> None:
                nonlocal replaced
                if replaced:
                    return  # the body of the answer the 503 stands in for
                if message["type"] == "http.response.start" and stale:
                    problem = next(filter(None, map(errors.setup_problem, stale.values())), None)
                    if problem is not None:
                        replaced = True
                        await errors.message(503, problem)(scope, receive, send)
                        return
                    header = (STALE_HEADER.lower().encode(), " ".join(stale).encode())
                    message = {**message, "headers": [*message.get("headers", ()), header]}
                await send(message)

            await self._app(scope, receive, send_marked)
        if stale and not replaced:
            causes = "; ".join(
                f"run {run}: {type(cause).__name__}: {cause}" for run, cause in stale.items()
            )
            LOGGER.warning(
                "%s %s answered runs as stored, their reconciling writes failed: %s",
                scope["method"],
                scope["path"],
                redact(" ".join(causes.split())),
            )
