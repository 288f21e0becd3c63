"""Approval gates (seed 003 APPROVAL_REQUEST): reaching one, deciding one, and going on after.

PassApprovalGate is what a runner calls when a step of `executionType: approval` starts: it
opens the step attempt's request (once: its id is derived from the attempt) and, for the local
runner, parks the run - the runner leaves, holding nothing - unless the request was decided or
timed out first. DecideApproval records who decided, when and why; then GateResumer hands the
run on: a parked local run to a new runner, a Step Functions run's waiting task its answer.
A timeout needs nobody to be waiting: any read that finds the gate past its time (the reconcile
of the run, the approvals list) closes it TIMED_OUT and resumes the run the same way.

Every write is conditional (PENDING, the lease as read), so two deciders, a decider and a
timeout, or a decider and a runner that has not parked yet never both win.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Annotated, NoReturn

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from application.authorization import AccessControl
from application.ports.access import AuditLog, AuthorizationStore
from application.ports.approvals import Approvals
from application.ports.executions import (
    ExecutionRef,
    ExecutionStore,
    RunLifecycleStore,
    RunStore,
    RunWriter,
)
from application.ports.orchestration import Orchestrator
from application.ports.system import Clock, IdGenerator
from application.ports.workflows import WorkflowCatalog
from application.run_writes import main_row_after
from domain.approvals import (
    MAX_REASON_CHARS,
    ApprovalNotFoundError,
    ApprovalRequest,
    Decision,
    NotAnApproverError,
)
from domain.authorization import AccessDecision, Action, Subject
from domain.control_characters import FREE_TEXT_KEEPS, refusing_control_characters
from domain.errors import (
    ConflictError,
    ExecutionNotFoundError,
    InvalidInputError,
    UnreadableRowError,
)
from domain.execution import WorkflowExecution
from domain.paging import Page
from domain.redaction import redact
from domain.run import AttemptFencedError, Run, RunChange
from domain.run_write import RunWrite

CANCELLED_WITH_RUN = "the run ended before a decision"
DECISION_ROUTE = "/approvals/{approvalId}/decision"
_ROWS_LOG = logging.getLogger("wfx.rows")
# An approval id is read as a table key (DynamoDB: at most 2048 bytes); the HTTP route's bound.
MAX_APPROVAL_ID_CHARS = 256


class PassApprovalGateCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str
    pipeline_execution_id: str
    # None: the step's running attempt (a Step Functions task knows no attempt number)
    attempt: int | None = Field(default=None, ge=1)
    # The local runner's lease owner, which parks the run; None on Step Functions, whose task
    # waits on `task_token` itself.
    owner: str | None = None
    task_token: str | None = Field(default=None, repr=False)


class GateOutcome(BaseModel):
    """The request as it stands, and whether the run was parked at it (its runner leaves)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    request: ApprovalRequest
    parked: bool = False


def approval_id_for(ids: IdGenerator, execution_id: str, step_id: str, attempt: int) -> str:
    return ids.derived_id(f"approval:{execution_id}:{step_id}:{attempt}")


class _Closer:
    """Closing a request that is past its time or whose run has ended: whoever closes first wins,
    and the loser reads what was written."""

    def __init__(self, approvals: Approvals, writer: RunWriter) -> None:
        self._approvals, self._writer = approvals, writer

    def close(self, closed: ApprovalRequest, handover: RunChange | None = None) -> ApprovalRequest:
        """`handover`: the run parked at the gate handed on in the same write."""
        if self._writer.commit(RunWrite.closing(closed, handover)):
            return closed
        stored = self._approvals.get(closed.approval_id)
        if handover is not None and stored.is_pending:
            # refused on the lease alone (its runner parked since the read): closed on its own,
            # the run handed on by the resume that follows
            return self.close(closed)
        return stored

    def open(self, request: ApprovalRequest) -> ApprovalRequest:
        """A new request, or the one of that id the run holds already (an open tried again:
        ids are derived from the step attempt)."""
        if self._writer.commit(RunWrite.opening(request)):
            return request
        try:
            return self._approvals.get(request.approval_id)
        except ApprovalNotFoundError:  # refused, then deleted with its run
            raise ExecutionNotFoundError(request.workflow_execution_id) from None


