"""ListExecutions: newest first, globally, by workflow, by group, or by asset (read or written)."""

from __future__ import annotations

import base64
import binascii
import json

from pydantic import BaseModel, ConfigDict, Field, model_validator

from application.ports import AssetDirection, Clock, ExecutionRef, ExecutionStore, ListScope
from application.use_cases.reconcile_execution import ReconcileExecution
from domain.assets import AssetRef
from domain.errors import InvalidInputError
from domain.execution import WorkflowExecution
from domain.paging import Page
from domain.redrive import with_derived_redrive_status

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100


class ListExecutionsQuery(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow: str | None = None
    group: str | None = Field(default=None, min_length=1)
    asset: str | None = None
    limit: int = Field(default=DEFAULT_PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE)
    starting_token: str | None = None

    @model_validator(mode="after")
    def _one_filter(self) -> ListExecutionsQuery:
        given = [name for name in ("workflow", "group", "asset") if getattr(self, name) is not None]
        if len(given) > 1:
            raise ValueError(f"give at most one of workflow, group, asset (got {', '.join(given)})")
        return self


class ListExecutions:
    """One index query per page for the single-index lists; the asset list merges two indexes.

    With a reconciler, each open row of the page is checked under the 30-second rule; a finished
    row costs no orchestrator call. A local row's redriveStatus is derived as of one moment, with
    no step read for its history (domain.redrive.redrive_status says why).
    """

    def __init__(
        self, store: ExecutionStore, reconcile: ReconcileExecution | None = None, *, clock: Clock
    ) -> None:
        self._store, self._reconcile, self._clock = store, reconcile, clock

    def execute(self, query: ListExecutionsQuery) -> Page[WorkflowExecution]:
        page = self._page(query)
        items = page.items if self._reconcile is None else self._reconcile.execute_all(page.items)
        now = self._clock.now()
        derived = tuple(with_derived_redrive_status(item, now, 0) for item in items)
        return Page(items=derived, next_token=page.next_token)

    def _page(self, query: ListExecutionsQuery) -> Page[WorkflowExecution]:
        if query.asset is not None:
            asset = AssetRef.parse(query.asset, "asset", allow_file=False)
            return self._by_asset(asset.asset_key, query.limit, query.starting_token)
        if query.workflow is not None:
            workflow = AssetRef.parse(
                query.workflow, "workflow", allow_file=False, shape="DATABASE_ID/WORKFLOW_ID"
            )
            return self._store.list_executions(
                ListScope.WORKFLOW, workflow.asset_key, query.limit, query.starting_token
            )
        if query.group is not None:
            return self._store.list_executions(
                ListScope.GROUP, query.group, query.limit, query.starting_token
            )
        return self._store.list_executions(ListScope.ALL, None, query.limit, query.starting_token)

    def _by_asset(self, asset_key: str, limit: int, token: str | None) -> Page[WorkflowExecution]:
        """Union of the runs that read the asset and those that wrote to it, each run once."""
        after = _decode(token)
        # Each side's newest limit+1 after the cursor hold the union's newest limit+1.
        merged: dict[str, ExecutionRef] = {}
        for direction in AssetDirection:
            for ref in self._store.asset_execution_refs(asset_key, direction, after, limit + 1):
                merged[ref.workflow_execution_id] = ref
        ordered = sorted(merged.values(), reverse=True)
        page = ordered[:limit]
        next_token = _encode(page[-1]) if len(ordered) > limit else None
        return Page(items=tuple(self._store.get_executions(page)), next_token=next_token)


def _encode(ref: ExecutionRef) -> str:
    raw = json.dumps([ref.execution_start_date, ref.workflow_execution_id, ref.workflow_key])
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _decode(token: str | None) -> ExecutionRef | None:
    if token is None:
        return None
    refused = InvalidInputError("startingToken: not a token this list returned")
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        fields = json.loads(raw)
    except (ValueError, TypeError, binascii.Error):
        raise refused from None
    if (
        not isinstance(fields, list)
        or len(fields) != 3
        or not all(isinstance(field, str) and field for field in fields)
        or ":" not in fields[2]
    ):
        raise refused
    return ExecutionRef(*fields)
