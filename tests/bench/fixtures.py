"""What every measurement sets up: a container on a SQLite file, a workflow, an asset of files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from dependency_injector import providers

from application.ports.orchestration import Described
from application.use_cases.import_asset_files import ImportAssetFilesCommand, ImportedFile
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from domain.assets import AssetFile
from domain.workflow import WorkflowVersion
from entrypoints.container import Container, build_container, create_all_tables
from entrypoints.settings import Settings
from tests.home_settings import home_settings

REPO = Path(__file__).resolve().parents[2]
TRIVIAL_WORKFLOW = REPO / "examples" / "trivial" / "workflow.yaml"
LAUNCH_WORKFLOW = Path(__file__).with_name("launch_workflow.yaml")
USER = "bench"
ASSET_DATABASE = "bench"
ASSET_ID = "asset"
ASSET = f"{ASSET_DATABASE}/{ASSET_ID}"
INPUT_FILE_COUNT = 4


class NoStartOrchestrator:
    """An orchestrator that starts nothing, so a launch figure is the launch write path alone."""

    name = "local"
    synchronous = False

    def start_problem(self, version: Any) -> str | None:
        return None

    def ended_run(self, workflow_execution_id: str) -> None:
        return None

    def launch_claim(self) -> None:
        return None  # no runner: the launch writes the run alone

    def start_execution(self, execution: Any, version: Any, steps: Any) -> str | None:
        return None

    def describe_execution(self, execution: Any) -> None:
        return None  # never heard of it: a details read leaves the open row as it is

    def describe_each(self, executions: Any) -> list[Described]:
        return [Described.of(self.describe_execution, execution) for execution in executions]

    def lost_runner(self, execution: Any) -> None:
        return None  # no runner to lose


def bench_settings(home: Path, database: str = "bench.db") -> Settings:
    return home_settings(home, user=USER, sqlite_path=home / database)


def bench_container(
    home: Path, runner_mode: str = "inline", database: str = "bench.db", run_steps: bool = True
) -> Container:
    """A SQLite container with its tables; `run_steps=False` swaps in `NoStartOrchestrator`."""
    home.mkdir(parents=True, exist_ok=True)
    container = build_container(bench_settings(home, database), runner_mode=runner_mode)
    create_all_tables(container)
    if not run_steps:
        container.orchestrator.override(providers.Object(NoStartOrchestrator()))
    return container


def publish(container: Container, workflow_file: Path) -> WorkflowVersion:
    data: Any = yaml.safe_load(workflow_file.read_text(encoding="utf-8"))
    command = PublishWorkflowVersionCommand(document=parse_workflow_document(data))
    return container.publish_workflow_version().execute(command).version


def import_small_files(container: Container, folder: Path) -> list[AssetFile]:
    """Four small files in one asset: the inputs of the launch benchmark."""
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for index in range(INPUT_FILE_COUNT):
        path = folder / f"part-{index}.txt"
        path.write_text(f"bench input {index}\n", encoding="utf-8")
        files.append(ImportedFile(file_key=path.name, path=path))
    command = ImportAssetFilesCommand(
        database_id=ASSET_DATABASE, asset_id=ASSET_ID, files=tuple(files)
    )
    return container.import_asset_files().execute(command)


def launched_run(container: Container, workdir: Path) -> str:
    """The launch workflow published, its four input files imported, one run launched: its id."""
    publish(container, LAUNCH_WORKFLOW)
    import_small_files(container, workdir / "inputs")
    command = LaunchExecutionCommand(
        workflow_database_id="bench", workflow_id="launch", inputs=(ASSET,), user_id=USER
    )
    return container.launch_execution().execute(command).execution.workflow_execution_id