class PassApprovalGate:
    def __init__(
        self,
        approvals: Approvals,
        store: RunStore,
        catalog: WorkflowCatalog,
        clock: Clock,
        ids: IdGenerator,
        writer: RunWriter,
    ) -> None:
        self._approvals, self._store, self._catalog = approvals, store, catalog
        self._clock, self._ids, self._writer = clock, ids, writer
        self._closer = _Closer(approvals, writer)

    def execute(self, command: PassApprovalGateCommand) -> GateOutcome:
        execution_id, step_id = command.workflow_execution_id, command.pipeline_execution_id
        run = self._store.get_run(execution_id, step_id)
        execution, step = run.execution, run.step(step_id)
        version = self._catalog.get_version(
            execution.workflow_database_id, execution.workflow_id, execution.workflow_version
        )
        definition = (
            version.steps[step.step_index] if step.step_index < len(version.steps) else None
        )
        if definition is None or definition.approval is None:
            raise InvalidInputError(
                f"step {step.pipeline_id} of execution {execution_id} is not an approval step"
            )
        attempt = command.attempt
        if attempt is None:
            running = run.running_attempt(step_id)
            if running is None:
                raise ConflictError(
                    f"step {step.pipeline_id} of execution {execution_id} is not running: "
                    "its gate does not open"
                )
            attempt = running.attempt
        now = self._clock.now()
        request = self._closer.open(
            ApprovalRequest.open(
                approval_id_for(self._ids, execution_id, step_id, attempt),
                definition.approval,
                workflow_execution_id=execution_id,
                pipeline_execution_id=step_id,
                attempt=attempt,
                pipeline_id=step.pipeline_id,
                workflow_database_id=execution.workflow_database_id,
                workflow_id=execution.workflow_id,
                at=now,
                task_token=command.task_token,
            )
        )
        token = command.task_token
        if token is not None and request.is_pending and request.task_token != token:
            # an open tried again (a Step Functions task retried): its new token is the one
            # that waits now; refused, the request was closed meanwhile
            renewed = request.with_task_token(token)
            if self._approvals.renew_task_token(renewed):
                request = renewed
            else:
                request = self._approvals.get(request.approval_id)
        if request.expired(now):
            request = self._closer.close(request.timed_out(now))
        if not request.is_pending or command.owner is None:
            return GateOutcome(request=request)
        if self._writer.commit(RunWrite.parking(request, run.park(command.owner, request, now))):
            return GateOutcome(request=request, parked=True)
        # Refused: decided in between (the runner goes on with the decision), or the lease is
        # no longer this runner's (it writes nothing more).
        request = self._approvals.get(request.approval_id)
        if request.is_pending:
            raise AttemptFencedError(f"execution {execution_id}: the runner's lease is gone")
        return GateOutcome(request=request)


class GateResumer:
    """Hands a run on once its gate has closed: a local run parked at it to whichever runner
    takes it (the orchestrator starts one), a Step Functions task its token's answer. A run
    already going on (its runner never left, or another resumer was first) is left alone."""

    def __init__(
        self,
        store: RunLifecycleStore,
        orchestrator: Orchestrator,
        clock: Clock,
        grace_seconds: float,
    ) -> None:
        self._store, self._orchestrator, self._clock = store, orchestrator, clock
        self._grace = timedelta(seconds=grace_seconds)

    def handing_over(
        self, execution: WorkflowExecution | None, approval_id: str, at: datetime
    ) -> RunChange | None:
        """The run parked at this gate handed to whichever runner takes it next, for the write
        that closes the gate to carry: None when it is not parked there (its runner never
        left, another resumer was first, a Step Functions run)."""
        if execution is None or execution.runner_lease is None:
            return None
        return Run(execution=execution).hand_over(approval_id, at, self._grace)

    def resume(self, request: ApprovalRequest, handed_over: RunChange | None = None) -> None:
        """`handed_over`: the handover the write that closed the gate carried, which leaves
        nothing to read or write here but the new runner's start."""
        if handed_over is not None:
            self._orchestrator.resume_execution(handed_over.after, request)
            return
        try:
            run = self._store.get_run(request.workflow_execution_id)
        except ExecutionNotFoundError:
            return
        execution = run.execution
        if execution.is_terminal:
            return
        if execution.runner_lease is not None:  # a local run: only a parked one is handed on
            handover = run.hand_over(request.approval_id, self._clock.now(), self._grace)
            if handover is None or not self._store.commit(
                RunWrite.of(execution.workflow_execution_id, change=handover)
            ):
                return  # somebody handed it over (or took it) first
        elif execution.orchestrator == "local":
            return
        self._orchestrator.resume_execution(execution, request)


class DecideApprovalCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    approval_id: str = Field(min_length=1, max_length=MAX_APPROVAL_ID_CHARS)
    decision: Decision
    # every reader's terminal and page shows it: refused here, so every entrypoint refuses it
    reason: Annotated[str, AfterValidator(refusing_control_characters(FREE_TEXT_KEEPS))] = Field(
        default="", max_length=MAX_REASON_CHARS
    )
    subject: Subject


