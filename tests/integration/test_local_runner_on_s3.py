"""Local compute, AWS storage: the mesh example run by the local runner with
WFX_OBJECT_STORE=s3 (a versioned bucket on moto, in-process) and SQLite for the rows.

Inputs are fetched from the bucket to a scratch folder, each step's outputs are uploaded under
the run's prefix (an unchanged file is never uploaded again), the results become new versions
of the output asset, and nothing is written to the filesystem object store.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from dependency_injector import providers

from application.use_cases.import_asset_files import ImportAssetFilesCommand, ImportedFile
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from conftest import FAKE_AWS_ENVIRONMENT, S3_BUCKET, versioned_bucket
from domain.execution import ExecutionDetails, execution_output_prefix
from domain.statuses import ExecutionStatus
from entrypoints.container import Container, build_container, create_all_tables
from tests.e2e.cli import MESH_ASSETS, MESH_FILES, MESH_WORKFLOW
from tests.home_settings import home_settings

# one worker runs the module, so its one run is made once
pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("local-runner-on-s3")]


@dataclass(frozen=True)
class Ran:
    home: Path
    details: ExecutionDetails
    versions: list[dict[str, Any]]  # every S3 version in the bucket


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory, _session_s3_client: Any) -> Iterator[Ran]:
    """One run for the module's tests, which read only what was captured here (another test's
    `mock_aws()` may reset moto between two tests of this module under xdist)."""
    from moto import mock_aws

    with pytest.MonkeyPatch.context() as patch, mock_aws():
        for name, value in FAKE_AWS_ENVIRONMENT.items():
            patch.setenv(name, value)
        versioned_bucket(_session_s3_client)
        yield _run(tmp_path_factory.mktemp("local-on-s3"), _session_s3_client)


def _container(home: Path, s3_client: Any | None) -> Container:
    """The application on SQLite in `home`: with the S3 store on `s3_client`, or the filesystem."""
    settings = home_settings(
        home,
        object_store="filesystem" if s3_client is None else "s3",
        s3_bucket=None if s3_client is None else S3_BUCKET,
    )
    container = build_container(settings, runner_mode="inline")
    if s3_client is not None:
        container.s3_client.override(providers.Object(s3_client))
    create_all_tables(container)
    return container


def _publish_and_import(container: Container) -> None:
    document = parse_workflow_document(yaml.safe_load(MESH_WORKFLOW.read_text()))
    container.publish_workflow_version().execute(PublishWorkflowVersionCommand(document=document))
    container.import_asset_files().execute(
        ImportAssetFilesCommand(
            database_id="demo",
            asset_id="meshes",
            files=tuple(ImportedFile(file_key=n, path=MESH_ASSETS / n) for n in MESH_FILES),
        )
    )


def _launch(container: Container) -> ExecutionDetails:
    launched = container.launch_execution().execute(
        LaunchExecutionCommand(
            workflow_database_id="demo",
            workflow_id="mesh-report",
            inputs=("demo/meshes",),
            output="demo/mesh-results",
            user_id="alice",
        )
    )
    execution_id = launched.execution.workflow_execution_id
    details: ExecutionDetails = container.execution_store().get_details(execution_id)
    container.sqlite_database().close()
    return details


def _run(home: Path, s3_client: Any) -> Ran:
    container = _container(home, s3_client)
    _publish_and_import(container)
    details = _launch(container)
    versions = s3_client.list_object_versions(Bucket=S3_BUCKET)["Versions"]
    return Ran(home=home, details=details, versions=versions)


def test_the_run_succeeds_with_its_inputs_read_from_the_bucket(ran: Ran) -> None:
    assert ran.details.execution.status is ExecutionStatus.SUCCEEDED, ran.details.execution
    assert {(row.bucket, row.asset_root_key) for row in ran.details.inputs} == {
        (S3_BUCKET, "assets/demo/meshes/")
    }
    in_s3 = {(v["Key"], v["VersionId"]) for v in ran.versions}
    for row in ran.details.inputs:
        assert (f"{row.asset_root_key}{row.input_asset_file_key}", row.version_id) in in_s3
    downloaded = {p.name for p in (ran.home / "scratch" / "s3").rglob("*.obj")}
    assert set(MESH_FILES) <= downloaded  # the steps were handed local copies
    assert not (ran.home / "objects").exists()  # the filesystem store was never used


def test_each_output_is_uploaded_once_under_the_runs_prefix_and_recorded(ran: Ran) -> None:
    prefix = execution_output_prefix(ran.details.execution.workflow_execution_id)
    outputs = [v for v in ran.versions if v["Key"].startswith(prefix)]
    recorded = {
        (f.relative_file_path, f.version_id)
        for step in ran.details.steps
        for f in step.outputs.files
    }

    assert len({v["Key"] for v in outputs}) == len(outputs)  # one version a file: none re-sent
    assert recorded == {(v["Key"][len(prefix) :], v["VersionId"]) for v in outputs}
    assert {"statistics.json", "normalized/bunny.obj", "preview/bunny.svg"} <= {
        path for path, _ in recorded
    }


def test_the_results_are_versions_of_the_output_asset_in_the_bucket(ran: Ran) -> None:
    results = {
        r.relative_file_path: r.asset_version_id for r in ran.details.steps[-1].outputs.results
    }
    in_asset = {
        v["Key"].removeprefix("assets/demo/mesh-results/"): v["VersionId"]
        for v in ran.versions
        if v["Key"].startswith("assets/demo/mesh-results/")
    }

    assert results and results == in_asset


def test_inputs_imported_before_the_switch_to_s3_fail_the_step_saying_to_import_again(
    tmp_path: Path, moto_s3_client: Any
) -> None:
    before = _container(tmp_path, None)
    _publish_and_import(before)  # into WFX_HOME/objects, bucket wfx-local
    before.sqlite_database().close()

    details = _launch(_container(tmp_path, moto_s3_client))

    assert details.execution.status is ExecutionStatus.FAILED
    error = details.steps[0].step.error or ""
    assert "is in bucket 'wfx-local'" in error and f"'{S3_BUCKET}'" in error
    assert "import the asset again" in error
