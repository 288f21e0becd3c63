"""A run its launch just wrote holds nothing under its output prefix until a step uploads: the
runner says so, and the reports list nothing until then. What is recorded must be what the
general path (every report listing the store) records: the same output files, by step."""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from adapters.local.object_store import FilesystemObjectStore
from adapters.local.output_folder import OutputFolder
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from domain.statuses import ExecutionStatus
from tests.bench.fixtures import USER, bench_container
from tests.step_documents import python_step as shared_python_step

pytestmark = pytest.mark.integration

THIS_MODULE = __name__  # the runner imports the steps below by this name


def nothing(
    input_files: Sequence[str], output_dir: str, execution_id: str, pipeline_execution_id: str
) -> None:
    """Writes no output."""


def writes_a(
    input_files: Sequence[str], output_dir: str, execution_id: str, pipeline_execution_id: str
) -> None:
    os.makedirs(os.path.join(output_dir, "nested"), exist_ok=True)
    Path(output_dir, "nested", "a.txt").write_text("a")


def writes_b(
    input_files: Sequence[str], output_dir: str, execution_id: str, pipeline_execution_id: str
) -> None:
    Path(output_dir, "b.txt").write_text("b")


_step = partial(shared_python_step, THIS_MODULE)  # the steps below, by this module's name


def _recorded(home: Path, steps: list[dict[str, Any]]) -> tuple[object, int]:
    """The output files recorded by a run of `steps` (by step and path), and the listings."""
    container = bench_container(home)
    document = parse_workflow_document(
        {"databaseId": "known", "workflowId": "unstored", "steps": steps}
    )
    version = (
        container.publish_workflow_version()
        .execute(PublishWorkflowVersionCommand(document=document))
        .version
    )
    command = LaunchExecutionCommand(
        workflow_database_id=version.database_id, workflow_id=version.workflow_id, user_id=USER
    )
    listings = 0
    listing = FilesystemObjectStore.list_latest

    def counted(self: FilesystemObjectStore, prefix: str) -> Any:
        nonlocal listings
        listings += 1
        return listing(self, prefix)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(FilesystemObjectStore, "list_latest", counted)
        execution = container.launch_execution().execute(command).execution
    assert execution.status is ExecutionStatus.SUCCEEDED
    store = container.execution_store()
    run_steps = store.list_steps(execution.workflow_execution_id)
    names = {s.pipeline_execution_id: s.pipeline_id for s in run_steps}
    files = store.list_output_files([s.pipeline_execution_id for s in run_steps])
    recorded = sorted((names[f.pipeline_execution_id], f.relative_file_path) for f in files)
    container.sqlite_database().close()
    return recorded, listings


@pytest.mark.parametrize(
    "functions",
    [
        ("nothing", "nothing", "nothing"),
        ("nothing", "writes_a", "nothing"),
        ("writes_a", "nothing", "writes_b"),
        ("nothing", "nothing", "writes_b"),
    ],
)
def test_a_launched_run_records_what_the_general_path_records(
    tmp_path: Path, functions: tuple[str, ...]
) -> None:
    steps = [_step(f"step-{index}", name) for index, name in enumerate(functions)]

    fast, fast_listings = _recorded(tmp_path / "fast", steps)
    with pytest.MonkeyPatch.context() as patch:  # the general path: every report lists
        patch.setattr(OutputFolder, "holds_stored", property(lambda self: True))
        general, general_listings = _recorded(tmp_path / "general", steps)

    assert fast == general
    # a listing only once a step has uploaded something
    first_upload = next((i for i, name in enumerate(functions) if name != "nothing"), None)
    assert general_listings == len(functions)
    assert fast_listings == (0 if first_upload is None else len(functions) - first_upload)
