"""ListWorkflows and ListWorkflowVersions: what has been published, a page at a time."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from application.ports.workflows import WorkflowCatalog, WorkflowDefinitions
from domain.errors import WorkflowNotFoundError
from domain.paging import PAGE_TEXT_BUDGET, Page, fitting
from domain.workflow import Identifier, WorkflowDefinition, WorkflowVersion

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100

# A request's query string validates as it is spelt (databaseId, startingToken: the names the
# catalog's token errors use, and the ones a validation message then gives); code builds a
# query by field name.
_QUERY_CONFIG = ConfigDict(
    frozen=True, extra="forbid", defer_build=True, alias_generator=to_camel, populate_by_name=True
)


class ListWorkflowsQuery(BaseModel):
    model_config = _QUERY_CONFIG

    database_id: Identifier | None = None  # None: every database
    limit: int = Field(default=DEFAULT_PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE)
    starting_token: str | None = Field(default=None, min_length=1)


class ListWorkflowVersionsQuery(BaseModel):
    model_config = _QUERY_CONFIG

    database_id: Identifier
    workflow_id: Identifier
    limit: int = Field(default=DEFAULT_PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE)
    starting_token: str | None = Field(default=None, min_length=1)


def version_bytes(version: WorkflowVersion) -> int:
    """About what a version takes in an answer: its steps hold up to a megabyte of text."""
    return len(version.model_dump_json().encode(errors="surrogatepass"))


def versions_page(
    catalog: WorkflowCatalog,
    query: ListWorkflowVersionsQuery,
    budget: int = PAGE_TEXT_BUDGET,
) -> Page[WorkflowVersion]:
    """A page of the workflow's versions, newest first, of at most `query.limit` and, past the
    first, within `budget` of text: a page of 100 large versions would pass what one answer
    holds. A page cut short is asked again at its new size, so the store gives its token."""
    ask = (query.database_id, query.workflow_id)
    page = catalog.list_versions(*ask, query.limit, query.starting_token)
    count = fitting(page.items, version_bytes, budget)
    if count == len(page.items):
        return page
    return catalog.list_versions(*ask, count, query.starting_token)


class ListWorkflows:
    """The definition of every workflow (or one database's), by database id, workflow id."""

    def __init__(self, definitions: WorkflowDefinitions) -> None:
        self._definitions = definitions

    def execute(self, query: ListWorkflowsQuery) -> Page[WorkflowDefinition]:
        return self._definitions.list_definitions(
            query.limit, query.starting_token, database_id=query.database_id
        )


class ListWorkflowVersions:
    """One workflow's versions, newest first; WorkflowNotFoundError when it has none."""

    def __init__(self, catalog: WorkflowCatalog) -> None:
        self._catalog = catalog

    def execute(self, query: ListWorkflowVersionsQuery) -> Page[WorkflowVersion]:
        page = versions_page(self._catalog, query)
        # An empty page past a token is the end of a list; without one, nothing was published.
        if not page.items and (
            query.starting_token is None
            or self._catalog.latest_version(query.database_id, query.workflow_id) is None
        ):
            raise WorkflowNotFoundError(
                f"workflow {query.database_id}/{query.workflow_id} not found"
            )
        return page
