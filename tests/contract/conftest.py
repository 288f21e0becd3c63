"""Every contract test runs once per storage adapter; the adapters' fixtures are in /conftest.py."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
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


@dataclass(frozen=True)
class _Kept:
    """What a first test wrote on one backend: its bodies' folder, its SQLite database (a file
    taken by SQLite's backup) or moto's tables."""

    folder: Path
    tables: dict[str, Any] | None


_KEPT: dict[tuple[str, str], _Kept] = {}  # by (name, backend), for this process


@pytest.fixture
def written_once(
    request: pytest.FixtureRequest, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str, Callable[[], None]], None]:
    """`written_once(name, write)` on the test's `execution_store`: the first test of a process
    on each backend runs `write` and keeps what it stored; every later one gets a copy of it
    (rows, and the bodies moved out of them) instead of writing it again. A test's own writes
    land on its copy only. The store object is the test's own, fresh, as after another process
    wrote the rows."""
    from conftest import dynamodb_tables_snapshot, restore_dynamodb_tables

    backend = str(request.node.callspec.params["execution_store"])
    bodies = tmp_path / "bodies"

    def written(name: str, write: Callable[[], None]) -> None:
        kept = _KEPT.get((name, backend))
        database = None if backend == "dynamodb" else request.getfixturevalue(f"{backend}_database")
        if kept is None:
            write()
            folder = tmp_path_factory.mktemp(f"{name}-{backend}")
            if bodies.exists():
                shutil.copytree(bodies, folder / "bodies")
            if database is None:
                _KEPT[(name, backend)] = _Kept(folder, dynamodb_tables_snapshot())
                return
            _copy_pages(database, folder / "wfx.db", keep=True)
            _KEPT[(name, backend)] = _Kept(folder, None)
            return
        if (kept.folder / "bodies").exists():
            shutil.copytree(kept.folder / "bodies", bodies, dirs_exist_ok=True)
        if kept.tables is not None:
            restore_dynamodb_tables(kept.tables)
            return
        _copy_pages(database, kept.folder / "wfx.db", keep=False)

    return written


def _copy_pages(database: Any, file: Path, keep: bool) -> None:
    """Every page of the database into `file` (keep), or of `file` into the database."""
    with database.exclusive_connection() as connection, closing(sqlite3.connect(file)) as copy:
        source, target = (connection, copy) if keep else (copy, connection)
        source.backup(target)
