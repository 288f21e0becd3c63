"""RegisterPipelineExecution: a step reports the sub-processes and logs it started (seed 000)."""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from application.ports import Clock, RunLifecycleStore, StepEndedError, SubProcessController
from application.sub_process_stops import stop_sub_processes
from application.use_cases.record_cost import RecordCost, RecordCostCommand, ReportedUsage
from domain.costs import CostSource
from domain.errors import InvalidInputError, PipelineExecutionNotFoundError
from domain.execution import PipelineExecution
from domain.logs import (
    MAX_REGISTERED_LOGS,
    MAX_REGISTERED_SUB_EXECUTIONS,
    RegisteredLog,
    RegisteredSubExecution,
)
from domain.registration import (
    LOG_SOURCE_TYPES,
    REGISTRATION_DETAIL_TYPE,
    merge_logs,
    merge_sub_executions,
    source_ids,
)

DETAIL_TYPE = REGISTRATION_DETAIL_TYPE

# Lengths an entry may have. AWS's own limits where there is one (log group and stream names 512,
# Step Functions state names 80); the rest generous for any real ARN or id. They keep 50 logs and
# 50 sub-executions well inside a DynamoDB item (400 KB), so a row never becomes unwritable.
MAX_RESOURCE_TYPE = 64
MAX_RESOURCE_ID = 1024
MAX_LOG_NAME = 512
MAX_STAGE_NAME = 80
MAX_LABEL = 256
MAX_COSTS = 50  # usage lines one event may report, as many as the logs a row keeps

_EVENT_FIELDS = ConfigDict(
    frozen=True, extra="forbid", alias_generator=to_camel, populate_by_name=True, defer_build=True
)


class SubExecutionRegistration(BaseModel):
    """One `subExecutions` entry of the event detail."""

    model_config = _EVENT_FIELDS

    resource_type: str = Field(min_length=1, max_length=MAX_RESOURCE_TYPE)
    resource_id: str = Field(min_length=1, max_length=MAX_RESOURCE_ID)
    label: str = Field(default="", max_length=MAX_LABEL)

    def registered(self) -> RegisteredSubExecution:
        return RegisteredSubExecution(**self.model_dump())


class LogRegistration(BaseModel):
    """One `logs` entry of the event detail; "" for what the producer did not send."""

    model_config = _EVENT_FIELDS

    log_group_arn: str = Field(default="", max_length=MAX_RESOURCE_ID)
    log_group_name: str = Field(default="", max_length=MAX_LOG_NAME)
    log_stream_name: str = Field(default="", max_length=MAX_LOG_NAME)
    log_stream_prefix: str = Field(default="", max_length=MAX_LOG_NAME)
    stage_name: str = Field(default="", max_length=MAX_STAGE_NAME)
    label: str = Field(default="", max_length=MAX_LABEL)
    source_type: str = ""

    @field_validator("source_type")
    @classmethod
    def _a_known_source_type(cls, value: str) -> str:
        if value and value not in LOG_SOURCE_TYPES:
            raise ValueError(f"must be one of {', '.join(LOG_SOURCE_TYPES)}, got {value!r}")
        return value

    @model_validator(mode="after")
    def _a_group(self) -> Self:
        if not (self.log_group_arn or self.log_group_name):
            raise ValueError("logGroupArn or logGroupName: a log entry needs its log group")
        return self

    def registered(self) -> RegisteredLog:
        return RegisteredLog(**self.model_dump())


class RegistrationDetail(BaseModel):
    """The detail of a `pipeline.execution.register` event."""

    model_config = _EVENT_FIELDS

    pipeline_execution_id: str
    workflow_execution_id: str | None = None
    sub_executions: tuple[SubExecutionRegistration, ...] = ()
    logs: tuple[LogRegistration, ...] = ()
    # usage the step reports for its running attempt (the cost ledger, seed 003)
    costs: tuple[ReportedUsage, ...] = Field(default=(), max_length=MAX_COSTS)


class RegisterPipelineExecutionCommand(BaseModel):
    """A registration event: its source names the execution and the step, the detail the rest."""

    # The whole EventBridge event may be passed: its other envelope fields are ignored.
    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True, defer_build=True)

    source: str
    detail_type: str = Field(default=DETAIL_TYPE, alias="detail-type")
    detail: RegistrationDetail


