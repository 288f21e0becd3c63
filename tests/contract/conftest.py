"""Every contract test runs once per storage adapter; the adapters' fixtures are in /conftest.py."""

from __future__ import annotations

from typing import Any

import pytest

BACKENDS = ["sqlite_file", "sqlite_memory", "dynamodb"]


@pytest.fixture(params=BACKENDS)
def execution_store(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue(f"{request.param}_execution_store")


@pytest.fixture(params=BACKENDS)
def workflow_backend(request: pytest.FixtureRequest) -> str:
    """One backend for both workflow ports of a test: they share its tables."""
    return str(request.param)


@pytest.fixture
def workflow_catalog(workflow_backend: str, request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue(f"{workflow_backend}_workflow_catalog")


@pytest.fixture
def workflow_definitions(workflow_backend: str, request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue(f"{workflow_backend}_workflow_definitions")


@pytest.fixture(params=BACKENDS)
def asset_catalog(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue(f"{request.param}_asset_catalog")


@pytest.fixture(params=BACKENDS)
def authorization_store(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue(f"{request.param}_authorization_store")


@pytest.fixture(params=BACKENDS)
def cost_ledger(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue(f"{request.param}_cost_ledger")


@pytest.fixture(params=BACKENDS)
def store_and_ledger(request: pytest.FixtureRequest) -> tuple[Any, Any]:
    """An execution store and the cost ledger on the same database (or tables)."""
    backend = request.param
    return (
        request.getfixturevalue(f"{backend}_execution_store"),
        request.getfixturevalue(f"{backend}_cost_ledger"),
    )
