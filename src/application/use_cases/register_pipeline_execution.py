"""RegisterPipelineExecution: a step reports the sub-processes and logs it started (seed 000)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from application.ports.executions import RunLifecycleStore
from application.ports.sub_executions import SubProcessController
from application.ports.system import Clock
from application.run_writes import commit_decided
from application.sub_process_stops import stop_registered
from application.use_cases.record_cost import RecordCost, RecordCostCommand, ReportedUsage
from domain.costs import CostSource
from domain.errors import (
    ExecutionNotFoundError,
    InvalidInputError,
    PipelineExecutionNotFoundError,
)
from domain.execution import PipelineExecution
from domain.logs import (
    MAX_REGISTERED_LOGS,
    MAX_REGISTERED_SUB_EXECUTIONS,
    RegisteredLog,
    RegisteredSubExecution,
)
from domain.names import DEFAULT_STATE_MACHINE_PREFIX, other_stack_machine
from domain.registration import (
    MAX_SOURCE_LENGTH,
    REGISTRATION_DETAIL_TYPE,
    merge_logs,
    merge_sub_executions,
    normalize_log,
    normalize_sub_execution,
    source_ids,
)
from domain.run_write import RunWrite, VersionedStep
from domain.sub_process_reach import SubProcessReach

DETAIL_TYPE = REGISTRATION_DETAIL_TYPE
MAX_COSTS = 50  # usage lines one event may report, as many as the logs a row keeps


MAX_ID_LENGTH = 256


class RegistrationDetail(BaseModel):
    """The detail of a `pipeline.execution.register` event, as VAMS's pipelines send it: one
    `subExecution` (a typed locator) and a `logs` list. wfx's own pipelines may send a
    `subExecutions` list instead, of typed locators or of its former `{resourceType,
    resourceId}` entries. Entries stay as sent here: each field is checked on its own
    (RegisterPipelineExecution), so one bad field never costs the rest of the event."""

    model_config = ConfigDict(
        frozen=True,
        extra="allow",
        alias_generator=to_camel,
        populate_by_name=True,
        defer_build=True,
    )

    # bounded as the ids of every other entrypoint: a refusal quotes them, and it is logged
    pipeline_execution_id: str = Field(max_length=MAX_ID_LENGTH)
    workflow_execution_id: str | None = Field(default=None, max_length=MAX_ID_LENGTH)
    sub_execution: Any = None
    sub_executions: tuple[Any, ...] = ()
    logs: tuple[Any, ...] = ()
    # usage the step reports for its running attempt (the cost ledger, seed 003)
    costs: tuple[ReportedUsage, ...] = Field(default=(), max_length=MAX_COSTS)

    @field_validator("sub_executions", "logs", mode="before")
    @classmethod
    def _null_is_none(cls, value: object) -> object:
        return () if value is None else value  # as VAMS reads a `null` list: nothing reported

    def entries(
        self,
        state_machine_prefix: str = DEFAULT_STATE_MACHINE_PREFIX,
        reach: SubProcessReach | None = None,
    ) -> tuple[tuple[RegisteredSubExecution, ...], tuple[RegisteredLog, ...], tuple[str, ...]]:
        """The sub-executions and logs whose fields keep their rules, and what was dropped: a run
        of another wfx stack's machine too (this one's start with `state_machine_prefix`), and a
        sub-process the deployment's roles may not stop (`reach`; None: any)."""
        dropped = [f"{key}: not a field of the event detail; dropped" for key in self.extra_keys]
        reported = [("subExecution", self.sub_execution)] if self.sub_execution is not None else []
        reported += [(f"subExecutions[{i}]", raw) for i, raw in enumerate(self.sub_executions)]
        sub_executions: list[RegisteredSubExecution] = []
        for where, raw in reported:
            sub, problems = normalize_sub_execution(raw, where)
            dropped += problems
            if sub is None:
                continue
            foreign = _another_stack_s(sub, where, state_machine_prefix)
            if foreign is None and reach is not None:
                foreign = reach.refusal(sub, where, state_machine_prefix)
            if foreign is not None:
                dropped.append(foreign)
                continue
            sub_executions.append(sub)
        logs: list[RegisteredLog] = []
        for index, raw in enumerate(self.logs):
            log, problems = normalize_log(raw, f"logs[{index}]")
            dropped += problems
            if log is not None:
                logs.append(log)
        return tuple(sub_executions), tuple(logs), tuple(dropped)

    @property
    def extra_keys(self) -> tuple[str, ...]:
        return tuple(self.model_extra or ())


def _another_stack_s(sub: RegisteredSubExecution, where: str, prefix: str) -> str | None:
    """Why `sub` is not registered: it names a run of another wfx stack, which the roles that
    stop registered sub-processes could stop (they reach any execution when the stack's
    SubProcessStateMachinePattern is `*`)."""
    for key, arn in (
        ("executionArn", sub.execution_arn),
        ("stateMachineArn", sub.state_machine_arn),
        ("arn", sub.arn),
    ):
        name = other_stack_machine(arn, prefix) if arn else None
        if name is not None:
            return (
                f"{where}.{key}: a run of another wfx stack's state machine {name} (this "
                f"stack's are {prefix}*), which no abort here may stop; entry dropped"
            )
    return None


