"""The steps' summary logs a run's end leaves: one per step, its status, error and log's tail.
Every end that writes them (a completion, the runner's last step, an abort) builds them here."""

from __future__ import annotations

from application.ports.files import LogStore, ObjectStore
from application.ports.logs import RunLogSource
from application.run_log import StepTails, fit_run_log, log_tail
from domain.derived import derived
from domain.execution import PipelineExecution, StepLog, WorkflowExecution, chain_order

LOG_TAIL_CHARACTERS = 4000
# The steps' summaries go in the run's last write up to this many steps; a longer chain's are
# written after it, as a run of any length must fit one transaction (DynamoDB: 100 items).
SUMMARIES_IN_THE_END_WRITE = 25


class StepSummaries:
    """Each step's summary, its log's tail as `tails` kept it when the run log was read from
    the step logs (a local run: none when their listing found no log of the step), else read
    from `logs`."""

    def __init__(self, logs: LogStore, tails: StepTails | None = None) -> None:
        self._logs, self._tails = logs, tails

    def __call__(self, steps: tuple[PipelineExecution, ...]) -> tuple[StepLog, ...]:
        """The summaries of `steps`, each as the run's end left it."""
        if not steps:
            return ()
        run_id = steps[0].workflow_execution_id
        written: set[str] | None = None

        def tail(step_id: str) -> str:
            nonlocal written
            kept = self._tails.get(step_id) if self._tails is not None else None
            if kept is not None:
                return kept
            if written is None:  # one listing, not an open per step (most write none)
                written = set(self._logs.step_log_ids(run_id))
            if step_id not in written:
                return ""
            # of the log only its tail is kept as it is read: 200 MB cost a piece, not the log
            return log_tail(self._logs.step_log_pieces(run_id, step_id), LOG_TAIL_CHARACTERS)

        ordered = chain_order(steps)
        return tuple(_summary(step, tail(step.pipeline_execution_id)) for step in ordered)


def fitted_run_log(
    objects: ObjectStore, run_logs: RunLogSource, execution: WorkflowExecution
) -> tuple[str, str | None, StepTails]:
    """The run log as the row keeps it, its object key when cut, and the tails of the step logs
    it was read from (none when it was not made of them)."""
    tails = StepTails(LOG_TAIL_CHARACTERS)
    pieces = run_logs.run_log_pieces(execution, tails)
    log, key = fit_run_log(objects, execution.workflow_execution_id, pieces)
    return log, key, tails


def _summary(step: PipelineExecution, log: str) -> StepLog:
    # the step's fields from its model's dict: one hooked read, not six (three steps a run)
    values = step.__dict__
    lines = [f"{values['pipeline_id']}: {values['status']}"]  # a StrEnum: its value
    if values["error"]:
        lines.append(f"error: {values['error']}")
    if log:
        lines.append(log[-LOG_TAIL_CHARACTERS:])
    return derived(  # the valid step's ids and status, and text (domain.derived)
        StepLog,
        pipeline_execution_id=values["pipeline_execution_id"],
        workflow_execution_id=values["workflow_execution_id"],
        status=str(values["status"]),
        message="\n".join(lines),
    )
