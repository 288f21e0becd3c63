"""The ports of what a step started elsewhere: sub-executions read, sub-processes stopped."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from application.ports.orchestration import HistoryPage
    from domain.execution import PipelineExecution
    from domain.logs import RegisteredSubExecution
    from domain.stages import SubExecutionReadError
    from domain.sub_processes import StopAttempt


@dataclass(frozen=True)
class SubExecutionDescription:
    """A Step Functions execution a step registered, as DescribeExecution gives it."""

    status: str
    state_machine_arn: str
    start_date: datetime | None = None
    stop_date: datetime | None = None


@dataclass(frozen=True)
class StateMachineSource:
    """A state machine as DescribeStateMachine gives it: the ASL text, unparsed (its size is
    bounded before it is parsed), and the CloudWatch log groups its logging writes to."""

    definition: str
    log_group_arns: tuple[str, ...] = ()


class SubExecutionReader(Protocol):
    """Reads registered sub-executions for derived stage status; every method raises
    domain.stages.SubExecutionReadError when the service (or an emulator's gap) fails it."""

    def describe_execution(self, execution_arn: str) -> SubExecutionDescription: ...

    def describe_executions(
        self, execution_arns: Sequence[str]
    ) -> list[SubExecutionDescription | SubExecutionReadError]:
        """Each execution as `describe_execution` describes it, in the order asked (sent at once
        where each is a round trip); one that failed is its error, in its place."""
        ...

    def describe_state_machine(self, state_machine_arn: str) -> StateMachineSource: ...

    def history_page(self, execution_arn: str, next_token: str | None) -> HistoryPage:
        """One page, oldest first; `next_token` is only ever one this reader returned."""
        ...

    def batch_job_statuses(self, job_ids: Sequence[str]) -> dict[str, str]:
        """AWS Batch status by job id; an id Batch does not know is absent."""
        ...


class ChildController(Protocol):
    """Stops one type of process a step registered (seed 000 "Abort reaches inside a
    pipeline"), one child at a time.

    Neither method raises for a service's refusal: that is a `couldNotStop` attempt whose detail
    says why. A type the controller cannot stop is `unsupported`.
    """

    def stop(self, sub_execution: RegisteredSubExecution, step: PipelineExecution) -> StopAttempt:
        """Ask the child `step` registered to stop: stopRequested, stopped (seen ended),
        alreadyFinished or couldNotStop (also for a child that is not really the step's)."""
        ...

    def confirm(
        self, sub_execution: RegisteredSubExecution, step: PipelineExecution
    ) -> StopAttempt:
        """Look, without stopping: stopped / alreadyFinished when it has ended, stopRequested
        while it still runs, couldNotStop when it cannot be looked up."""
        ...


class SubProcessController(ChildController, Protocol):
    """Stops any process a step registered, a child at a time or all of a step's at once."""

    def stop_each(
        self, sub_executions: Sequence[RegisteredSubExecution], step: PipelineExecution
    ) -> list[StopAttempt]:
        """Each child's `stop` attempt, in order, never raised: the stops are made at once, so
        a step's children wait one grace period or round trip between them, not one each."""
        ...
