"""The HTTP service: one ASGI app (FastAPI), served by `wfx serve` and, in Lambda, by Mangum.

`entrypoints.http.lambda_handler` is the Lambda handler of an API Gateway HTTP API.
"""

from __future__ import annotations

from typing import Any


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    from entrypoints.http.aws_lambda import handler

    return handler(event, context)
