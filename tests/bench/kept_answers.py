"""AWS answers kept, then given back after a network's round trip: the latency benches' method.

A read is first made on moto with each request's answer kept (the HTTP response, its parse, and
an S3 object's body as bytes). From `over_the_network` on, each request waits its round trip in
its own thread (a `before-call` hook that sleeps), then gets its kept answer through botocore's
own short-circuit: the client's work (wfx's, botocore's serializing, the answer's parse copied)
is measured, moto's Python, which would hold the GIL a network's wait releases, is not.
"""

from __future__ import annotations

import copy
import io
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

# a request: its operation, path, query and body (S3's GETs differ by path and version)
Request = tuple[str, str, str, Any]
# moto's HTTP response, its parse without the body, and the body (S3's GetObject) if any
Answers = dict[Request, tuple[Any, Any, bytes | None]]

_EVERY_CALL = "before-call.*.*"  # a client's own events: only its service's calls


def _request(model: Any, params: dict[str, Any]) -> Request:
    return (model.name, params["url_path"], repr(params["query_string"]), params["body"])


def _body(data: bytes) -> Any:
    from botocore.response import StreamingBody

    return StreamingBody(io.BytesIO(data), len(data))


def kept_answers(clients: Sequence[Any], reads: Sequence[Callable[[], object]]) -> Answers:
    """Each request the reads make on the clients, with moto's answer."""
    answers: Answers = {}

    def name(model: Any, params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        context["bench_request"] = _request(model, params)

    def keep(http_response: Any, parsed: Any, context: dict[str, Any], **_: Any) -> None:
        body = parsed.pop("Body", None)  # a stream, read once: kept as bytes, given back anew
        data = None if body is None else bytes(body.read())
        answers[context["bench_request"]] = (http_response, copy.deepcopy(parsed), data)
        if data is not None:
            parsed["Body"] = _body(data)

    for client in clients:
        client.meta.events.register(_EVERY_CALL, name, unique_id="bench-name")
        client.meta.events.register("after-call.*.*", keep, unique_id="bench-keep")
    for read in reads:
        read()
    for client in clients:
        client.meta.events.unregister(_EVERY_CALL, unique_id="bench-name")
        client.meta.events.unregister("after-call.*.*", unique_id="bench-keep")
    return answers


def over_the_network(
    clients: Sequence[Any],
    answers: Answers,
    round_trip_ms: float,
    made: list[str] | None = None,
) -> None:
    """From now on each request waits a round trip, then gets its kept answer; its operation is
    added to `made` (list.append holds under threads)."""

    def answer(model: Any, params: dict[str, Any], **_: Any) -> tuple[Any, Any]:
        if made is not None:
            made.append(model.name)
        time.sleep(round_trip_ms / 1000)
        http_response, parsed, data = answers[_request(model, params)]
        parsed = copy.deepcopy(parsed)
        if data is not None:
            parsed["Body"] = _body(data)
        return http_response, parsed

    for client in clients:
        client.meta.events.register(_EVERY_CALL, answer, unique_id="bench-answer")


def back_from_the_network(clients: Sequence[Any]) -> None:
    """The clients ask moto again."""
    for client in clients:
        client.meta.events.unregister(_EVERY_CALL, unique_id="bench-answer")


def requests_of(clients: Sequence[Any], read: Callable[[], object]) -> int:
    """How many requests `read` makes on the clients."""
    seen: list[str] = []  # list.append holds under threads

    def count(model: Any, **_: Any) -> None:
        seen.append(model.name)

    for client in clients:
        client.meta.events.register(_EVERY_CALL, count, unique_id="bench-count")
    read()
    for client in clients:
        client.meta.events.unregister(_EVERY_CALL, unique_id="bench-count")
    return len(seen)


def fake_credentials(region: str) -> None:
    """What boto3 needs to sign a request to moto, unless the environment has it."""
    for name, value in {
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "AWS_DEFAULT_REGION": region,
    }.items():
        os.environ.setdefault(name, value)


def print_figures(results: dict[str, Any], figures: Sequence[str], round_trip_ms: float) -> None:
    """Each figure's ways in milliseconds, its requests and its gain, a line each."""
    for figure in figures:
        ms = results[f"{figure}_ms"]
        print(
            f"{figure}, {results[f'{figure}_requests']} requests at {round_trip_ms:g} ms each: "
            + ", ".join(f"{way} {value:.1f} ms" for way, value in ms.items())
            + f" = {results[f'{figure}_gain']:.2f}x"
        )
