"""What a finished run records: stop date, log, error, outputs, metadata, results, summaries."""

from __future__ import annotations

from pytest_bdd import parsers, then

from domain.assets import AssetRef, asset_object_key
from domain.execution import execution_output_prefix
from entrypoints.container import Container
from features.steps.reading import current_file, details_of, step_named
from features.steps.world import World, split_list


@then("the execution has a stop date after its start date")
def _(container: Container, world: World) -> None:
    execution = details_of(container, world.execution_id).execution
    assert execution.execution_stop_date is not None, execution
    assert execution.execution_stop_date > execution.execution_start_date


@then("the execution has no error")
def _(container: Container, world: World) -> None:
    assert details_of(container, world.execution_id).execution.execution_error is None


@then(parsers.parse('the execution error names "{text}"'))
def _(container: Container, world: World, text: str) -> None:
    error = details_of(container, world.execution_id).execution.execution_error
    assert error is not None and text in error, error


@then(parsers.parse('the execution log holds "{text}"'))
def _(container: Container, world: World, text: str) -> None:
    log = details_of(container, world.execution_id).execution.execution_log
    assert log is not None and text in log, log


@then(parsers.parse('the step "{name}" has an error naming "{text}"'))
def _(container: Container, world: World, name: str, text: str) -> None:
    error = step_named(details_of(container, world.execution_id), name).step.error
    assert error is not None and text in error, error


@then(parsers.parse('the step "{name}" recorded the metadata "{key}" = "{value}" for "{target}"'))
def _(container: Container, world: World, name: str, key: str, value: str, target: str) -> None:
    metadata = step_named(details_of(container, world.execution_id), name).outputs.metadata
    found = {(row.target_file_path, row.metadata_key): row.value for row in metadata}
    assert found.get((target, key)) == value, found


@then(parsers.parse('the step "{name}" recorded the results "{files}"'))
def _(container: Container, world: World, name: str, files: str) -> None:
    results = step_named(details_of(container, world.execution_id), name).outputs.results
    assert sorted(r.relative_file_path for r in results) == sorted(split_list(files))


@then("the results name no output asset")
def _(container: Container, world: World) -> None:
    details = details_of(container, world.execution_id)
    assert details.configuration is not None
    assert details.configuration.output_asset_key is None
    results = [r for entry in details.steps for r in entry.outputs.results]
    assert results
    for result in results:
        assert (result.output_database_id, result.output_asset_id) == (None, None), result
        assert result.asset_version_id is None, result


@then("every step has a summary log naming its status")
def _(container: Container, world: World) -> None:
    for entry in details_of(container, world.execution_id).steps:
        logs = entry.outputs.logs
        assert [log.log_type for log in logs] == ["summary"], logs
        assert logs[0].status == entry.step.status.value
        assert f"{entry.step.pipeline_id}: {entry.step.status.value}" in logs[0].message


@then(parsers.parse('the asset file "{reference}" is now the run\'s "{relative}" as a new version'))
def _(container: Container, world: World, reference: str, relative: str) -> None:
    current = current_file(container, reference)
    assert current.version_id != world.imported[reference]
    objects = container.object_store()
    run_output = [
        stored
        for stored in objects.list_latest(execution_output_prefix(world.execution_id))
        if stored.key.endswith(f"/output/{relative}")
    ]
    assert len(run_output) == 1, run_output
    key = asset_object_key(current.database_id, current.asset_id, current.file_key)
    written = objects.local_path(key, current.version_id)
    produced = objects.local_path(run_output[0].key, run_output[0].version_id)
    assert written.read_bytes() == produced.read_bytes()
    assert current.etag == run_output[0].etag


@then(parsers.parse('the results point at the new versions in "{asset}"'))
def _(container: Container, world: World, asset: str) -> None:
    ref = AssetRef.parse(asset, "asset", allow_file=False)
    current = {f.file_key: f for f in container.asset_catalog().list_files(*_ids(ref))}
    steps = details_of(container, world.execution_id).steps
    results = [result for entry in steps for result in entry.outputs.results]
    assert results
    for result in results:
        assert (result.output_database_id, result.output_asset_id) == _ids(ref), result
        assert result.asset_version_id == current[result.relative_file_path].version_id, result


def _ids(ref: AssetRef) -> tuple[str, str]:
    return ref.database_id, ref.asset_id
