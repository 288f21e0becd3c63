"""A VAMS deployment whose parameters do not name a table: the service answers 503 naming the
setting, and its log names the parameter."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from adapters.tables import TableNameError, TableNames
from entrypoints.container import build_container
from entrypoints.dependency_injection import providers
from entrypoints.http.app import create_app
from entrypoints.http.identity import verified_by
from entrypoints.settings import Settings

PROBLEM = "VAMS_RESOURCE_PARAM_PREFIX (/vams/prod): the SSM parameter /vams/prod/x does not exist"


def _unnamed() -> TableNames:
    raise TableNameError(PROBLEM)


def test_a_table_without_a_name_is_a_503_naming_the_setting(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings.from_environment({"WFX_HOME": str(tmp_path), "WFX_USER": "alice"})
    container = build_container(settings)
    container.authorization_store().create_tables()  # the token check reads revoked tokens
    app = create_app(container, verified_by(container.token_verifier()))
    token = container.token_issuer().issue("alice", timedelta(minutes=5), roles=("admin",))
    # after the token verifier (it reads revoked tokens from the store) is built
    container.tables.override(providers.Callable(_unnamed))

    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get("/workflows/executions", headers={"Authorization": f"Bearer {token}"})

    assert answer.status_code == 503, answer.text
    assert "VAMS_RESOURCE_PARAM_PREFIX" in answer.json()["message"]
    assert "/vams/prod/x" not in answer.text
    assert PROBLEM in caplog.text
