"""ListExecutions: newest first, globally, by workflow, by group, or by asset (read or written)."""

from collections.abc import Sequence
from enum import StrEnum
from itertools import takewhile

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from application.execution_filter import ExecutionFilter
from application.list_tokens import (
    SCAN_PAGE,
    ScanPosition,
    check_token_shape,
    decode_ref,
    decode_scan,
    encode_ref,
    encode_scan,
)
from application.ports.executions import AssetDirection, ExecutionQueries, ExecutionRef, ListScope
from application.ports.system import Clock
from application.use_cases.reconcile_execution import ReconcileExecution
from domain.assets import AssetRef, check_key_ids
from domain.errors import InvalidInputError
from domain.execution import WorkflowExecution
from domain.paging import Page
from domain.redrive import with_derived_redrive_status
from domain.statuses import ExecutionStatus
from domain.triggers import TriggerType
from domain.workflow import IDENTIFIER_MAX_LENGTH

# Each id a list reads by becomes (part of) a partition key, which DynamoDB caps at 2048 bytes:
# one bound for every entrypoint, the HTTP routes' own.
_Id = Field(default=None, min_length=1, max_length=IDENTIFIER_MAX_LENGTH)

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100


class AssetListDirection(StrEnum):
    """Which runs of an asset: those that read it, those that wrote to it, or both."""

    READ = "read"
    WROTE = "wrote"
    BOTH = "both"


_SIDES = {
    AssetListDirection.READ: (AssetDirection.INPUT,),
    AssetListDirection.WROTE: (AssetDirection.OUTPUT,),
    AssetListDirection.BOTH: (AssetDirection.INPUT, AssetDirection.OUTPUT),
}


