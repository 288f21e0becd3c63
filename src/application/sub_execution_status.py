"""Derived status of the sub-executions steps registered (seed 000 "Stage status is derived").

Used by GetExecutionDetails when a request asks for sub-executions. Reads are bounded and best
effort: each Step Functions sub-execution costs one DescribeExecution (all of the request's
asked in one batch, at once on AWS), one DescribeStateMachine per state machine per request
(memoised), and at most 5 history pages, with at most 20 pages for the whole request, read in
order; every failure becomes UNKNOWN plus a warning, never a failed request. A history read always
starts from no token and passes on only the tokens Step Functions itself returned.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from application.ports.sub_executions import SubExecutionDescription, SubExecutionReader
from application.state_machine_memo import StateMachineMemo
from domain.execution import StepDetails
from domain.logs import BATCH_JOB, STEP_FUNCTIONS_EXECUTION, RegisteredSubExecution
from domain.redaction import redact
from domain.stage_history import StageFrame, StageFrameError, attribute_history, stage_frame
from domain.stages import (
    StageStatus,
    SubExecutionReadError,
    SubExecutionState,
    SubExecutionWarning,
)

MAX_PAGES_PER_SUB_EXECUTION = 5
MAX_PAGES_PER_REQUEST = 20


@dataclass
class _Request:
    """What one details request has read so far: the memos and the page budget."""

    machines: StateMachineMemo
    frames: dict[str, StageFrame | str] = field(default_factory=dict)  # a frame, or why none
    pages_left: int = MAX_PAGES_PER_REQUEST
    batch_statuses: dict[str, str] = field(default_factory=dict)
    batch_error: str = ""
    # each Step Functions sub-execution's description, in the order the steps are walked
    descriptions: Iterator[SubExecutionDescription | SubExecutionReadError] = field(
        default_factory=lambda: iter(())
    )
    warnings: list[SubExecutionWarning] = field(default_factory=list)


class SubExecutionStatus:
    """Gives each step's registered sub-executions a status, and stages for Step Functions."""

    def __init__(self, reader: SubExecutionReader) -> None:
        self._reader = reader

    def describe(
        self, steps: Sequence[StepDetails], machines: StateMachineMemo | None = None
    ) -> tuple[tuple[StepDetails, ...], tuple[SubExecutionWarning, ...]]:
        """`machines`: the request's memo, when another part of the request describes too."""
        request = _Request(machines or StateMachineMemo(self._reader))
        self._read_batch_jobs(steps, request)
        self._describe_executions(steps, request)
        described = tuple(
            entry.model_copy(
                update={
                    "sub_executions": tuple(
                        self._one(entry.step.pipeline_execution_id, sub, request)
                        for sub in entry.step.registered_sub_executions
                    )
                }
            )
            for entry in steps
        )
        return described, tuple(request.warnings)

    def _read_batch_jobs(self, steps: Sequence[StepDetails], request: _Request) -> None:
        job_ids = _ids_of(steps, BATCH_JOB)
        if not job_ids:
            return
        try:
            request.batch_statuses = self._reader.batch_job_statuses(job_ids)
        except SubExecutionReadError as error:
            request.batch_error = redact(str(error))

    def _describe_executions(self, steps: Sequence[StepDetails], request: _Request) -> None:
        execution_arns = _ids_of(steps, STEP_FUNCTIONS_EXECUTION)
        if execution_arns:
            request.descriptions = iter(self._reader.describe_executions(execution_arns))

    def _one(
        self, step_id: str, sub: RegisteredSubExecution, request: _Request
    ) -> SubExecutionState:
        base = SubExecutionState(
            resource_type=sub.resource_type, resource_id=sub.resource_id, label=sub.label
        )
        if sub.resource_type == STEP_FUNCTIONS_EXECUTION:
            return self._step_functions(step_id, base, request)
        if sub.resource_type == BATCH_JOB:
            status = request.batch_statuses.get(sub.resource_id)
            if status:
                return base.model_copy(update={"status": status})
            _warn(request, step_id, base, request.batch_error or "AWS Batch has no such job")
            return base
        # recorded, but wfx has no reader for it: not an error, so a note rather than a warning
        return base.model_copy(
            update={"note": f"the status of a {sub.resource_type} sub-execution is not read"}
        )

    def _step_functions(
        self, step_id: str, base: SubExecutionState, request: _Request
    ) -> SubExecutionState:
        described = next(request.descriptions)
        if isinstance(described, SubExecutionReadError):
            _warn(request, step_id, base, str(described))
            return base
        state = base.model_copy(
            update={
                "status": described.status or StageStatus.UNKNOWN.value,
                "state_machine_arn": described.state_machine_arn,
                "start_date": described.start_date,
                "stop_date": described.stop_date,
            }
        )
        frame = self._frame(described.state_machine_arn, request)
        if isinstance(frame, str):
            _warn(request, step_id, base, frame)
            return state
        for note in frame.notes:
            _warn(request, step_id, base, f"stage frame: {note}")
        events, complete = self._history(step_id, base, request)
        stages = attribute_history(frame, events, complete, execution_status=described.status)
        return state.model_copy(update={"stages": stages})

    def _frame(self, state_machine_arn: str, request: _Request) -> StageFrame | str:
        if state_machine_arn not in request.frames:
            try:
                definition = request.machines.describe(state_machine_arn).definition
                request.frames[state_machine_arn] = stage_frame(definition)
            except (SubExecutionReadError, StageFrameError) as error:
                request.frames[state_machine_arn] = str(error)
        return request.frames[state_machine_arn]

    def _history(
        self, step_id: str, base: SubExecutionState, request: _Request
    ) -> tuple[list[dict[str, Any]], bool]:
        """The events read within the bounds, and whether they are the whole history."""
        events: list[dict[str, Any]] = []
        token: str | None = None  # never a token from outside: a logs request's is CloudWatch's
        for _ in range(MAX_PAGES_PER_SUB_EXECUTION):
            if request.pages_left == 0:
                _warn(
                    request,
                    step_id,
                    base,
                    f"history not read past {MAX_PAGES_PER_REQUEST} pages in this request; "
                    "stages not seen are UNKNOWN",
                )
                return events, False
            request.pages_left -= 1
            try:
                page = self._reader.history_page(base.resource_id, token)
            except SubExecutionReadError as error:
                _warn(request, step_id, base, f"{error}; stages not seen are UNKNOWN")
                return events, False
            events.extend(page.events)
            if not page.next_token:
                return events, True
            token = page.next_token
        _warn(
            request,
            step_id,
            base,
            f"history not read past {MAX_PAGES_PER_SUB_EXECUTION} pages; "
            "stages not seen are UNKNOWN",
        )
        return events, False


def _warn(request: _Request, step_id: str, sub: SubExecutionState, message: str) -> None:
    request.warnings.append(
        SubExecutionWarning(
            pipeline_execution_id=step_id,
            resource_type=sub.resource_type,
            resource_id=sub.resource_id,
            message=redact(message),
        )
    )


def _ids_of(steps: Sequence[StepDetails], resource_type: str) -> list[str]:
    """The ids of the sub-executions of that type the steps registered, in the steps' order."""
    return [
        sub.resource_id
        for entry in steps
        for sub in entry.step.registered_sub_executions
        if sub.resource_type == resource_type
    ]
