"""Bounded details: truncatedCollections, and paging the rest through the details metadata."""

from __future__ import annotations

from pathlib import Path

from pytest_bdd import given, parsers, then, when

from application.use_cases.get_execution_details import GetExecutionDetailsQuery
from application.use_cases.get_execution_metadata import GetExecutionMetadataQuery
from domain.errors import DomainError
from domain.execution import ExecutionDetails, ExecutionInput
from entrypoints.container import Container
from features.steps.setup_steps import import_files
from features.steps.world import World


@when(parsers.parse('the details of run "{label}" are read'), target_fixture="details")
def _(container: Container, world: World, label: str) -> ExecutionDetails:
    query = GetExecutionDetailsQuery(workflow_execution_id=world.run(label))
    return container.get_execution_details().execute(query)


@then(parsers.parse("the details hold {count:d} inputs"))
def _(details: ExecutionDetails, count: int) -> None:
    assert len(details.inputs) == count


@then(parsers.parse('the details name "{collection}" as truncated after {returned:d} of "{total}"'))
def _(details: ExecutionDetails, collection: str, returned: int, total: str) -> None:
    (cut,) = [c for c in details.truncated_collections if c.collection == collection]
    assert (cut.returned, str(cut.total)) == (returned, total)
    assert cut.next_token is not None


@then("the details name no truncated collection")
def _(details: ExecutionDetails) -> None:
    assert details.truncated_collections == ()


@then(
    parsers.parse(
        'paging the rest of "{collection}" {size:d} at a time returns the other {count:d} '
        "inputs, each once"
    )
)
def _(
    container: Container, details: ExecutionDetails, collection: str, size: int, count: int
) -> None:
    (cut,) = [c for c in details.truncated_collections if c.collection == collection]
    token = cut.next_token
    paged: list[str] = []
    while token is not None:
        query = GetExecutionMetadataQuery(
            workflow_execution_id=details.execution.workflow_execution_id,
            collection=collection,
            max_items=size,
            starting_token=token,
        )
        page = container.get_execution_metadata().execute(query)
        assert 0 < len(page.items) <= size
        paged += [item.row_key for item in page.items if isinstance(item, ExecutionInput)]
        token = page.next_token
    shown = [row.row_key for row in details.inputs]
    assert len(paged) == count
    assert len(set(paged + shown)) == len(paged) + len(shown)  # none twice, none in both


@when(parsers.parse('the collection "{collection}" of run "{label}" is paged'))
def _(container: Container, world: World, collection: str, label: str) -> None:
    query = GetExecutionMetadataQuery(workflow_execution_id=world.run(label), collection=collection)
    try:
        container.get_execution_metadata().execute(query)
    except DomainError as refused:
        world.refusal = refused


@then(parsers.parse('the paging is refused naming "{text}"'))
def _(world: World, text: str) -> None:
    assert world.refusal is not None, "the paging was not refused"
    assert text in str(world.refusal)


@given(parsers.parse('the asset "{asset}" holds {count:d} files'))
def _(container: Container, uploads: Path, world: World, asset: str, count: int) -> None:
    keys = [f"part-{n:04d}.obj" for n in range(count)]
    for stored in import_files(container, uploads, asset, keys, "first"):
        world.imported.setdefault(f"{asset}/{stored.file_key}", stored.version_id)
