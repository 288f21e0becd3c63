"""SweepAborts: confirm the children an abort or a failure only asked to stop, and ask again."""

from __future__ import annotations

from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict, Field

from application.ports.executions import ExecutionStore, ListScope
from application.ports.sub_executions import SubProcessController
from application.ports.system import Clock
from application.sub_process_stops import attempt_stop, record_stops
from application.use_cases.reconcile_execution import ReconcileExecution
from domain.execution import PipelineExecution, WorkflowExecution
from domain.logs import RegisteredSubExecution
from domain.redaction import redact
from domain.statuses import ExecutionStatus
from domain.sub_processes import StopAttempt, StopOutcome, SubExecutionStop

DEFAULT_WINDOW = timedelta(days=7)
# The global list is ordered by start date, the window is on the stop date: a run that stopped
# in the window is looked for among those that started up to this long before it.
DEFAULT_LONGEST_RUN = timedelta(days=7)
_PAGE_SIZE = 100
_SWEPT_STATUSES = frozenset({ExecutionStatus.ABORTED, ExecutionStatus.FAILED})


class SweepAbortsCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    since: timedelta = Field(default=DEFAULT_WINDOW, gt=timedelta(0))
    longest_run: timedelta = Field(default=DEFAULT_LONGEST_RUN, ge=timedelta(0))


class SweptChild(BaseModel):
    """One unconfirmed child the sweep looked at, before and after."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    workflow_execution_id: str
    pipeline_execution_id: str
    pipeline_id: str
    resource_type: str
    resource_id: str
    previous_outcome: StopOutcome
    outcome: StopOutcome
    tries: int
    detail: str = ""

    @property
    def confirmed(self) -> bool:
        return self.outcome not in (StopOutcome.STOP_REQUESTED, StopOutcome.COULD_NOT_STOP)


class SweepAbortsResult(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    runs_checked: int
    children: tuple[SweptChild, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def remaining(self) -> int:
        """Children still not confirmed ended after this sweep."""
        return sum(not child.confirmed for child in self.children)


class SweepAborts:
    """For each ABORTED or FAILED run stopped in the window, each child whose stop was not
    confirmed is looked at again; one still running is asked to stop again (tries + 1).

    Reads the global newest-first list (no scan, no new index) and stops paging at the first run
    that started before the window minus the longest run. Idempotent: a confirmed child is final.
    """

    def __init__(
        self,
        store: ExecutionStore,
        sub_processes: SubProcessController,
        clock: Clock,
        reconcile: ReconcileExecution,
    ) -> None:
        self._store, self._sub_processes, self._clock = store, sub_processes, clock
        self._reconcile = reconcile

    def execute(self, command: SweepAbortsCommand) -> SweepAbortsResult:
        now = self._clock.now()
        stopped_after = now - command.since
        children: list[SweptChild] = []
        warnings: list[str] = []
        runs = self._stopped_runs(stopped_after, stopped_after - command.longest_run)
        for run in runs:
            for step in self._store.list_steps(run.workflow_execution_id):
                swept, warning = self._sweep_step(step, now)
                children.extend(swept)
                if warning is not None:
                    warnings.append(warning)
        return SweepAbortsResult(
            runs_checked=len(runs), children=tuple(children), warnings=tuple(warnings)
        )

    def _stopped_runs(
        self, stopped_after: datetime, started_after: datetime
    ) -> list[WorkflowExecution]:
        runs: list[WorkflowExecution] = []
        token: str | None = None
        while True:
            page = self._store.list_executions(ListScope.ALL, None, _PAGE_SIZE, token)
            # as every read: a run whose runner was lost ends FAILED here, and is swept with it
            for run in self._reconcile.execute_all(page.items):
                if run.execution_start_date < started_after:
                    return runs  # newest first: every later one started earlier still
                stop = run.execution_stop_date
                if run.status in _SWEPT_STATUSES and stop is not None and stop >= stopped_after:
                    runs.append(run)
            token = page.next_token
            if token is None:
                return runs

    def _sweep_step(
        self, step: PipelineExecution, now: datetime
    ) -> tuple[list[SweptChild], str | None]:
        unconfirmed = [stop for stop in step.sub_execution_stops if stop.is_unconfirmed]
        if not unconfirmed:
            return [], None
        new = tuple(self._again(stop, step, now) for stop in unconfirmed)
        warning = record_stops(self._store, step, new)
        stored = {stop.key: stop for stop in step.sub_execution_stops}
        swept = [
            SweptChild(
                workflow_execution_id=step.workflow_execution_id,
                pipeline_execution_id=step.pipeline_execution_id,
                pipeline_id=step.pipeline_id,
                resource_type=stop.resource_type,
                resource_id=stop.resource_id,
                previous_outcome=stored[stop.key].outcome,
                outcome=stop.outcome,
                tries=stored[stop.key].tries + stop.tries,
                detail=stop.detail,
            )
            for stop in new
        ]
        return swept, warning

    def _again(
        self, stored: SubExecutionStop, step: PipelineExecution, now: datetime
    ) -> SubExecutionStop:
        """Look first; only a child still running (or that could not be looked at) is stopped."""
        # the stop record keeps the locator's one id; an older record its former type name
        sub = RegisteredSubExecution.of_resource(stored.resource_type, stored.resource_id)
        seen = self._look(sub, step)
        if seen.outcome not in (StopOutcome.STOP_REQUESTED, StopOutcome.COULD_NOT_STOP):
            return SubExecutionStop.of(sub, seen, at=now, tries=0)
        stopped = attempt_stop(self._sub_processes, sub, step)
        return SubExecutionStop.of(sub, stopped, at=now, tries=1)

    def _look(self, sub: RegisteredSubExecution, step: PipelineExecution) -> StopAttempt:
        try:
            return self._sub_processes.confirm(sub, step)
        except Exception as error:  # a broken controller: ask it to stop, it may say more
            detail = redact(f"{type(error).__name__}: {error}")
            return StopAttempt(outcome=StopOutcome.COULD_NOT_STOP, detail=detail)