class ListExecutionsQuery(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow: str | None = None
    group: str | None = _Id
    asset: str | None = None
    direction: AssetListDirection | None = None  # only with `asset`; None there means BOTH
    # row filters, combinable with any list (VAMS's list filters)
    status: ExecutionStatus | None = None
    workflow_database_id: str | None = _Id
    workflow_id: str | None = _Id
    trigger_type: TriggerType | None = None
    triggered_by_user_id: str | None = _Id
    started_from: AwareDatetime | None = None  # started at or after
    started_to: AwareDatetime | None = None  # started at or before
    limit: int = Field(default=DEFAULT_PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE)
    starting_token: str | None = None


class ListExecutions:
    """One index query per page for the single-index lists; the asset list merges two indexes.

    The argument rules live here (the stores assume valid arguments). With a row filter (status,
    workflow, trigger, user, start dates: application.execution_filter) the list reads on until
    `limit` matching rows or the end, and its token resumes right after the last row returned;
    an asset's list takes a workflow and a group as row filters too. With a reconciler, each
    open row read is checked under the 30-second rule (before the filter, so the filter sees
    what the caller will); a finished row costs no orchestrator call. A local row's
    redriveStatus is derived as of one moment, with no step read for its history
    (domain.redrive.redrive_status says why).
    """

    def __init__(
        self, store: ExecutionQueries, reconcile: ReconcileExecution | None = None, *, clock: Clock
    ) -> None:
        self._store, self._reconcile, self._clock = store, reconcile, clock

    def execute(self, query: ListExecutionsQuery) -> Page[WorkflowExecution]:
        if query.direction is not None and query.asset is None:
            raise InvalidInputError("direction: only an asset list takes a direction")
        check_token_shape(query.starting_token)
        page = self._page(query)
        now = self._clock.now()
        derived = tuple(with_derived_redrive_status(item, now, 0) for item in page.items)
        return Page(items=derived, next_token=page.next_token)

    def _settled(self, rows: Sequence[WorkflowExecution]) -> list[WorkflowExecution]:
        return list(rows) if self._reconcile is None else self._reconcile.execute_all(rows)

    def _page(self, query: ListExecutionsQuery) -> Page[WorkflowExecution]:
        workflow_key: str | None = None
        if query.workflow is not None:
            workflow = AssetRef.parse(
                query.workflow, "workflow", allow_file=False, shape="DATABASE_ID/WORKFLOW_ID"
            )
            check_key_ids(workflow.database_id, workflow.asset_id, "workflow")
            workflow_key = workflow.asset_key
        if query.asset is not None:
            asset = AssetRef.parse(query.asset, "asset", allow_file=False)
            check_key_ids(asset.database_id, asset.asset_id, "asset")
            sides = _SIDES[query.direction or AssetListDirection.BOTH]
            # on an asset's list, a workflow and a group are row filters (VAMS's asset list)
            keep = _filter(query, workflow_key, query.group)
            return self._by_asset(asset.asset_key, sides, keep, query)
        scope, partition = ListScope.ALL, None
        if workflow_key is not None:
            scope, partition = ListScope.WORKFLOW, workflow_key
        if query.group is not None:
            # a group and a workflow: the group's index, filtered to the workflow's runs
            scope, partition = ListScope.GROUP, query.group
        else:
            workflow_key = None  # the workflow's own index already holds only its runs
        keep = _filter(query, workflow_key, None)
        if keep.is_empty or keep.is_lower_bound_only:
            # one index page as the store pages it, cut where the window ends (the HTTP lists'
            # default 90-day window costs no more than no window)
            page = self._store.list_executions(scope, partition, query.limit, query.starting_token)
            rows = self._settled(page.items)
            kept = list(takewhile(lambda row: not keep.is_past(row), rows))
            token = page.next_token if len(kept) == len(rows) else None
            return Page(items=tuple(kept), next_token=token)
        return self._filtered(scope, partition, keep, query)

    def _filtered(
        self,
        scope: ListScope,
        partition: str | None,
        keep: ExecutionFilter,
        query: ListExecutionsQuery,
    ) -> Page[WorkflowExecution]:
        """Store pages of SCAN_PAGE rows, filtered, until `limit` match or the list ends."""
        # the token names its filter: one issued for another filter is refused
        position = decode_scan(query.starting_token, keep.label)
        page_token, skip = position.page_token, position.skip
        found: list[WorkflowExecution] = []
        while True:
            page = self._store.list_executions(scope, partition, SCAN_PAGE, page_token)
            rows = self._settled(page.items)
            for index in range(skip, len(rows)):
                row = rows[index]
                if keep.is_past(row):
                    return Page(items=tuple(found))
                if not keep.matches(row):
                    continue
                found.append(rows[index])
                if len(found) == query.limit:
                    resume = (
                        ScanPosition(keep.label, page_token, index + 1)
                        if index + 1 < len(rows)
                        else ScanPosition(keep.label, page.next_token)
                        if page.next_token
                        else None
                    )
                    token = None if resume is None else encode_scan(resume)
                    return Page(items=tuple(found), next_token=token)
            if page.next_token is None:
                return Page(items=tuple(found))
            page_token, skip = page.next_token, 0

    def _by_asset(
        self,
        asset_key: str,
        sides: tuple[AssetDirection, ...],
        keep: ExecutionFilter,
        query: ListExecutionsQuery,
    ) -> Page[WorkflowExecution]:
        """The runs on the chosen sides of the asset, each run once, newest first."""
        cursor = decode_ref(query.starting_token)
        # Each side's newest n after the cursor hold the union's newest n: those are final.
        wanted = query.limit + 1 if keep.is_empty else max(query.limit + 1, SCAN_PAGE)
        found: list[WorkflowExecution] = []
        while True:
            merged: dict[str, ExecutionRef] = {}
            ended = True
            for side in sides:
                refs = self._store.asset_execution_refs(asset_key, side, cursor, wanted)
                ended = ended and len(refs) < wanted
                for ref in refs:
                    merged[ref.workflow_execution_id] = ref
            ordered = sorted(merged.values(), reverse=True)
            final = ordered[:wanted]
            ended = ended and len(ordered) <= wanted
            rows = {
                row.workflow_execution_id: row
                for row in self._settled(self._store.get_executions(final))
            }
            for index, ref in enumerate(final):
                row = rows.get(ref.workflow_execution_id)
                if row is not None and keep.is_past(row):
                    return Page(items=tuple(found))
                if row is None or not keep.matches(row):
                    continue
                found.append(row)
                if len(found) == query.limit:
                    last = ended and index == len(final) - 1
                    return Page(items=tuple(found), next_token=None if last else encode_ref(ref))
            if ended or not final:
                return Page(items=tuple(found))
            cursor = final[-1]


def _filter(
    query: ListExecutionsQuery, workflow_key: str | None, group: str | None
) -> ExecutionFilter:
    return ExecutionFilter(
        status=query.status,
        workflow_key=workflow_key,
        workflow_database_id=query.workflow_database_id,
        workflow_id=query.workflow_id,
        group=group,
        trigger_type=query.trigger_type,
        triggered_by_user_id=query.triggered_by_user_id,
        started_from=query.started_from,
        started_to=query.started_to,
    )
