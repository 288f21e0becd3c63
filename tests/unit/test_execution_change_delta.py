"""The main row's change made from its delta (the fields it changes) writes exactly what the
comparison of both rows whole wrote: the same attributes in the same order, the same bodies,
the same removed names - for the changes a decision makes and for any other pair of rows."""

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from adapters import run_records
from adapters.item_budget import KEPT_BYTES, Record
from domain.execution import RUN_LOG_TAIL_BYTES, RunnerLease, WorkflowExecution
from domain.statuses import ExecutionStatus
from tests.unit.test_records import an_execution

_MOMENT = datetime(2026, 12, 6, 9, 30, tzinfo=UTC)
_DATES = st.sampled_from([None, _MOMENT, _MOMENT + timedelta(seconds=1, microseconds=250)])
# short, empty, a secret to redact, and over each cap: cut, flagged, its body offloaded
_TEXTS = st.sampled_from(
    [None, "", "boom", "password=hunter2 failed", "e" * (KEPT_BYTES + 10), "é" * KEPT_BYTES]
)
_LOGS = st.sampled_from([None, "", "a log line", "l" * (RUN_LOG_TAIL_BYTES + 5)])
_LEASES = st.sampled_from(
    [
        None,
        RunnerLease(owner="vm:1:a", renewed_date=_MOMENT, expires_date=_MOMENT),
        RunnerLease(owner="vm:1:a", renewed_date=_MOMENT, expires_date=_MOMENT),  # equal, not same
        RunnerLease(owner="vm:2:b", renewed_date=_MOMENT, expires_date=_MOMENT),
    ]
)
_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "status": st.sampled_from(list(ExecutionStatus)),
    "execution_stop_date": _DATES,
    "last_sfn_sync_check_date": _DATES,
    "execution_arn": st.sampled_from([None, "", "arn:aws:states:us-east-1:1:execution:sm:e1"]),
    "state_machine_arn": st.sampled_from([None, "arn:aws:states:us-east-1:1:stateMachine:sm"]),
    "execution_log_group_arn": st.sampled_from([None, "arn:aws:logs:us-east-1:1:log-group:g"]),
    "execution_log": _LOGS,
    "execution_log_object_key": st.sampled_from([None, "executions/e1/run.log"]),
    "execution_error": _TEXTS,
    "execution_cause": _TEXTS,
    "redrive_count": st.sampled_from([0, 1, 2]),
    "redrive_date": _DATES,
    "redrive_status": st.sampled_from([None, "REDRIVABLE", "NOT_REDRIVABLE"]),
    "redrive_status_reason": st.sampled_from([None, "", "ended"]),
    "abort_requested_date": _DATES,
    "abort_cause": _TEXTS,
    "finishing_date": _DATES,
    "runner_lease": _LEASES,
}
_ROWS = st.fixed_dictionaries({}, optional=_FIELDS)


def _whole_rows_change(
    before: WorkflowExecution, after: WorkflowExecution
) -> tuple[Record, tuple[str, ...]]:
    """The change as it was made before it had a delta: both rows dumped and fitted whole,
    then compared."""
    old, _ = run_records.execution_mutable_attributes(before)
    new, removed = run_records.execution_mutable_attributes(after)
    set_once = {"workflow_execution_arn", "workflow_arn", "executionLogGroupArn"}
    values = {
        name: value
        for name, value in new.items()
        if old.get(name) != value and not (name in set_once and value == "")
    }
    values["executionStatus"] = new["executionStatus"]
    offloads = new.offloads if isinstance(new, Record) else ()
    bodies = [o for o in offloads if values.get(f"{o.attribute}ObjectKey")]
    return Record(values, bodies), tuple(name for name in removed if name in old)


def _assert_same_change(before: WorkflowExecution, after: WorkflowExecution) -> None:
    values, removed = run_records.execution_changed_attributes(before, after)
    expected_values, expected_removed = _whole_rows_change(before, after)
    assert list(values.items()) == list(expected_values.items())  # the order is the request's
    assert getattr(values, "offloads", ()) == expected_values.offloads
    assert removed == expected_removed


@settings(max_examples=150, deadline=None)
@given(before=_ROWS, changes=_ROWS, validated=st.booleans())
def test_a_change_from_its_delta_writes_what_the_whole_rows_comparison_wrote(
    before: dict[str, Any], changes: dict[str, Any], validated: bool
) -> None:
    row = an_execution(**before)
    # a decision's two ways: validated again (new objects for equal values), or derived
    after = row._evolve(**changes) if validated else row._replace(**changes)
    _assert_same_change(row, after)


@settings(max_examples=100, deadline=None)
@given(
    before=_ROWS,
    status=st.sampled_from(list(ExecutionStatus)),
    log=st.sampled_from(["", "the run's log", "l" * (RUN_LOG_TAIL_BYTES + 5)]),
    error=_TEXTS,
    cause=_TEXTS,
    log_object_key=st.sampled_from([None, "executions/e1/run.log"]),
)
def test_a_run_s_end_from_its_delta_writes_what_the_whole_rows_comparison_wrote(
    before: dict[str, Any],
    status: ExecutionStatus,
    log: str,
    error: str | None,
    cause: str | None,
    log_object_key: str | None,
) -> None:
    row = an_execution(**(before | {"status": ExecutionStatus.RUNNING}))
    ended = row.complete(status, _MOMENT, log, error, log_object_key, cause)
    _assert_same_change(row, ended)