class RegistrationResult(BaseModel):
    """Accepted with the step as stored afterwards, or refused with the reason (nothing written)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    accepted: bool
    reason: str | None = None
    step: PipelineExecution | None = None
    # what the step's cap (50 of each) left out, and children stopped at once (the run was
    # being aborted) that may be left running
    warnings: tuple[str, ...] = ()
    dropped_logs: int = 0
    dropped_sub_executions: int = 0


def _dropped_warnings(logs: int, sub_executions: int) -> tuple[str, ...]:
    """What the cap left out, said: an abort stops only what the step kept."""
    said = []
    for count, kind, cap in (
        (logs, "log", MAX_REGISTERED_LOGS),
        (sub_executions, "sub-execution", MAX_REGISTERED_SUB_EXECUTIONS),
    ):
        if count:
            said.append(
                f"{count} {kind}{'s' if count > 1 else ''} dropped: the step keeps at most {cap} "
                f"registered {kind}s, and has them"
            )
    return tuple(said)


def _refused(reason: str) -> RegistrationResult:
    return RegistrationResult(accepted=False, reason=reason)


class RegisterPipelineExecution:
    """Append the reported sub-executions and logs to the step the event's source names.

    A step that has ended takes no registration (refused with the reason). On a run being
    aborted, what the step registers is stopped at once and the outcome recorded on it: an abort
    that read the step before this registration would otherwise never stop it.
    """

    def __init__(
        self,
        store: RunLifecycleStore,
        sub_processes: SubProcessController,
        clock: Clock,
        costs: RecordCost | None = None,
    ) -> None:
        self._store, self._sub_processes, self._clock = store, sub_processes, clock
        self._costs = costs

    def execute(self, command: RegisterPipelineExecutionCommand) -> RegistrationResult:
        detail = command.detail
        if command.detail_type != DETAIL_TYPE:
            return _refused(f"detail type {command.detail_type!r} is not {DETAIL_TYPE}")
        pipeline_execution_id = detail.pipeline_execution_id
        ids = source_ids(command.source)
        # A pipeline may attach resources to its own execution alone (seed 000).
        if ids is None or not pipeline_execution_id or ids[1] != pipeline_execution_id:
            return _refused(
                f"source {command.source!r} does not end in .pipeline.{pipeline_execution_id}"
            )
        execution_id = ids[0]
        if detail.workflow_execution_id not in (None, execution_id):
            return _refused(
                f"detail names execution {detail.workflow_execution_id}, "
                f"the source names {execution_id}"
            )
        not_its_step = _refused(
            f"pipeline execution {pipeline_execution_id} is not a step of execution {execution_id}"
        )
        sub_executions = tuple(entry.registered() for entry in detail.sub_executions)
        logs = tuple(entry.registered() for entry in detail.logs)
        if not sub_executions and not logs:
            try:
                step = self._store.get_step(pipeline_execution_id)
            except PipelineExecutionNotFoundError:
                return not_its_step
            if step.workflow_execution_id != execution_id:
                return not_its_step
            # costs alone are taken on an ended step too: a bill comes after the work
            return self._with_costs(RegistrationResult(accepted=True, step=step), detail.costs)

        dropped = [0, 0]  # of the last merge, the one stored: a retried write merges again

        def merge(
            stored: PipelineExecution,
        ) -> tuple[tuple[RegisteredSubExecution, ...], tuple[RegisteredLog, ...]]:
            merged_subs = merge_sub_executions(stored.registered_sub_executions, sub_executions)
            merged_logs = merge_logs(stored.registered_logs, logs)
            kept_subs = {(e.resource_type, e.resource_id) for e in merged_subs}
            kept_logs = {log.location for log in merged_logs}
            dropped[0] = len({log.location for log in logs} - kept_logs)
            dropped[1] = len({(e.resource_type, e.resource_id) for e in sub_executions} - kept_subs)
            return merged_subs, merged_logs

        try:
            # The step row is keyed by the execution too: a step of another run is not found.
            stored = self._store.register_on_step(execution_id, pipeline_execution_id, merge)
        except PipelineExecutionNotFoundError:
            return not_its_step
        except StepEndedError as ended:
            step = ended.step
            return _refused(
                f"step {step.pipeline_id} of execution {execution_id} is {step.status.value}: "
                "registrations are taken only while it runs"
            )
        warnings = _dropped_warnings(*dropped) + self._stop_if_stopping(stored, sub_executions)
        accepted = RegistrationResult(
            accepted=True,
            step=stored,
            warnings=warnings,
            dropped_logs=dropped[0],
            dropped_sub_executions=dropped[1],
        )
        return self._with_costs(accepted, detail.costs)

    def _with_costs(
        self, accepted: RegistrationResult, costs: tuple[ReportedUsage, ...]
    ) -> RegistrationResult:
        if not costs or self._costs is None or accepted.step is None:
            return accepted
        step = accepted.step
        try:
            self._costs.execute(
                RecordCostCommand(
                    workflow_execution_id=step.workflow_execution_id,
                    pipeline_execution_id=step.pipeline_execution_id,
                    usages=costs,
                    source=CostSource.REGISTRATION,
                )
            )
        except InvalidInputError as refused:
            return _refused(f"costs: {refused}")
        return accepted

    def _stop_if_stopping(
        self, step: PipelineExecution, registered: tuple[RegisteredSubExecution, ...]
    ) -> tuple[str, ...]:
        """Read after the registration is in: either the abort saw it, or this sees the abort."""
        if not registered:
            return ()
        execution = self._store.get_execution(step.workflow_execution_id)
        if execution.abort_requested_date is None and not execution.is_terminal:
            return ()
        fresh = step.model_copy(update={"registered_sub_executions": registered})
        return stop_sub_processes(self._sub_processes, self._store, [fresh], self._clock.now())
