"""Given steps that set the scene: published workflows and asset files."""

from __future__ import annotations

from pathlib import Path

import yaml
from pytest_bdd import given, parsers, when

from application.use_cases.import_asset_files import ImportAssetFilesCommand, ImportedFile
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from domain.assets import AssetFile, AssetRef
from entrypoints.container import Container
from features.steps.world import World, split_list

WORKFLOWS = Path(__file__).resolve().parent.parent / "workflows"


def import_files(
    container: Container, uploads: Path, asset: str, file_keys: list[str], edition: str
) -> list[AssetFile]:
    """Write each file under `uploads` with content naming its edition, then import it."""
    ref = AssetRef.parse(asset, "asset", allow_file=False)
    files = []
    for file_key in file_keys:
        path = uploads / edition / ref.database_id / ref.asset_id / file_key
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{asset}/{file_key}, {edition} edition\n", encoding="utf-8")
        files.append(ImportedFile(file_key=file_key, path=path))
    command = ImportAssetFilesCommand(
        database_id=ref.database_id, asset_id=ref.asset_id, files=tuple(files)
    )
    return container.import_asset_files().execute(command)


@given(parsers.parse('the workflow "{workflow}" is published from "{file_name}"'))
def _(container: Container, world: World, workflow: str, file_name: str) -> None:
    document = parse_workflow_document(yaml.safe_load((WORKFLOWS / file_name).read_text()))
    command = PublishWorkflowVersionCommand(document=document, published_by=world.user)
    published = container.publish_workflow_version().execute(command).version
    assert f"{published.database_id}/{published.workflow_id}" == workflow


@given(parsers.parse('the asset "{asset}" holds the files "{file_keys}"'))
def _(container: Container, uploads: Path, world: World, asset: str, file_keys: str) -> None:
    for stored in import_files(container, uploads, asset, split_list(file_keys), "first"):
        world.imported.setdefault(f"{asset}/{stored.file_key}", stored.version_id)


@given(parsers.parse('the file "{reference}" gets a new version'))
@when(parsers.parse('the file "{reference}" gets a new version'))
def _(container: Container, uploads: Path, reference: str) -> None:
    ref = AssetRef.parse(reference, "file")
    assert ref.file_key is not None
    asset = f"{ref.database_id}/{ref.asset_id}"
    import_files(container, uploads, asset, [ref.file_key], "second")
