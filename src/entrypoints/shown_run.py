"""A run's main row as every answer shows it: VAMS's list rows and details, wfx's own answers
(launch, abort, rerun, `show`), and so the viewer, which renders those documents. One mapping, so
that what is redacted or cut of a field is said once; each document then writes the values in
its own format (VAMS's: "" for a value not set, dates to the second). Never the run log, which
only the logs route returns (seed 000), nor an ARN, which VAMS keeps from its callers."""

from __future__ import annotations

from typing import Any

from domain.execution import WorkflowExecution
from domain.redaction import redact, redact_optional
from entrypoints.withheld import without_arns


def shown_text(text: str | None) -> str | None:
    """Free text a caller reads: redacted, each ARN (a Step Functions error names those it
    failed on) cut to its name."""
    return None if text is None else without_arns(redact(text))


def shown_run(execution: WorkflowExecution) -> dict[str, Any]:
    """The row's fields by their snake_case names, None where not set, dates as datetimes."""
    return {
        "workflow_execution_id": execution.workflow_execution_id,
        "workflow_database_id": execution.workflow_database_id,
        "workflow_id": execution.workflow_id,
        "workflow_version": execution.workflow_version,
        "execution_group_id": execution.execution_group_id,
        "execution_status": execution.status.value,
        "execution_start_date": execution.execution_start_date,
        # said only when true: the start was estimated
        "start_date_estimated": execution.start_date_estimated or None,
        "execution_stop_date": execution.execution_stop_date,
        "last_sfn_sync_check_date": execution.last_sfn_sync_check_date,
        "triggered_by_user_id": execution.triggered_by_user_id,
        "trigger_type": execution.trigger_type.value,
        "orchestrator": execution.orchestrator,
        "execution_error": shown_text(execution.execution_error),
        "execution_cause": shown_text(execution.execution_cause),
        "redrive_count": execution.redrive_count,
        "redrive_date": execution.redrive_date,
        "redrive_status": execution.redrive_status,
        "redrive_status_reason": execution.redrive_status_reason,
        "client_token": execution.client_token,
        "rerun_of_execution_id": execution.rerun_of_execution_id,
        "abort_requested_date": execution.abort_requested_date,
        "abort_cause": redact_optional(execution.abort_cause),
        "finishing_date": execution.finishing_date,
        # only a delete's mark: a runner's own lease names its host and process, for it alone
        "runner_lease_owner": (
            execution.runner_lease.owner
            if execution.runner_lease is not None and execution.is_being_deleted
            else None
        ),
    }
