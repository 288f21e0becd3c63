"""A gate's decision racing an abort of its run, on SQLite (a file) and DynamoDB (moto).

The abort is injected between the decision's read of the run (still open) and its write of
the request: the decision must then be refused as a decision on an ended run is, and the
request must not be left APPROVED on an ABORTED run.
"""

from __future__ import annotations

from typing import Any

import pytest

from application.ports.executions import ExecutionStore
from application.use_cases.abort_execution import AbortExecutionCommand
from application.use_cases.approvals import DecideApproval, DecideApprovalCommand
from domain.approvals import (
    ApprovalClosedError,
    ApprovalGate,
    ApprovalRequest,
    ApprovalStatus,
    Decision,
)
from domain.authorization import Subject
from domain.errors import ConflictError
from domain.execution import WorkflowExecution
from domain.run import Run, RunChange, RunGuard
from domain.run_write import RunWrite
from domain.statuses import ExecutionStatus
from tests.contract.builders import a_launch, at, step_id, write_change, write_launch

RUN = "decided-run"
GATE = ApprovalGate(approvers=("carol",), message="ship it?", timeout_seconds=3600)


class _AbortedAfterTheRead:
    """The execution store, through which another process acts on the run right after the
    decision has read it open."""

    def __init__(self, store: ExecutionStore, meanwhile: Any) -> None:
        self._store, self._meanwhile = store, meanwhile

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def get_execution(self, workflow_execution_id: str) -> WorkflowExecution:
        execution = self._store.get_execution(workflow_execution_id)
        self._then_meanwhile()
        return execution

    def get_run(self, workflow_execution_id: str, pipeline_execution_id: str | None = None) -> Run:
        # the decision's read: the whole run, as the resume it starts reads it
        run = self._store.get_run(workflow_execution_id, pipeline_execution_id)
        self._then_meanwhile()
        return run

    def _then_meanwhile(self) -> None:
        if self._meanwhile is not None:
            meanwhile, self._meanwhile = self._meanwhile, None
            meanwhile()


def _gated_run(container: Any) -> ApprovalRequest:
    store = container.execution_store()
    write_launch(store, a_launch(RUN, steps=1))
    request = ApprovalRequest.open(
        "gate-1",
        GATE,
        workflow_execution_id=RUN,
        pipeline_execution_id=step_id(RUN, 0),
        attempt=1,
        pipeline_id="sign-off",
        workflow_database_id="db1",
        workflow_id="wf1",
        at=container.clock().now(),  # open until an hour from now
    )
    assert store.commit(RunWrite.opening(request))
    return request


def _decide(container: Any, store: Any, decision: Decision = Decision.APPROVE) -> None:
    decide = DecideApproval(
        approvals=container.approvals(),
        store=store,
        roles=container.authorization_store(),
        resumer=container.gate_resumer(),
        audit=container.audit_log(),
        clock=container.clock(),
        writer=store,
    )
    decide.execute(
        DecideApprovalCommand(
            approval_id="gate-1", decision=decision, reason="ok", subject=Subject(user_id="carol")
        )
    )


def _end_aborted(store: ExecutionStore) -> None:
    stored = store.get_execution(RUN)
    aborted = stored.complete(ExecutionStatus.ABORTED, at=at(2), log="", error="aborted")
    assert write_change(store, RunChange(stored, aborted, RunGuard())) is not None


@pytest.mark.parametrize("decision", [Decision.APPROVE, Decision.REJECT])
def test_a_run_ended_aborted_between_the_decision_s_read_and_its_write_is_not_decided(
    inline_container: Any, decision: Decision
) -> None:
    _gated_run(inline_container)
    store = inline_container.execution_store()
    raced = _AbortedAfterTheRead(store, lambda: _end_aborted(store))

    with pytest.raises(ApprovalClosedError, match="CANCELLED"):
        _decide(inline_container, raced, decision)

    request = inline_container.approvals().get("gate-1")
    assert request.status is ApprovalStatus.CANCELLED
    assert request.decided_by is None
    assert store.get_execution(RUN).status is ExecutionStatus.ABORTED


def test_an_abort_requested_between_the_decision_s_read_and_its_write_refuses_it(
    inline_container: Any,
) -> None:
    _gated_run(inline_container)
    store = inline_container.execution_store()
    abort = inline_container.abort_execution()

    def request_abort() -> None:
        # the abort's first write alone: the run is being aborted, not ended yet
        change = Run(execution=store.get_execution(RUN)).request_abort(at(2), "by alice")
        assert change is not None and store.commit(RunWrite.of(RUN, change=change))

    raced = _AbortedAfterTheRead(store, request_abort)
    with pytest.raises(ConflictError, match=f"execution {RUN} is being aborted"):
        _decide(inline_container, raced)

    assert inline_container.approvals().get("gate-1").status is ApprovalStatus.PENDING
    abort.execute(AbortExecutionCommand(workflow_execution_id=RUN))
    assert store.get_execution(RUN).status is ExecutionStatus.ABORTED
