"""ResolveExecutionId: what a person types for a run - its whole id, `latest`, or the first
characters of its id, as `wfx executions list` shows them - to the run's whole id.

A prefix is looked for among the newest runs (the global newest-first list, one index query a
page, never a scan): `PREFIX_WINDOW` of them. An older run is named by its whole id; an unknown or
ambiguous prefix is refused, naming the runs it could be.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

from application.ports.executions import ExecutionQueries, ListScope
from domain.errors import InvalidInputError, NotFoundError

LATEST = "latest"
PREFIX_WINDOW = 1000
MIN_PREFIX = 4
MAX_TYPED = 512
_PAGE = 100
# a VAMS GUID (32 hex digits), or the dashed UUID wfx gave runs before 0.2
_WHOLE_ID = re.compile(
    r"^([0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$"
)
_PREFIX = re.compile(r"^[0-9a-f-]+$")


class ResolveExecutionIdQuery(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    text: str  # bounded by execute, whose errors name it as people type it: EXECUTION_ID


class ResolveExecutionId:
    def __init__(self, store: ExecutionQueries) -> None:
        self._store = store

    def execute(self, query: ResolveExecutionIdQuery) -> str:
        text = query.text.strip()
        if not text:
            raise InvalidInputError(
                f"EXECUTION_ID: empty; give the id, at least {MIN_PREFIX} of its first "
                "characters, or `latest`"
            )
        if len(text) > MAX_TYPED:
            raise InvalidInputError(
                f"EXECUTION_ID: {len(text)} characters, more than an id has (at most {MAX_TYPED})"
            )
        if text.lower() == LATEST:
            page = self._store.list_executions(ListScope.ALL, None, 1, None)
            if not page.items:
                raise NotFoundError("latest: there is no execution yet")
            return page.items[0].workflow_execution_id
        lowered = text.lower()
        if _WHOLE_ID.match(lowered) or not _PREFIX.match(lowered):
            return text  # a whole id, or an id of some other shape: the store says if it exists
        if len(lowered) < MIN_PREFIX:
            raise InvalidInputError(
                f"EXECUTION_ID: {text!r} is too short a prefix: give at least {MIN_PREFIX} "
                "characters of the id, the whole id, or `latest`"
            )
        return self._by_prefix(text, lowered)

    def _by_prefix(self, text: str, prefix: str) -> str:
        matches: list[str] = []
        token: str | None = None
        seen = 0
        while seen < PREFIX_WINDOW:
            page = self._store.list_executions(ListScope.ALL, None, _PAGE, token)
            seen += len(page.items)
            matches += [
                e.workflow_execution_id
                for e in page.items
                if e.workflow_execution_id.lower().startswith(prefix)
            ]
            token = page.next_token
            if token is None or len(matches) > 1:
                break
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise NotFoundError(
                f"{text}: no execution among the {PREFIX_WINDOW} newest has an id starting so; "
                "give the whole id"
            )
        shown = ", ".join(matches[:5])
        raise InvalidInputError(
            f"EXECUTION_ID: {text!r} starts the ids of several executions ({shown}): give more "
            "of the id"
        )
