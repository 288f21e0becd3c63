"""The query parameters of VAMS 2.6's execution lists (the global list and an asset's), with
wfx's earlier names still taken: `pageSize` (or `maxItems`; default 50, more is served as 100),
`startingToken` (or `NextToken`), `groupId` (or `executionGroupId`), `status`, `triggerType`,
`triggeredByUserId`, `workflowId` and `workflowDatabaseId` (each alone a filter, both one
workflow), and the start-date window `filterStartDate` (default: 90 days back) and
`filterEndDate`, echoed in the answer as applied."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Annotated, Any

from fastapi import Query

from application.ports.system import Clock
from application.use_cases.list_executions import MAX_PAGE_SIZE, ListExecutionsQuery
from domain.errors import InvalidInputError
from domain.triggers import TriggerType, trigger_type_from_request

VAMS_PAGE_SIZE = 50
DEFAULT_WINDOW = timedelta(days=90)

Text = Annotated[str | None, Query(min_length=1, max_length=256)]
Token = Annotated[str | None, Query(min_length=1, max_length=4096)]
Size = Annotated[int | None, Query(ge=1, description=f"At most {MAX_PAGE_SIZE} are served.")]
Date = Annotated[
    str | None,
    Query(min_length=1, max_length=64, description="ISO 8601: 2026-01-31 or 2026-01-31T08:00:00Z"),
]


@dataclass(frozen=True)
class ListParameters:
    page_size: int | None
    max_items: int | None
    starting_token: str | None
    next_token: str | None
    group_id: str | None
    execution_group_id: str | None
    status: str | None
    trigger_type: str | None
    triggered_by_user_id: str | None
    filter_start_date: str | None
    filter_end_date: str | None

    def window(self, clock: Clock) -> tuple[datetime, datetime | None]:
        start = _moment("filterStartDate", self.filter_start_date)
        end = _moment("filterEndDate", self.filter_end_date)
        if start is None:
            start = (clock.now() - DEFAULT_WINDOW).replace(microsecond=0)
        if end is not None and end < start:
            raise InvalidInputError("filterEndDate: must not be before filterStartDate")
        return start, end

    def query(self, clock: Clock, **scope: Any) -> ListExecutionsQuery:
        start, end = self.window(clock)
        size = self.page_size if self.page_size is not None else self.max_items
        return ListExecutionsQuery(
            **scope,
            group=self.group_id or self.execution_group_id,
            status=self.status,
            trigger_type=_trigger(self.trigger_type),
            triggered_by_user_id=self.triggered_by_user_id,
            started_from=start,
            started_to=end,
            limit=min(size or VAMS_PAGE_SIZE, MAX_PAGE_SIZE),
            starting_token=self.starting_token or self.next_token,
        )

    def echo(self, clock: Clock) -> dict[str, str]:
        """The window applied, as VAMS says it back (`filterEndDate` only when one was given)."""
        start, end = self.window(clock)
        said = {"filterStartDate": _iso(start)}
        return said if end is None else said | {"filterEndDate": _iso(end)}


def list_parameters(
    page_size: Annotated[Size, Query(alias="pageSize")] = None,
    max_items: Annotated[
        Size, Query(alias="maxItems", description="pageSize's earlier name")
    ] = None,
    starting_token: Annotated[Token, Query(alias="startingToken")] = None,
    next_token: Annotated[Token, Query(alias="NextToken", description="startingToken")] = None,
    group_id: Annotated[Text, Query(alias="groupId")] = None,
    execution_group_id: Annotated[
        Text, Query(alias="executionGroupId", description="groupId's earlier name")
    ] = None,
    status: Annotated[Text, Query()] = None,
    trigger_type: Annotated[
        Text, Query(alias="triggerType", description="Manual, File-Upload (or manual, fileUpload)")
    ] = None,
    triggered_by_user_id: Annotated[Text, Query(alias="triggeredByUserId")] = None,
    filter_start_date: Annotated[Date, Query(alias="filterStartDate")] = None,
    filter_end_date: Annotated[Date, Query(alias="filterEndDate")] = None,
) -> ListParameters:
    return ListParameters(
        page_size=page_size,
        max_items=max_items,
        starting_token=starting_token,
        next_token=next_token,
        group_id=group_id,
        execution_group_id=execution_group_id,
        status=status,
        trigger_type=trigger_type,
        triggered_by_user_id=triggered_by_user_id,
        filter_start_date=filter_start_date,
        filter_end_date=filter_end_date,
    )


def _trigger(value: str | None) -> TriggerType | None:
    if value is None:
        return None
    try:
        return TriggerType(value)  # the stored form, as VAMS's board sends it
    except ValueError:
        pass
    try:
        return trigger_type_from_request(value)
    except InvalidInputError:
        raise InvalidInputError(
            "triggerType: must be one of Manual, File-Upload (or manual, fileUpload), "
            f"got {value!r}"
        ) from None


def _moment(name: str, value: str | None) -> datetime | None:
    """A date (midnight UTC) or a date and time (UTC when it names no zone)."""
    if value is None:
        return None
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            return datetime(day.year, day.month, day.day, tzinfo=UTC)
        moment = datetime.fromisoformat(value)
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except (ValueError, OverflowError):
        raise InvalidInputError(
            f"{name}: must be an ISO 8601 date or time, as 2026-01-31 or 2026-01-31T08:00:00Z, "
            f"got {value!r}"
        ) from None


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")
