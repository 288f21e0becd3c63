"""The feature suite's fixtures: every scenario runs once on SQLite and once on DynamoDB (moto).

Scenarios go through the real container: the real use cases, the real storage adapter of the
backend, the local runner in inline mode (a launch returns once the run has finished), the
filesystem object store and log store under `tmp_path`. Only the clock is ours, so that "newest
first" does not depend on how fast the machine is. The run reporter is wrapped in an observer
that runs a scenario's hooks at the runner's callbacks; a scenario tagged @observed also has it
note what the store holds around each callback (two reads a time, so only where a step reads
them: any other scenario that asks for the notes fails).

The step definitions (`features/steps/*_steps.py`) are shared by every feature: they are
star-imported here because pytest-bdd finds the step fixtures they register in this namespace.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from dependency_injector import providers
from tests.home_settings import home_settings

from conftest import sqlite_tables_from_template
from entrypoints.container import Container, build_container, create_all_tables
from features.steps.approval_steps import *  # noqa: F403
from features.steps.attempt_steps import *  # noqa: F403
from features.steps.completion_steps import *  # noqa: F403
from features.steps.cost_steps import *  # noqa: F403
from features.steps.details_steps import *  # noqa: F403
from features.steps.launch_steps import *  # noqa: F403
from features.steps.list_steps import *  # noqa: F403
from features.steps.log_steps import *  # noqa: F403
from features.steps.moving_steps import *  # noqa: F403
from features.steps.observer import ObservingReporter
from features.steps.progress_steps import *  # noqa: F403
from features.steps.reconcile_steps import *  # noqa: F403
from features.steps.redrive_status_steps import *  # noqa: F403
from features.steps.redrive_steps import *  # noqa: F403
from features.steps.registration_steps import *  # noqa: F403
from features.steps.rerun_steps import *  # noqa: F403
from features.steps.run_control_steps import *  # noqa: F403
from features.steps.setup_steps import *  # noqa: F403
from features.steps.stepfunctions_steps import *  # noqa: F403
from features.steps.storage_steps import *  # noqa: F403
from features.steps.stored_rows import StoredRows
from features.steps.sub_execution_steps import *  # noqa: F403
from features.steps.sub_process_steps import *  # noqa: F403
from features.steps.vams_row_steps import *  # noqa: F403
from features.steps.workflow_steps import *  # noqa: F403
from features.steps.world import World

START = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
TICK = timedelta(seconds=1)


class FixedClock:
    """A Clock that starts at a fixed moment and moves on by `tick` at every reading."""

    def __init__(self, start: datetime = START, tick: timedelta = TICK) -> None:
        self._next, self._tick = start, tick
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            moment, self._next = self._next, self._next + self._tick
            return moment

    def advance(self, delta: timedelta) -> None:
        """Let `delta` pass at once (a scenario's "30 seconds pass")."""
        with self._lock:
            self._next += delta


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "observed: the scenario reads the stored statuses noted around each runner callback",
    )


@pytest.fixture(params=["sqlite", "dynamodb"], autouse=True)
def storage(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def retry_waits() -> list[float]:
    """The waits the local runner made between a step's attempts, in order (none really slept)."""
    return []


@pytest.fixture
def container(
    storage: str, tmp_path: Path, request: pytest.FixtureRequest, retry_waits: list[float]
) -> Iterator[Container]:
    settings = home_settings(tmp_path / "home", store=storage, sqlite_path=tmp_path / "wfx.db")
    container = build_container(settings, runner_mode="inline")
    container.clock.override(providers.Object(FixedClock()))
    container.retry_sleep.override(providers.Object(retry_waits.append))
    if storage == "dynamodb":
        # the root conftest's client, inside a fresh mock_aws() with fake credentials
        client = request.getfixturevalue("moto_dynamodb_tables")
        container.dynamodb_client.override(providers.Object(client))
    else:
        sqlite_tables_from_template(container.sqlite_database())
    observing = request.node.get_closest_marker("observed") is not None
    reporter = ObservingReporter(container.run_reporter(), container.execution_store(), observing)
    container.run_reporter.override(providers.Object(reporter))
    create_all_tables(container)
    yield container
    if storage == "sqlite":
        container.sqlite_database().close()


@pytest.fixture
def observer(container: Container) -> ObservingReporter:
    reporter = container.run_reporter()
    assert isinstance(reporter, ObservingReporter)
    return reporter


@pytest.fixture
def world() -> World:
    return World()


@pytest.fixture
def stored_rows(container: Container, storage: str) -> StoredRows:
    database: Any = container.sqlite_database() if storage == "sqlite" else None
    client: Any = container.dynamodb_client() if storage == "dynamodb" else None
    return StoredRows(storage, container.tables(), database, client)


@pytest.fixture
def uploads(tmp_path: Path) -> Path:
    """Where Given steps write the files a user imports into assets."""
    folder = tmp_path / "uploads"
    folder.mkdir()
    return folder
