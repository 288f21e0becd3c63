"""A list's startingToken that holds a date no list wrote (tampered, or cut) is a 400 naming
startingToken, on both stores: never the first page again as if no token had been sent."""

from __future__ import annotations

import base64
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.http.conftest import ADMIN, Service, kept_world


def _decoded(token: str) -> Any:
    return json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))


def _encoded(value: Any) -> str:
    raw = json.dumps(value, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _with_bad_dates(value: Any, bad: str) -> Any:
    """`value` with every date-looking string in it replaced by `bad`."""
    if isinstance(value, str):
        return re.sub(r"\d{4}-\d{2}-\d{2}T[0-9:.]+Z?", bad, value)
    if isinstance(value, list):
        return [_with_bad_dates(v, bad) for v in value]
    if isinstance(value, dict):
        return {k: _with_bad_dates(v, bad) for k, v in value.items()}
    return value


@pytest.mark.parametrize("bad", ["2024-13-45T99:99:99Z", "not a date", ""])
def test_a_list_token_with_an_invalid_date_is_a_400(
    service: Service, bad: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # a second run, launched by the first of these tests on each store and restored for the rest
    kept_world(service, tmp_path, tmp_path_factory, "second run", Service.launch)
    headers = service.as_user(ADMIN, ("admin",))
    first = service.client.get("/workflows/executions?maxItems=1", headers=headers).json()
    token = first["message"]["NextToken"]
    decoded = _decoded(token)
    tampered = _encoded(_with_bad_dates(decoded, bad))
    assert tampered != token, decoded  # the token holds a date

    answer = service.client.get(
        "/workflows/executions", params={"maxItems": 1, "startingToken": tampered}, headers=headers
    )
    assert answer.status_code == 400, answer.text
    assert "startingToken" in answer.json()["message"]


def test_a_filtered_list_pages_on_after_its_default_window_has_moved(service: Service) -> None:
    """The default window starts 90 days before each request's now: the next page, asked a
    second later, is still the same list's (the web client's board with a filter)."""
    headers = service.as_user(ADMIN, ("admin",))
    launched = {service.launch(), service.launch()}
    params = {"pageSize": 1, "triggeredByUserId": ADMIN}
    first = service.client.get("/workflows/executions", params=params, headers=headers)
    token = first.json()["message"]["NextToken"]
    time.sleep(1.1)  # the window's start is said to the second
    second = service.client.get(
        "/workflows/executions", params=params | {"startingToken": token}, headers=headers
    )
    assert second.status_code == 200, second.text
    listed = first.json()["message"]["Items"] + second.json()["message"]["Items"]
    assert {row["workflowExecutionId"] for row in listed} == launched
