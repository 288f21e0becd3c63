"""`wfx migrate v1 --json`: the migration's report, in the entrypoints' camelCase."""

from __future__ import annotations

from application.use_cases.migrate_v1 import MigrateV1Result
from entrypoints.responses import Response


class MigratedItemResponse(Response):
    item_key: str
    workflow_execution_id: str | None = None
    outcome: str
    status: str | None = None
    detail: str | None = None


class MigrationReportResponse(Response):
    dry_run: bool
    resumed_after: str | None = None
    before_checkpoint: int
    # every outcome, with 0 for those that did not happen: a script reads any of them
    counts: dict[str, int]
    items: tuple[MigratedItemResponse, ...]

    @classmethod
    def of(cls, result: MigrateV1Result) -> MigrationReportResponse:
        return cls(
            dry_run=result.dry_run,
            resumed_after=result.resumed_after,
            before_checkpoint=result.before_checkpoint,
            counts={outcome.value: count for outcome, count in result.counts.items()},
            items=tuple(
                MigratedItemResponse(
                    item_key=item.item_key,
                    workflow_execution_id=item.workflow_execution_id,
                    outcome=item.outcome.value,
                    status=item.status,
                    detail=item.detail,
                )
                for item in result.items
            ),
        )
