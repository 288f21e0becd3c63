"""Newest-first lists: all runs, by workflow, by execution group, by asset; and their pages."""

from __future__ import annotations

from typing import Any

from pytest_bdd import parsers, then

from application.use_cases.list_executions import ListExecutionsQuery
from entrypoints.container import Container
from features.steps.world import World, split_list

_EVERYTHING = 100


def _listed(container: Container, world: World, **scope: Any) -> list[str]:
    page = container.list_executions().execute(ListExecutionsQuery(limit=_EVERYTHING, **scope))
    assert page.next_token is None
    return world.labels([e.workflow_execution_id for e in page.items])


def _pages(container: Container, world: World, size: int, **scope: Any) -> str:
    """Follow the tokens to the end; pages as `"E, D | C, B | A"`."""
    pages: list[str] = []
    token: str | None = None
    while True:
        query = ListExecutionsQuery(limit=size, starting_token=token, **scope)
        page = container.list_executions().execute(query)
        assert 0 < len(page.items) <= size or (not pages and not page.items), page
        pages.append(", ".join(world.labels([e.workflow_execution_id for e in page.items])))
        token = page.next_token
        if token is None:
            return " | ".join(pages)
        assert len(pages) <= _EVERYTHING, "the list never ends"


@then(parsers.parse('the list of all executions is "{labels}"'))
def _(container: Container, world: World, labels: str) -> None:
    assert _listed(container, world) == split_list(labels)


@then(parsers.parse('the list of workflow "{workflow}" is "{labels}"'))
def _(container: Container, world: World, workflow: str, labels: str) -> None:
    assert _listed(container, world, workflow=workflow) == split_list(labels)


@then(parsers.parse('the list of group "{group}" is "{labels}"'))
def _(container: Container, world: World, group: str, labels: str) -> None:
    assert _listed(container, world, group=group) == split_list(labels)


@then(parsers.parse('the list of asset "{asset}" is "{labels}"'))
def _(container: Container, world: World, asset: str, labels: str) -> None:
    assert _listed(container, world, asset=asset) == split_list(labels)


@then(parsers.parse('paging through all executions {size:d} at a time gives "{pages}"'))
def _(container: Container, world: World, size: int, pages: str) -> None:
    assert _pages(container, world, size) == pages


@then(parsers.parse('paging through workflow "{workflow}" {size:d} at a time gives "{pages}"'))
def _(container: Container, world: World, workflow: str, size: int, pages: str) -> None:
    assert _pages(container, world, size, workflow=workflow) == pages


@then(parsers.parse('paging through group "{group}" {size:d} at a time gives "{pages}"'))
def _(container: Container, world: World, group: str, size: int, pages: str) -> None:
    assert _pages(container, world, size, group=group) == pages


@then(parsers.parse('paging through asset "{asset}" {size:d} at a time gives "{pages}"'))
def _(container: Container, world: World, asset: str, size: int, pages: str) -> None:
    assert _pages(container, world, size, asset=asset) == pages


@then(parsers.parse('the list of asset "{asset}" is empty'))
def _(container: Container, world: World, asset: str) -> None:
    assert _listed(container, world, asset=asset) == []
