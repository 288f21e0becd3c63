"""Reading gates checks them: one whose run has ended is closed CANCELLED as it is read, and a
page of pending requests reads the runs behind them together, on each store."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from application.run_writes import end_run
from application.use_cases.approvals import CloseOverdueGate
from domain.approvals import ApprovalGate, ApprovalRequest, ApprovalStatus
from domain.run_write import RunWrite
from domain.statuses import ExecutionStatus
from tests.contract.builders import a_launch, step_id, write_launch

GATE = ApprovalGate(approvers=("carol",), message="ship it?", timeout_seconds=3600)


class CountedReads:
    """The execution store, counting the main-row reads a gate check makes."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.reads: list[tuple[str, int]] = []

    def get_execution(self, workflow_execution_id: str) -> Any:
        self.reads.append(("get_execution", 1))
        return self._store.get_execution(workflow_execution_id)

    def get_executions(self, refs: Any) -> Any:
        self.reads.append(("get_executions", len(refs)))
        return self._store.get_executions(refs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def _request(run: str, opened: datetime) -> ApprovalRequest:
    return ApprovalRequest.open(
        f"ap-{run}",
        GATE,
        workflow_execution_id=run,
        pipeline_execution_id=step_id(run, 0),
        attempt=1,
        pipeline_id="sign-off",
        workflow_database_id="db1",
        workflow_id="wf1",
        at=opened,
    )


def test_a_page_of_pending_gates_reads_their_runs_at_once_and_cancels_those_of_ended_runs(
    inline_container: Any,
) -> None:
    store, approvals = inline_container.execution_store(), inline_container.approvals()
    now = datetime.now(UTC)
    for run in ("open-1", "open-2", "ended"):
        write_launch(store, a_launch(run))
        assert store.commit(RunWrite.opening(_request(run, now)))
    end_run(store, "ended", lambda run: run.fail(now, "gave up", "", None))
    counted = CountedReads(store)
    check = CloseOverdueGate(
        approvals, counted, inline_container.gate_resumer(), inline_container.clock(), store
    )

    checked = check.execute_all(
        [approvals.get("ap-open-1"), approvals.get("ap-ended"), approvals.get("ap-open-2")]
    )

    assert [(r.workflow_execution_id, r.status) for r in checked] == [
        ("open-1", ApprovalStatus.PENDING),
        ("ended", ApprovalStatus.CANCELLED),
        ("open-2", ApprovalStatus.PENDING),
    ]
    assert counted.reads == [("get_executions", 3)]
    assert approvals.get("ap-ended").status is ApprovalStatus.CANCELLED
    assert store.get_execution("ended").status is ExecutionStatus.FAILED

    counted.reads.clear()
    assert check.execute_all([approvals.get("ap-ended")])[0].status is ApprovalStatus.CANCELLED
    assert counted.reads == []  # a closed request is not checked again