class DecideApproval:
    """Record a listed approver's decision and let the run go on (approved) or end (rejected).
    The admin role does not bypass a gate: only its approvers decide it."""

    def __init__(
        self,
        approvals: Approvals,
        store: RunStore,
        roles: AuthorizationStore,
        resumer: GateResumer,
        audit: AuditLog,
        clock: Clock,
        writer: RunWriter,
    ) -> None:
        self._approvals, self._store, self._roles = approvals, store, roles
        self._resumer, self._audit, self._clock = resumer, audit, clock
        self._writer = writer
        self._closer = _Closer(approvals, writer)

    def execute(self, command: DecideApprovalCommand) -> ApprovalRequest:
        reason = redact(command.reason.strip())
        if command.decision is Decision.REJECT and not reason:
            raise InvalidInputError("reason: a rejection says why")
        request = self._approvals.get(command.approval_id)
        subject = command.subject
        roles = (*subject.roles, *self._roles.roles_of(subject.user_id))
        if not request.allows(subject.user_id, roles):
            self._audit.denied(
                subject,
                DECISION_ROUTE,
                {"object__type": "approval", "approvalId": request.approval_id},
                AccessDecision(allowed=False, rule="not among the gate's approvers"),
            )
            raise NotAnApproverError(
                f"{subject.user_id} may not decide approval {request.approval_id}: only its "
                f"approvers do ({', '.join(request.approvers)})"
            )
        now = self._clock.now()
        try:
            # the whole run: the resume a decision starts reads every step, and one it cannot
            # read would fail it behind a decided gate; refused here, naming the row
            execution = self._store.get_run(request.workflow_execution_id).execution
        except ExecutionNotFoundError:
            execution = None
        if request.expired(now):
            closed = request.timed_out(now)
            handover = self._resumer.handing_over(execution, closed.approval_id, now)
            stored = self._closer.close(closed, handover)
            self._resumer.resume(stored, handover if stored is closed else None)
            stored.refuse_unless_pending()
        if request.is_pending and (execution is None or execution.is_terminal):
            request = self._closer.close(request.cancelled(now, CANCELLED_WITH_RUN))
        decided = request.decide(command.decision, subject.user_id, roles, reason, now)
        handover = self._resumer.handing_over(execution, decided.approval_id, now)
        answer = self._writer.commit(RunWrite.deciding(decided, handover))
        if not answer:
            # once more on a fresh row (as the refusal says it, or read): the runner may have
            # parked since the run was read
            execution = main_row_after(self._store, request.workflow_execution_id, answer)
            handover = self._resumer.handing_over(execution, decided.approval_id, now)
            if not self._writer.commit(RunWrite.deciding(decided, handover)):
                self._refused(request, now)
        self._resumer.resume(decided, handover)
        return decided

    def _refused(self, request: ApprovalRequest, now: datetime) -> NoReturn:
        """Why the decision's write was refused: the request closed first, or its run ended or
        was asked to abort after it was read (the write holds only while neither is so)."""
        self._approvals.get(request.approval_id).refuse_unless_pending()
        run_id = request.workflow_execution_id
        execution = self._store.get_execution(run_id)
        if execution.is_terminal:  # answered as a decision on an ended run is
            self._closer.close(request.cancelled(now, CANCELLED_WITH_RUN)).refuse_unless_pending()
        if execution.is_stopping:
            raise ConflictError(
                f"execution {run_id} is being aborted: approval {request.approval_id} "
                "is not decided"
            )
        raise ConflictError(
            f"approval {request.approval_id}: its run changed while it was decided; try again"
        )


