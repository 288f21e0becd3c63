"""The service in AWS Lambda behind an API Gateway
HTTP API (payload 2.0) whose JWT authorizer has verified the caller.

The app and its container are built on the first request (the table names resolved then) and
kept for the warm ones; that first request runs with the cycle collector paused
(entrypoints/cold_start.py), and what the build made is kept out of later collections.
"""

from __future__ import annotations

import json
from typing import Any

from mangum import Mangum

from entrypoints.cold_start import collector_paused, keep_out_of_collections

_HANDLER: Mangum | None = None


def _build() -> Mangum:
    from adapters.identity.claims import claims_subject
    from entrypoints.container import build_container
    from entrypoints.http.app import create_app
    from entrypoints.http.identity import api_gateway_claims

    container = build_container(runner_mode="detached")
    container.tables()  # resolved once per cold start, as the handlers' (lambda_handlers.py)
    app = create_app(container, api_gateway_claims(claims_subject))
    return Mangum(app, lifespan="off")


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    global _HANDLER
    if _HANDLER is None:
        with collector_paused():
            _HANDLER = _build()
            keep_out_of_collections()
            return _answer(_HANDLER, event, context)
    return _answer(_HANDLER, event, context)


def _answer(mangum: Mangum, event: dict[str, Any], context: Any) -> dict[str, Any]:
    from entrypoints.http.api_gateway_event import event_problem

    problem = event_problem(event)
    if problem is not None:
        return {
            "statusCode": 400,
            "headers": {"content-type": "application/json"},
            "body": json.dumps({"message": problem}, separators=(",", ":")),
            "isBase64Encoded": False,
        }
    answer: dict[str, Any] = mangum(_decoded_once(event), context)
    return answer


def _decoded_once(event: dict[str, Any]) -> dict[str, Any]:
    """The event with its path as Mangum must be given it to leave it as API Gateway sent it.

    An HTTP API decodes the path before the function sees it (`/runs/%2530` arrives as
    `/runs/%30`), and Mangum unquotes it once more (`/runs/0`): another resource than the one
    asked for. Each `%` escaped, Mangum's unquote gives back the path as received.
    """
    context = event["requestContext"]
    path = context["http"]["path"]
    if "%" not in path:
        return event
    http = {**context["http"], "path": path.replace("%", "%25")}
    return {**event, "requestContext": {**context, "http": http}}
