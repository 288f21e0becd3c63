"""`kill -9` of a detached worker of a run stored on DynamoDB (a moto server the `wfx` processes
reach over HTTP): the first read after the worker is gone ends the run FAILED wfx.RunnerLost,
with its lease and interval far from over, and a redrive finishes it. The same test as
tests/e2e/test_cli_run_control.py's on a SQLite file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.cli import FAKE_AWS, Wfx
from tests.e2e.test_cli_run_control import (
    kill_9_of_a_detached_worker,
    kill_what_is_left,
    signals_stage,
)
from tests.integration.moto_server import moto_server

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("cli-runner-lost-on-moto")]


@pytest.fixture
def endpoint() -> Iterator[str]:
    with moto_server() as url:
        yield url


def test_kill_9_of_a_detached_worker_ends_the_run_on_the_next_read(
    tmp_path: Path, endpoint: str
) -> None:
    on_moto = Wfx(
        tmp_path / "home", WFX_STORE="dynamodb", WFX_DYNAMODB_ENDPOINT=endpoint, **FAKE_AWS
    )
    on_moto.ok("tables", "create")

    try:
        kill_9_of_a_detached_worker(signals_stage(on_moto, tmp_path))
    finally:
        kill_what_is_left(on_moto.home)
