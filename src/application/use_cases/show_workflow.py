"""ShowWorkflow: one workflow's definition, one of its versions with its steps, its versions."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from application.ports.workflows import WorkflowCatalog, WorkflowDefinitions
from application.use_cases.list_workflows import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    ListWorkflowVersionsQuery,
    version_bytes,
    versions_page,
)
from domain.errors import WorkflowNotFoundError
from domain.paging import PAGE_TEXT_BUDGET, Page
from domain.workflow import Identifier, WorkflowDefinition, WorkflowVersion


class ShowWorkflowQuery(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    database_id: Identifier
    workflow_id: Identifier
    version: int | None = Field(default=None, ge=1)  # None: the latest
    limit: int = Field(default=DEFAULT_PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE)  # versions to a page
    starting_token: str | None = Field(default=None, min_length=1)


class WorkflowView(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    definition: WorkflowDefinition
    version: WorkflowVersion  # the one asked for, else the latest
    versions: Page[WorkflowVersion]  # newest first


class ShowWorkflow:
    """A workflow's definition with a version's step definitions and a page of its versions;
    WorkflowNotFoundError for a workflow never published or a version it does not have."""

    def __init__(self, definitions: WorkflowDefinitions, catalog: WorkflowCatalog) -> None:
        self._definitions, self._catalog = definitions, catalog

    def execute(self, query: ShowWorkflowQuery) -> WorkflowView:
        definition = self._definitions.find_definition(query.database_id, query.workflow_id)
        if definition is None:
            raise WorkflowNotFoundError(
                f"workflow {query.database_id}/{query.workflow_id} not found"
            )
        number = definition.latest_version if query.version is None else query.version
        version = self._catalog.get_version(query.database_id, query.workflow_id, number)
        listed = ListWorkflowVersionsQuery(
            database_id=query.database_id,
            workflow_id=query.workflow_id,
            limit=query.limit,
            starting_token=query.starting_token,
        )
        # the version shown goes in the same answer as the page
        budget = max(PAGE_TEXT_BUDGET - version_bytes(version), 0)
        versions = versions_page(self._catalog, listed, budget)
        return WorkflowView(definition=definition, version=version, versions=versions)
