"""The reads that answer two ways, alike on every store: strict (`list_steps`: an unreadable row
raises its `UnreadableRowError`) or readable (`list_readable_steps`: the rows that parse, and
the ones left out named, for a view that shows what it can of a damaged run). A store writes the
one read, given where to put what it leaves out (`adapters.records.readable_rows`); the mixins
here give both answers from it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: a store importing these mixins imports no more models
    from domain.approvals import ApprovalRequest
    from domain.attempts import TaskExecution
    from domain.execution import PipelineExecution, UnreadableRow


class StepReads(ABC):
    """A run's steps, in chain order."""

    def list_steps(self, workflow_execution_id: str) -> list[PipelineExecution]:
        return self._read_steps(workflow_execution_id, None)

    def list_readable_steps(
        self, workflow_execution_id: str
    ) -> tuple[list[PipelineExecution], tuple[UnreadableRow, ...]]:
        left_out: list[UnreadableRow] = []
        return self._read_steps(workflow_execution_id, left_out), tuple(left_out)

    @abstractmethod
    def _read_steps(
        self, workflow_execution_id: str, left_out: list[UnreadableRow] | None
    ) -> list[PipelineExecution]: ...


class AttemptReads(ABC):
    """The steps' attempts, step by step in the order given, each step's ascending."""

    def list_attempts(self, pipeline_execution_ids: Iterable[str]) -> list[TaskExecution]:
        return self._read_attempts(pipeline_execution_ids, None)

    def list_readable_attempts(
        self, pipeline_execution_ids: Iterable[str]
    ) -> tuple[list[TaskExecution], tuple[UnreadableRow, ...]]:
        left_out: list[UnreadableRow] = []
        return self._read_attempts(pipeline_execution_ids, left_out), tuple(left_out)

    @abstractmethod
    def _read_attempts(
        self, pipeline_execution_ids: Iterable[str], left_out: list[UnreadableRow] | None
    ) -> list[TaskExecution]: ...


class ApprovalReads(ABC):
    """A run's approval requests, oldest first."""

    def list_for_execution(self, workflow_execution_id: str) -> list[ApprovalRequest]:
        return self._read_approvals(workflow_execution_id, None)

    def list_readable_for_execution(
        self, workflow_execution_id: str
    ) -> tuple[list[ApprovalRequest], tuple[UnreadableRow, ...]]:
        left_out: list[UnreadableRow] = []
        return self._read_approvals(workflow_execution_id, left_out), tuple(left_out)

    @abstractmethod
    def _read_approvals(
        self, workflow_execution_id: str, left_out: list[UnreadableRow] | None
    ) -> list[ApprovalRequest]: ...
