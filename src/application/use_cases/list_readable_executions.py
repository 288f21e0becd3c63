"""ListReadableExecutions: a list page of only the runs the caller may read, filled to maxItems
(application.full_pages says how its token stays exact)."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from application.authorization import AccessControl
from application.full_pages import filled_page
from application.use_cases.list_executions import (
    MAX_PAGE_SIZE,
    ListExecutions,
    ListExecutionsQuery,
)
from domain.authorization import Subject, is_administrator
from domain.execution import WorkflowExecution
from domain.paging import Page


class ListReadableExecutionsQuery(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    subject: Subject
    listing: ListExecutionsQuery = ListExecutionsQuery()


class ListReadableExecutions:
    """ListExecutions, each row checked by AccessControl.readable (tier 2 GET)."""

    def __init__(self, executions: ListExecutions, access: AccessControl) -> None:
        self._executions, self._access = executions, access

    def execute(self, query: ListReadableExecutionsQuery) -> Page[WorkflowExecution]:
        subject = self._access.subject_with_roles(query.subject)
        if not subject.roles and not is_administrator(subject):
            return Page(items=())  # no role allows anything: not one execution read
        listing = query.listing

        def read(size: int, token: str | None) -> Page[WorkflowExecution]:
            same = size == listing.limit and token == listing.starting_token
            update = {"limit": size, "starting_token": token}
            return self._executions.execute(listing if same else listing.model_copy(update=update))

        def keep(rows: Sequence[WorkflowExecution]) -> list[WorkflowExecution]:
            return self._access.readable(subject, rows, roles_resolved=True)

        return filled_page(read, keep, listing.limit, listing.starting_token, MAX_PAGE_SIZE)