class CloseOverdueGate:
    """A gate read past its time is closed TIMED_OUT and its run resumed (to end the step
    TIMED_OUT); one whose run has ended is closed CANCELLED. Returns the request as it stands."""

    def __init__(
        self,
        approvals: Approvals,
        store: ExecutionStore,
        resumer: GateResumer,
        clock: Clock,
        writer: RunWriter,
    ) -> None:
        self._approvals, self._store, self._resumer, self._clock = approvals, store, resumer, clock
        self._closer = _Closer(approvals, writer)

    def close_by_id(self, approval_id: str) -> bool:
        """The gate an open run is parked at: closed once past its time, and the run handed
        on when the gate is closed already (an older wfx wrote a decision and the handover
        apart, and died between them). True when something may have been written."""
        try:
            request = self._approvals.get(approval_id)
        except ApprovalNotFoundError:
            return False  # deleted with its run
        if not request.is_pending:
            self._resumer.resume(request)
            return True
        if not request.expired(self._clock.now()):
            return False  # it waits for its decision; its run was read open
        self.execute(request)
        return True

    def execute(self, request: ApprovalRequest) -> ApprovalRequest:
        """One gate: a run wfx cannot read refuses naming its row."""
        return self._checked_all((request,), strict=True)[0]

    def execute_all(self, requests: Sequence[ApprovalRequest]) -> tuple[ApprovalRequest, ...]:
        """Each request as it stands once checked; the runs of those still pending are read
        together (a page of a hundred requests is one read of their runs, not a hundred). A gate
        past its time whose run wfx cannot read is left open, as stored, with a warning naming
        the row: nothing is decided on it, and the other gates are still closed."""
        return self._checked_all(requests, strict=False)

    def _checked_all(
        self, requests: Sequence[ApprovalRequest], strict: bool
    ) -> tuple[ApprovalRequest, ...]:
        now = self._clock.now()
        waiting = [r for r in requests if r.is_pending and not r.expired(now)]
        runs = {r.workflow_execution_id: r.workflow_key for r in waiting}
        # a main row is read by its key: its start date is no part of it
        refs = [ExecutionRef("", run_id, key) for run_id, key in runs.items()]
        ended = {e.workflow_execution_id for e in self._read(refs) if e.is_terminal}
        return tuple(self._checked(request, now, ended, strict) for request in requests)

    def _read(self, refs: list[ExecutionRef]) -> list[WorkflowExecution]:
        return self._store.get_executions(refs) if refs else []

    def _checked(
        self, request: ApprovalRequest, now: datetime, ended_runs: set[str], strict: bool
    ) -> ApprovalRequest:
        if not request.is_pending:
            return request
        if request.expired(now):
            closed = request.timed_out(now)
            try:
                # the whole run, not its main row: the resume that ends the step TIMED_OUT reads
                # every step, and one it cannot read would fail it behind a closed gate
                execution = self._store.get_run(request.workflow_execution_id).execution
            except ExecutionNotFoundError:
                execution = None
            except UnreadableRowError as error:
                if strict:
                    raise
                _ROWS_LOG.warning(
                    "warning: %s; approval %s is past its time but left open until then",
                    error,
                    request.approval_id,
                )
                return request
            handover = self._resumer.handing_over(execution, closed.approval_id, now)
            stored = self._closer.close(closed, handover)
            self._resumer.resume(stored, handover if stored is closed else None)
            return stored
        if request.workflow_execution_id in ended_runs:  # a run deleted meanwhile is not here
            return self._closer.close(request.cancelled(now, CANCELLED_WITH_RUN))
        return request


class ListApprovalsQuery(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    subject: Subject
    pending_only: bool = False
    limit: int = Field(default=20, ge=1, le=100)
    starting_token: str | None = None
    workflow_execution_id: str | None = None


class ListApprovals:
    """Requests newest first across all runs (pending ones from the sparse index), or one run's;
    a pending one past its time is closed as it is read. A caller sees the requests of the runs
    it may read, and those it is an approver of."""

    def __init__(
        self, approvals: Approvals, overdue: CloseOverdueGate, access: AccessControl
    ) -> None:
        self._approvals, self._overdue, self._access = approvals, overdue, access

    def execute(self, query: ListApprovalsQuery) -> Page[ApprovalRequest]:
        if query.workflow_execution_id is not None:
            listed, left_out = self._approvals.list_readable_for_execution(
                query.workflow_execution_id
            )
            for row in left_out:  # as a page of all runs' requests says it (wfx.rows)
                _ROWS_LOG.warning("warning: %s", row.list_note)
            requests: tuple[ApprovalRequest, ...] = tuple(listed)
            next_token = None
        else:
            page = self._approvals.list_requests(
                query.pending_only, query.limit, query.starting_token
            )
            requests, next_token = page.items, page.next_token
        subject = self._access.subject_with_roles(query.subject)
        readable = self._access.readable_ids(
            subject, [r.workflow_execution_id for r in requests], roles_resolved=True
        )
        items = self._overdue.execute_all(
            [
                r
                for r in requests
                if r.workflow_execution_id in readable or r.allows(subject.user_id, subject.roles)
            ]
        )
        if query.pending_only:
            items = tuple(r for r in items if r.is_pending)
        return Page(items=items, next_token=next_token)


class GetApprovalQuery(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    approval_id: str = Field(min_length=1, max_length=MAX_APPROVAL_ID_CHARS)
    subject: Subject
    route: str = ""


class GetApproval:
    """One request, for a caller who may read the run it gates or is among its approvers; a
    pending one past its time is closed as it is read."""

    def __init__(
        self, approvals: Approvals, overdue: CloseOverdueGate, access: AccessControl
    ) -> None:
        self._approvals, self._overdue, self._access = approvals, overdue, access

    def execute(self, query: GetApprovalQuery) -> ApprovalRequest:
        request = self._approvals.get(query.approval_id)
        subject = self._access.subject_with_roles(query.subject)
        if not request.allows(subject.user_id, subject.roles):
            self._access.require_execution_access(
                subject, request.workflow_execution_id, Action.GET, query.route
            )
        return self._overdue.execute(request)
