"""The service's own messages reach the caller whole: redaction, which every message goes
through, finds nothing to hide in what the service wrote itself (it used to answer `no bearer
[REDACTED]` and `/login?token=[REDACTED]`)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.http.conftest import Service

pytestmark = pytest.mark.parametrize("inline_container", ["sqlite"], indirect=True)


def test_the_no_token_answer_says_what_to_send_unredacted(service: Service) -> None:
    answer = service.client.get("/workflows/executions")
    assert answer.status_code == 401
    message = answer.json()["message"]
    assert "[REDACTED]" not in message
    assert "Authorization: Bearer <token>" in message
    assert "wfx auth token USER" in message


def test_the_viewer_says_how_to_log_in_unredacted(service: Service) -> None:
    from entrypoints.http.app import create_app
    from entrypoints.http.identity import verified_by

    verifier = service.container.token_verifier()
    app = create_app(service.container, verified_by(verifier), sessions=verifier)
    with TestClient(app, raise_server_exceptions=False) as viewer:
        for page in (viewer.get("/"), viewer.get("/login")):
            assert page.status_code == 401
            assert "[REDACTED]" not in page.text
            assert "/login?token=&lt;token&gt;" in page.text
