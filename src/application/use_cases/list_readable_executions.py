"""ListReadableExecutions: a list page of only the runs the caller may read, filled to maxItems.

A page of the store can hold runs the caller may not read; this reads store pages until it has
`limit` readable rows or the list ends. The NextToken must resume right after the last row
returned, but a store token points after the last row *scanned* and cannot be built from a row
(each adapter encodes its own). So: the first read asks for `limit` rows (all readable, the usual
case, is one read and the store's token is exact); a later read that finds more readable rows
than are still wanted is cut, and that one page is read again from the same token with the
limit ending at the last row kept, whose token is then exact.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from application.authorization import AccessControl
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
        wanted, token, size = listing.limit, listing.starting_token, listing.limit
        kept: list[WorkflowExecution] = []
        while True:
            same = size == listing.limit and token == listing.starting_token
            page = self._executions.execute(
                listing
                if same
                else listing.model_copy(update={"limit": size, "starting_token": token})
            )
            readable = self._access.readable(subject, page.items, roles_resolved=True)
            room = wanted - len(kept)
            if len(readable) > room:
                # Cut after the last row kept: read this page again up to that row, for the
                # store's own token after it.
                last = readable[room - 1]
                through = next(i for i, row in enumerate(page.items) if row is last) + 1
                again = self._executions.execute(
                    listing.model_copy(update={"limit": through, "starting_token": token})
                )
                kept.extend(readable[:room])
                return Page(items=tuple(kept), next_token=again.next_token)
            kept.extend(readable)
            if len(kept) == wanted or page.next_token is None:
                return Page(items=tuple(kept), next_token=page.next_token)
            token = page.next_token
            # Rows were filtered out: read wider pages from here, so a caller who may read few
            # rows of a long list costs fewer reads.
            size = MAX_PAGE_SIZE