class RegisterPipelineExecutionCommand(BaseModel):
    """A registration event: its source names the execution and the step, the detail the rest."""

    # The whole EventBridge event may be passed: its other envelope fields are ignored.
    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True, defer_build=True)

    # EventBridge's own bounds; a direct invoke is held to them too
    source: str = Field(max_length=MAX_SOURCE_LENGTH)
    detail_type: str = Field(default=DETAIL_TYPE, alias="detail-type", max_length=MAX_ID_LENGTH)
    detail: RegistrationDetail

    @field_validator("detail", mode="before")
    @classmethod
    def _a_json_detail(cls, value: object) -> object:
        """A detail sent as a JSON string (as PutEvents carries it) is read as its object."""
        if isinstance(value, str):
            try:
                return json.loads(value)
            except json.JSONDecodeError as error:
                raise ValueError(f"not JSON: {error.msg}") from None
            except RecursionError:
                raise ValueError("nested deeper than a registration detail can be") from None
        return value


class RegistrationResult(BaseModel):
    """Accepted with the step as stored afterwards, or refused with the reason (nothing written)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    accepted: bool
    reason: str | None = None
    step: PipelineExecution | None = None
    # what the step's cap (50 of each) left out, and children stopped at once (the run was
    # being aborted) that may be left running
    warnings: tuple[str, ...] = ()
    # the fields and entries not recorded, each naming the field and the rule it broke
    dropped: tuple[str, ...] = ()
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

    As VAMS, a step that has ended takes registrations too: a pipeline reports a resource once
    it has its id, which can be after the step ended, and being on the row is what lets an abort
    stop it. On a run being aborted (or over), what the step registers is stopped at once and
    the outcome recorded on it: an abort that read the step before this registration would
    otherwise never stop it.
    """

    def __init__(
        self,
        store: RunLifecycleStore,
        sub_processes: SubProcessController,
        clock: Clock,
        costs: RecordCost | None = None,
        state_machine_prefix: str = DEFAULT_STATE_MACHINE_PREFIX,
        sub_process_reach: SubProcessReach | None = None,
    ) -> None:
        self._store, self._sub_processes, self._clock = store, sub_processes, clock
        self._state_machine_prefix = state_machine_prefix
        self._reach = sub_process_reach
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
        sub_executions, logs, dropped = detail.entries(self._state_machine_prefix, self._reach)
        if not sub_executions and not logs:
            step = self._own_step(execution_id, pipeline_execution_id)
            if step is None:
                return not_its_step
            # costs alone are taken on an ended step too: a bill comes after the work
            accepted = RegistrationResult(accepted=True, step=step, dropped=dropped)
            return self._with_costs(accepted, detail.costs)
        stored = self._registered(execution_id, pipeline_execution_id, sub_executions, logs)
        if stored is None:
            return not_its_step
        accepted = self._accepted(stored, sub_executions, logs, dropped)
        return self._with_costs(accepted, detail.costs)

    def _own_step(self, execution_id: str, pipeline_execution_id: str) -> PipelineExecution | None:
        """The step, when it is one of the execution's."""
        try:
            step = self._store.get_step(pipeline_execution_id)
        except PipelineExecutionNotFoundError:
            return None
        return step if step.workflow_execution_id == execution_id else None

    def _registered(
        self,
        execution_id: str,
        pipeline_execution_id: str,
        sub_executions: tuple[RegisteredSubExecution, ...],
        logs: tuple[RegisteredLog, ...],
    ) -> PipelineExecution | None:
        """The step with the entries merged into its lists, as stored; None when it is not
        one of the execution's."""

        def read() -> VersionedStep:
            # The step row is keyed by the execution too: a step of another run is not found.
            return self._store.get_versioned_step(execution_id, pipeline_execution_id)

        def decide(read: VersionedStep) -> RunWrite | None:
            stored = read.step
            return RunWrite.registering(
                read,
                merge_sub_executions(stored.registered_sub_executions, sub_executions),
                merge_logs(stored.registered_logs, logs),
                self._clock.now(),
            )

        try:
            written, last = commit_decided(self._store, read, decide)
        except (PipelineExecutionNotFoundError, ExecutionNotFoundError):
            return None  # (no main row: a run being deleted, its steps gone first)
        if written is not None and written.step_lists is not None:
            return written.step_lists.step
        assert last is not None  # nothing written: decided on a step it read
        return last.step  # nothing new: the step as read

    def _accepted(
        self,
        stored: PipelineExecution,
        sub_executions: tuple[RegisteredSubExecution, ...],
        logs: tuple[RegisteredLog, ...],
        dropped: tuple[str, ...],
    ) -> RegistrationResult:
        """Accepted, with what the step's caps left out and what an abort stopped at once."""
        subs_left, logs_left = _past_the_caps(stored, sub_executions, logs)
        warnings = _dropped_warnings(logs_left, subs_left) + self._stop_if_stopping(
            stored, sub_executions
        )
        return RegistrationResult(
            accepted=True,
            step=stored,
            warnings=warnings,
            dropped=dropped,
            dropped_logs=logs_left,
            dropped_sub_executions=subs_left,
        )

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
        return tuple(
            stop_registered(self._sub_processes, self._store, step, registered, self._clock.now())
        )


def _past_the_caps(
    stored: PipelineExecution,
    sub_executions: tuple[RegisteredSubExecution, ...],
    logs: tuple[RegisteredLog, ...],
) -> tuple[int, int]:
    """How many sub-executions and logs the step's lists had no room for (seed 000: at most 50
    of each)."""
    kept_subs = {entry.identity for entry in stored.registered_sub_executions}
    kept_logs = {entry.location for entry in stored.registered_logs}
    subs_left = {entry.identity for entry in sub_executions} - kept_subs
    logs_left = {entry.location for entry in logs} - kept_logs
    return len(subs_left), len(logs_left)
