"""ListReadableWorkflows: the published workflows the caller may GET, each page filled."""

from __future__ import annotations

from collections.abc import Sequence

from application.authorization import AccessControl, workflow_object
from application.full_pages import filled_page
from application.use_cases.list_workflows import MAX_PAGE_SIZE, ListWorkflows, ListWorkflowsQuery
from domain.authorization import Action, Subject, is_administrator
from domain.paging import Page
from domain.workflow import WorkflowDefinition


class ListReadableWorkflows:
    """The workflow definitions the caller may GET, each page filled to its size."""

    def __init__(self, workflows: ListWorkflows, access: AccessControl) -> None:
        self._workflows, self._access = workflows, access

    def execute(self, subject: Subject, query: ListWorkflowsQuery) -> Page[WorkflowDefinition]:
        subject = self._access.subject_with_roles(subject)
        if not subject.roles and not is_administrator(subject):
            return Page(items=())  # no role allows anything: not one workflow read

        def read(size: int, token: str | None) -> Page[WorkflowDefinition]:
            update = {"limit": size, "starting_token": token}
            return self._workflows.execute(query.model_copy(update=update))

        def keep(rows: Sequence[WorkflowDefinition]) -> list[WorkflowDefinition]:
            return [
                row
                for row in rows
                if self._access.may(
                    subject, workflow_object(row.database_id, row.workflow_id), Action.GET
                )
            ]

        return filled_page(read, keep, query.limit, query.starting_token, MAX_PAGE_SIZE)
