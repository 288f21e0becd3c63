"""The shared state of the DynamoDB execution store's parts (writer, reads, queries)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from botocore.exceptions import ClientError

from adapters.concurrent_reads import ConcurrentReads
from adapters.dynamodb.codec import Item
from adapters.dynamodb.requests import query_partition
from adapters.dynamodb.unit_of_work import DynamoDbUnitOfWork
from adapters.item_budget import OffloadedBodies
from adapters.tables import TABLE_SPECS, ResourceKeys, TableNames, TableSpec
from application.ports.files import ObjectStore

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient


Put = tuple[str, TableSpec, Item]

_STEPS_INDEX = "PipelineExecByWorkflowExecGSI"


def error_code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


class DynamoDbStoreBase:
    """What the parts of the DynamoDB execution store share: the client, the table names, the
    offloaded bodies, the run's unit of work and the reads of a partition they all make."""

    def __init__(
        self,
        client: DynamoDBClient,
        tables: TableNames,
        *,
        query_page_size: int = 100,
        objects: ObjectStore | None = None,
        concurrent_reads: bool = True,
    ) -> None:
        """`objects` holds the bodies the item budgets move out of rows (adapters/item_budget);
        `concurrent_reads`: a read of many independent requests sends them at once."""
        self._client = client
        self._tables = tables
        self._bodies = OffloadedBodies(objects)
        self._whole = self._bodies.restore
        self._query_page_size = query_page_size
        self._reads = ConcurrentReads(concurrent_reads)
        self._main_keys: dict[str, dict[str, str]] = {}
        # every transition's write goes through it, with the transition's events
        self._unit_of_work = DynamoDbUnitOfWork(client, tables, self._bodies)

    def _table(self, key: ResourceKeys) -> tuple[str, TableSpec]:
        return self._tables.get_table_name(key), TABLE_SPECS[key]

    def _puts(self, key: ResourceKeys, items: Iterable[Item]) -> list[Put]:
        table_name, spec = self._table(key)
        return [(table_name, spec, item) for item in items]

    def _main_rows(self, workflow_execution_id: str) -> list[Item]:
        if not workflow_execution_id:
            return []
        table_name, spec = self._table(ResourceKeys.WORKFLOW_EXECUTIONS)
        # The sort key (workflowDatabaseId:workflowId) is not known here: query the partition.
        return query_partition(self._client, table_name, spec.partition.name, workflow_execution_id)

    def _step_items(self, workflow_execution_id: str) -> list[Item]:
        table_name, spec = self._table(ResourceKeys.PIPELINE_EXECUTIONS)
        # A GSI read is eventually consistent: DynamoDB offers nothing stronger for this lookup.
        return query_partition(
            self._client,
            table_name,
            spec.index(_STEPS_INDEX).partition.name,
            workflow_execution_id,
            index_name=_STEPS_INDEX,
        )

    def _step_rows(self, table: ResourceKeys, pipeline_execution_id: str) -> list[Item]:
        table_name, spec = self._table(table)
        return query_partition(self._client, table_name, spec.partition.name, pipeline_execution_id)
