"""The reads of a run and its steps on DynamoDB: the main row, the run, its steps and attempts."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

from adapters.dynamodb.codec import Item
from adapters.dynamodb.requests import get_item, query_partition
from adapters.dynamodb.store_base import DynamoDbStoreBase
from adapters.output_records import parse_output_file_record
from adapters.readable_reads import AttemptReads, StepReads
from adapters.records import readable_rows
from adapters.registration import registration_version
from adapters.run_records import parse_execution_record
from adapters.step_records import (
    parse_pipeline_execution_record,
    parse_run_steps,
    parse_task_execution_record,
)
from adapters.tables import ResourceKeys
from domain.attempts import TaskExecution
from domain.errors import ExecutionNotFoundError, PipelineExecutionNotFoundError
from domain.execution import OutputFile, PipelineExecution, UnreadableRow, WorkflowExecution
from domain.run import Run
from domain.run_write import VersionedStep
from domain.statuses import StepStatus


class DynamoDbRunReads(DynamoDbStoreBase, StepReads, AttemptReads):
    """The run and step reads (RunStore, StepRunStore) on DynamoDB."""

    def get_execution(self, workflow_execution_id: str) -> WorkflowExecution:
        rows = self._main_rows(workflow_execution_id)
        if not rows:
            raise ExecutionNotFoundError(workflow_execution_id)
        self._unit_of_work.main_row_read(rows[0])  # the next write's counter, without a read
        return parse_execution_record(self._whole(rows[0]))

    def get_run(self, workflow_execution_id: str, pipeline_execution_id: str | None = None) -> Run:
        execution = self.get_execution(workflow_execution_id)
        if pipeline_execution_id is None:
            steps = self.list_steps(workflow_execution_id)
        else:
            step = self.get_step(pipeline_execution_id)
            if step.workflow_execution_id != workflow_execution_id:
                raise PipelineExecutionNotFoundError(pipeline_execution_id, workflow_execution_id)
            steps = [step]
        attempts = self.list_attempts(step.pipeline_execution_id for step in steps)
        return Run(execution=execution, steps=tuple(steps), attempts=tuple(attempts))

    # -- steps --------------------------------------------------------------------------------

    def get_versioned_step(
        self, workflow_execution_id: str, pipeline_execution_id: str
    ) -> VersionedStep:
        table_name, _ = self._table(ResourceKeys.PIPELINE_EXECUTIONS)
        key = {
            "pipelineExecutionId": pipeline_execution_id,
            "workflowExecutionId": workflow_execution_id,
        }
        item = get_item(self._client, table_name, key) if all(key.values()) else None
        if item is None:
            raise PipelineExecutionNotFoundError(pipeline_execution_id, workflow_execution_id)
        step = parse_pipeline_execution_record(self._whole(item))
        return VersionedStep(step, registration_version(item))

    def get_step(self, pipeline_execution_id: str) -> PipelineExecution:
        table_name, spec = self._table(ResourceKeys.PIPELINE_EXECUTIONS)
        rows = (
            query_partition(self._client, table_name, spec.partition.name, pipeline_execution_id)
            if pipeline_execution_id
            else []
        )
        if not rows:
            raise PipelineExecutionNotFoundError(pipeline_execution_id)
        return parse_pipeline_execution_record(self._whole(rows[0]))

    def _read_steps(
        self, workflow_execution_id: str, left_out: list[UnreadableRow] | None
    ) -> list[PipelineExecution]:
        if not workflow_execution_id:
            return []
        items = [self._whole(row) for row in self._step_items(workflow_execution_id)]
        return parse_run_steps(items, left_out)

    def list_steps_and_running_attempts(
        self, workflow_execution_id: str
    ) -> tuple[list[PipelineExecution], list[TaskExecution]]:
        # attempts are keyed by their step: a Query per running step, none for the others
        steps = self.list_steps(workflow_execution_id)
        running = (s.pipeline_execution_id for s in steps if s.status is StepStatus.RUNNING)
        return steps, self._read_attempts(running, None)

    def _read_attempts(
        self, pipeline_execution_ids: Iterable[str], left_out: list[UnreadableRow] | None
    ) -> list[TaskExecution]:
        # One consistent query per step, sent at once; the sort key keeps each step's attempts
        # ascending.
        found = self._each_step_rows(ResourceKeys.TASK_EXECUTIONS, pipeline_execution_ids)
        items = [self._whole(row) for rows in found for row in rows]
        return readable_rows(parse_task_execution_record, items, left_out)

    def list_output_files(self, pipeline_execution_ids: Iterable[str]) -> list[OutputFile]:
        found = self._each_step_rows(ResourceKeys.PIPELINE_OUTPUT_FILES, pipeline_execution_ids)
        return [parse_output_file_record(row) for rows in found for row in rows]

    def _each_step_rows(
        self, table: ResourceKeys, pipeline_execution_ids: Iterable[str]
    ) -> list[list[Item]]:
        """Each step's rows in `table`, in the steps' order (a step named twice read once)."""
        step_ids = [step_id for step_id in dict.fromkeys(pipeline_execution_ids) if step_id]
        return self._reads.each([partial(self._step_rows, table, step_id) for step_id in step_ids])
