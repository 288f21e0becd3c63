"""The request-body cap (WFX_MAX_REQUEST_BYTES, default 1 MiB): a body declared larger is
refused with 413 before a byte of it is read, and one sent in chunks is refused as soon as it
passes the cap, so no request holds more than the cap in the service's memory."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from entrypoints.settings import DEFAULT_MAX_REQUEST_BYTES


def too_large(max_bytes: int) -> str:
    return (
        f"request body: larger than {max_bytes} bytes, the service's cap "
        "(WFX_MAX_REQUEST_BYTES); send less"
    )


class RequestBodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int = DEFAULT_MAX_REQUEST_BYTES) -> None:
        self._app, self._max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"0")
        if not declared.isdigit() or int(declared) > self._max_bytes:
            answer = JSONResponse({"message": too_large(self._max_bytes)}, status_code=413)
            await answer(scope, receive, send)
            return
        received = 0

        async def capped() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > self._max_bytes:
                # raised inside the route's read of its body: the error handlers answer it
                raise HTTPException(413, too_large(self._max_bytes))
            return message

        await self._app(scope, capped, send)
