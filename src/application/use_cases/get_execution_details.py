"""GetExecutionDetails: the main row, the steps in chain order, inputs, configuration, outputs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from application.available_logs import AvailableLogFinder
from application.detail_bounds import bound_details, bound_steps
from application.detail_collections import MAX_STEPS, ROW_READ_LIMIT
from application.ports.approvals import Approvals
from application.ports.executions import ExecutionQueries
from application.ports.sub_executions import SubExecutionReader
from application.ports.system import Clock
from application.ports.workflows import WorkflowDefinitions
from application.result_texts import ResultTextReader
from application.state_machine_memo import StateMachineMemo
from application.use_cases.reconcile_execution import ReconcileExecution
from domain.execution import ExecutionDetails
from domain.redrive import local_history_event_count, with_derived_redrive_status
from domain.workflow import ExecutionType

if TYPE_CHECKING:  # built on first use: only --sub-executions describes them
    from application.sub_execution_status import SubExecutionStatus


class GetExecutionDetailsQuery(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str = Field(min_length=1)
    include_sub_executions: bool = False  # derived stage status: reads Step Functions / Batch


class GetExecutionDetails:
    """Read one run's rows; steps are walked from the root along the chain links.

    Every collection is bounded (application.detail_collections); what was cut is named in
    `truncated_collections`, to be paged with GetExecutionMetadata.
    With a reconciler, an open run is checked with its orchestrator first (the 30-second rule).
    A local run's redriveStatus is derived as of now, its history counted from the step rows
    read here (domain.redrive.redrive_status). A row other than the main row that cannot be
    read is left out and named in `unreadable_rows`; the main row's is UnreadableRowError.
    """

    def __init__(
        self,
        store: ExecutionQueries,
        reconcile: ReconcileExecution | None = None,
        sub_executions: SubExecutionStatus | None = None,
        available_logs: AvailableLogFinder | None = None,
        state_machines: SubExecutionReader | None = None,
        *,
        clock: Clock,
        approvals: Approvals | None = None,
        result_texts: ResultTextReader | None = None,
        definitions: WorkflowDefinitions | None = None,
    ) -> None:
        """`state_machines`: read through one memo per request by both the sub-execution stages
        and the available logs, so each state machine is described once per request."""
        self._store, self._reconcile = store, reconcile
        self._sub_executions, self._available_logs = sub_executions, available_logs
        self._state_machines = state_machines
        self._clock = clock
        self._approvals = approvals
        self._result_texts = result_texts
        self._definitions = definitions

    def execute(self, query: GetExecutionDetailsQuery) -> ExecutionDetails:
        details = self._read(query.workflow_execution_id)
        if self._reconcile is not None:
            reconciled = self._reconcile.execute(details.execution)
            if reconciled.is_terminal and not details.execution.is_terminal:
                # found finished out of band: its steps were closed too, so read them again
                details = self._read(query.workflow_execution_id)
            else:
                details = details.model_copy(update={"execution": reconciled})
        heads = details.step_heads
        assert heads is not None  # read with detailed_steps: every step's head, in chain order
        events = local_history_event_count(heads)
        execution = with_derived_redrive_status(details.execution, self._clock.now(), events)
        details = details.model_copy(update={"execution": execution})
        # cut before anything is derived per step: a dropped step costs no AWS call
        steps, steps_cut = bound_steps(details, total=len(heads))
        details = details.model_copy(update={"steps": steps})
        machines = StateMachineMemo(self._state_machines) if self._state_machines else None
        if query.include_sub_executions and self._sub_executions is not None:
            steps, warnings = self._sub_executions.describe(details.steps, machines)
            details = details.model_copy(
                update={"steps": steps, "sub_execution_warnings": warnings}
            )
        if self._available_logs is not None:
            details = self._available_logs.attach(details, machines)
        gated = any(e.step.execution_type is ExecutionType.APPROVAL for e in details.steps)
        if self._approvals is not None and gated:  # one query, only for a run with a gate
            requests, left_out = self._approvals.list_readable_for_execution(
                query.workflow_execution_id
            )
            unreadable = tuple(dict.fromkeys(details.unreadable_rows + left_out))
            details = details.model_copy(
                update={"approvals": tuple(requests), "unreadable_rows": unreadable}
            )
        details = bound_details(details, steps_cut)
        # read after the bound: only the results rows the answer keeps cost an object read
        if self._result_texts is not None:
            details = self._result_texts.attach(details)
        if self._definitions is not None:  # one read: the workflow's name and description
            run = details.execution
            workflow = self._definitions.find_definition(run.workflow_database_id, run.workflow_id)
            details = details.model_copy(update={"workflow": workflow})
        return details

    def _read(self, workflow_execution_id: str) -> ExecutionDetails:
        # row collections one past their bound: enough to say that more exist, never 20k inputs;
        # a row another writer left unreadable is named, the rest of the run still shown;
        # every step's head (the chain's order, the step count, the history's events), the
        # whole step and its per-step rows only of the steps the answer shows
        return self._store.get_details(
            workflow_execution_id,
            row_limit=ROW_READ_LIMIT,
            leave_out_unreadable=True,
            detailed_steps=MAX_STEPS,
        )
