"""The execution lists and the single-run read as VAMS 2.6 answers them: `{"message": {"Items":
[...], "filterStartDate", "NextToken"}}`, each row with the keys of VAMS's list row
(`handlers/workflows/executionService.py`; the web client's `Execution` type).

VAMS's formats: dates `YYYY-MM-DDTHH:MM:SSZ`, and a value not set yet is `""` (a stop date, a
group, an output target), never left out. `NextToken` is said only when there is more.
wfx's own keys (`workflowVersion`, `orchestrator`, the redrive and abort fields) follow, under
names VAMS does not use; the run log never does (only the logs route returns it, seed 000).
The CLI's `wfx executions list --json` prints the document inside `message`.
"""

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Annotated, Literal, Self

from pydantic import Field, PlainSerializer

from domain.authorization import AssetKey
from domain.execution import WorkflowExecution
from domain.paging import Page
from entrypoints.shown_run import shown_run
from entrypoints.vams_responses import VamsResponse


def _seconds(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


VamsDate = Annotated[datetime, PlainSerializer(_seconds, return_type=str)]


class ExecutionRow(VamsResponse):
    """One run as VAMS's global list shows it, then wfx's own keys (left out when unset)."""

    workflow_execution_id: str
    workflow_id: str
    workflow_database_id: str
    execution_status: str
    execution_start_date: VamsDate
    execution_stop_date: VamsDate | Literal[""] = ""
    trigger_type: str
    triggered_by_user_id: str
    execution_group_id: str = ""
    output_location_type: Literal["asset", "none"]
    output_asset_id: str = ""
    output_database_id: str = ""
    execution_error: str = ""
    # wfx's own
    workflow_version: int
    orchestrator: str
    start_date_estimated: bool | None = None  # true only when the start was estimated
    last_sfn_sync_check_date: VamsDate | None = None
    execution_cause: str | None = None
    redrive_count: int = 0
    redrive_date: VamsDate | None = None
    redrive_status: str | None = None
    redrive_status_reason: str | None = None
    client_token: str | None = None
    rerun_of_execution_id: str | None = None
    abort_requested_date: VamsDate | None = None
    abort_cause: str | None = None
    finishing_date: VamsDate | None = None
    runner_lease_owner: str | None = None

    @classmethod
    def of(cls, execution: WorkflowExecution, output: AssetKey | None) -> Self:
        run = shown_run(execution)
        return cls(
            **run
            | {
                "execution_stop_date": run["execution_stop_date"] or "",
                "execution_group_id": run["execution_group_id"] or "",
                "execution_error": run["execution_error"] or "",
                "output_location_type": "none" if output is None else "asset",
                "output_asset_id": "" if output is None else output.asset_id,
                "output_database_id": "" if output is None else output.database_id,
            }
        )


class AssetExecutionRow(ExecutionRow):
    """A row of an asset's list: VAMS adds the asset listed, the key of the asset's selection the
    run read (`""` when it only wrote the asset) and says the dates twice more (`startDate` /
    `stopDate`, its earlier names)."""

    database_id: str
    asset_id: str
    input_asset_file_key: str = ""
    start_date: VamsDate
    stop_date: VamsDate | Literal[""] = ""

    @classmethod
    def on_asset(
        cls, execution: WorkflowExecution, output: AssetKey | None, asset: AssetKey, key: str
    ) -> Self:
        row = ExecutionRow.of(execution, output)
        return cls(
            **dict(row),
            database_id=asset.database_id,
            asset_id=asset.asset_id,
            input_asset_file_key=key,
            start_date=row.execution_start_date,
            stop_date=row.execution_stop_date,
        )


class ExecutionList(VamsResponse):
    """A newest-first page; `filterStartDate` (and `filterEndDate` when one was given) says the
    start-date window an HTTP list applied."""

    items: tuple[ExecutionRow, ...] = Field(alias="Items")
    filter_start_date: str | None = None
    filter_end_date: str | None = None
    next_token: str | None = Field(default=None, alias="NextToken")

    @classmethod
    def of(
        cls,
        page: Page[WorkflowExecution],
        outputs: Mapping[str, AssetKey | None],
        window: Mapping[str, str] | None = None,
    ) -> Self:
        rows = tuple(ExecutionRow.of(e, outputs.get(e.workflow_execution_id)) for e in page.items)
        return cls(items=rows, next_token=page.next_token, **_window(window))


class AssetExecutionList(ExecutionList):
    items: tuple[AssetExecutionRow, ...] = Field(alias="Items")  # type: ignore[assignment]

    @classmethod
    def on_asset(
        cls,
        page: Page[WorkflowExecution],
        outputs: Mapping[str, AssetKey | None],
        asset: AssetKey,
        input_keys: Mapping[str, str],
        window: Mapping[str, str] | None = None,
    ) -> Self:
        rows = tuple(
            AssetExecutionRow.on_asset(
                e,
                outputs.get(e.workflow_execution_id),
                asset,
                input_keys.get(e.workflow_execution_id, ""),
            )
            for e in page.items
        )
        return cls(items=rows, next_token=page.next_token, **_window(window))


def _window(said: Mapping[str, str] | None) -> dict[str, str | None]:
    said = said or {}
    return {
        "filter_start_date": said.get("filterStartDate"),
        "filter_end_date": said.get("filterEndDate"),
    }


class ExecutionListAnswer(VamsResponse):
    message: ExecutionList


class AssetExecutionListAnswer(VamsResponse):
    message: AssetExecutionList


class ExecutionAnswer(VamsResponse):
    """One run (wfx's route: VAMS reads a run through its details), in VAMS's envelope and with
    the list row's keys."""

    message: ExecutionRow
