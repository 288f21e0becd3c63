"""The viewer's pure parts: the `wfx serve --open` link (the local user, as the CLI acts, and
no link when an identity provider's tokens are the only ones trusted), opening a browser only
with a display, and the timeline's bars."""

from __future__ import annotations

import dataclasses
import sys
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from entrypoints.cli import serve
from entrypoints.http.viewer.timeline import timeline_of
from entrypoints.identity_wiring import verifier_for
from entrypoints.settings import JwtSettings, Settings
from tests.home_settings import home_settings


def _settings(home: Path) -> Settings:
    return home_settings(home, user="dana")


def test_the_open_link_logs_in_the_local_user_as_the_cli_acts(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    link = serve.login_link(settings, "0.0.0.0", 8123)
    assert link is not None
    parts = urlsplit(link)
    assert (parts.scheme, parts.netloc, parts.path) == ("http", "127.0.0.1:8123", "/login")
    (token,) = parse_qs(parts.query)["token"]
    subject = verifier_for(settings, tmp_path).verify(token)
    assert subject.user_id == "dana"
    assert "admin" in subject.roles


def test_no_link_when_the_service_trusts_an_identity_provider_only(tmp_path: Path) -> None:
    settings = dataclasses.replace(
        _settings(tmp_path), jwt=JwtSettings(jwks=str(tmp_path / "jwks.json"), issuer="x")
    )
    assert serve.login_link(settings, "127.0.0.1", 8000) is None


def test_a_browser_is_tried_only_with_a_display(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert not serve._has_display()
    monkeypatch.setenv("DISPLAY", ":0")
    assert serve._has_display()


def test_the_timeline_places_steps_and_retried_attempts_on_one_axis() -> None:
    details = {
        "executionStartDate": "2026-01-01T00:00:00Z",
        "executionStopDate": "2026-01-01T00:00:10Z",
        "pipelines": [
            {
                "pipelineId": "a",
                "executionStatus": "SUCCEEDED",
                "executionStartDate": "2026-01-01T00:00:00Z",
                "executionStopDate": "2026-01-01T00:00:05Z",
                "attempts": [
                    {
                        "attempt": 1,
                        "status": "FAILED",
                        "startDate": "2026-01-01T00:00:00Z",
                        "stopDate": "2026-01-01T00:00:02Z",
                    },
                    {
                        "attempt": 2,
                        "status": "SUCCEEDED",
                        "startDate": "2026-01-01T00:00:03Z",
                        "stopDate": "2026-01-01T00:00:05Z",
                    },
                ],
            },
            {
                "pipelineId": "b",
                "executionStatus": "RUNNING",
                "executionStartDate": "2026-01-01T00:00:05Z",
                "executionStopDate": "",
                "attempts": [],
            },
            {
                "pipelineId": "c",
                "executionStatus": "NEW",
                "executionStartDate": "",
                "executionStopDate": "",
                "attempts": [],
            },
        ],
    }
    shown = timeline_of(details, now=datetime(2026, 1, 1, 0, 0, 10, tzinfo=UTC))
    assert shown is not None
    bars = [(b.label, b.kind, b.x, b.width) for b in shown.bars]
    assert bars == [
        ("a", "step", 0.0, 50.0),
        ("a attempt 1", "attempt", 0.0, 20.0),
        ("a attempt 2", "attempt", 30.0, 20.0),
        ("b", "step", 50.0, 50.0),
    ]
    assert timeline_of({"executionStartDate": ""}) is None
