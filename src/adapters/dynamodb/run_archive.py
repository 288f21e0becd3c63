"""RunArchive on DynamoDB: a run's partitions by Query, items put only where their key is free."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from functools import partial
from itertools import groupby
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from adapters.concurrent_reads import ConcurrentReads
from adapters.dynamodb.codec import check_item, from_wire, to_wire
from adapters.dynamodb.import_claims import WAIT_SECONDS, ImportClaims
from adapters.dynamodb.requests import (
    CONDITION_FAILED,
    cancellation_codes,
    query_pages,
    query_partition,
)
from adapters.records import ALL_LIST_PARTITION, Item
from adapters.run_archive import (
    EXECUTION_ID,
    RUN_PAGE,
    START,
    RunArchiveRows,
    definition_key,
    state_digest,
)
from adapters.tables import TABLE_SPECS, ResourceKeys, TableNames
from application.ports.files import ObjectStore
from application.ports.migration import ArchivedRun

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

_STEPS_INDEX = "PipelineExecByWorkflowExecGSI"
_DATE_INDEX = "WorkflowExecutionsByDateGSI"


class DynamoDbRunArchive(RunArchiveRows):
    def __init__(
        self,
        client: DynamoDBClient,
        tables: TableNames,
        objects: ObjectStore | None = None,
        page_size: int = RUN_PAGE,
        claim_wait: float = WAIT_SECONDS,
        concurrent_reads: bool = True,
    ) -> None:
        super().__init__(objects, page_size)
        self._client = client
        self._tables = tables
        self._reads = ConcurrentReads(concurrent_reads)
        self._claims = ImportClaims(client, tables, claim_wait)

    def _claimed(self, run: ArchivedRun) -> AbstractContextManager[None]:
        first_line = next((i.line for i in run.items if i.line), 0)
        return self._claims.held(
            run.workflow_execution_id,
            first_line,
            state_digest(run),
            partial(self._part_stored_without_main_row, run),
        )

    def _keep_claim(self) -> None:
        self._claims.keep()

    def _by_date(self, since: str, until: str | None) -> dict[str, Any]:
        """A Query of the global list's runs from `since` (to `until`) on the date index."""
        # a key condition cannot compare with an empty string: " " sorts before every date
        values = {":pk": {"S": ALL_LIST_PARTITION}, ":since": {"S": since or " "}}
        condition = "#pk = :pk AND #start >= :since"
        if until is not None:
            values[":until"] = {"S": until}
            condition = "#pk = :pk AND #start BETWEEN :since AND :until"
        return {
            "TableName": self._tables.get_table_name(ResourceKeys.WORKFLOW_EXECUTIONS),
            "IndexName": _DATE_INDEX,
            "KeyConditionExpression": condition,
            "ExpressionAttributeNames": {"#pk": "allListPartition", "#start": START},
            "ExpressionAttributeValues": values,
        }

    def _newest_start(self, since: str) -> str | None:
        request = self._by_date(since, None)
        response = self._client.query(
            **request, ScanIndexForward=False, Limit=1, ProjectionExpression="#start"
        )
        items = response["Items"]
        return str(from_wire(items[0])[START]) if items else None

    def _count_runs(self, since: str, until: str) -> int:
        # the index read through as counts only: a page of keys at a time, nothing held
        request: dict[str, Any] = {**self._by_date(since, until), "Select": "COUNT"}
        count = 0
        while True:
            response = self._client.query(**request)
            count += response["Count"]
            last_key = response.get("LastEvaluatedKey")
            if not last_key:
                return count
            request = {**request, "ExclusiveStartKey": last_key}

    def _run_ids_oldest_first(self, since: str, until: str) -> Iterator[str]:
        request = self._by_date(since, until)
        request["ExpressionAttributeNames"]["#run"] = EXECUTION_ID
        request |= {"ProjectionExpression": "#run, #start", "Limit": self._page_size}
        runs = ((item[START], item[EXECUTION_ID]) for item in query_pages(self._client, **request))
        # the index orders by start alone (whole seconds): the runs of one start are put in id
        # order here, one start's held at a time
        for _, same_start in groupby(runs, key=itemgetter(0)):
            yield from sorted(str(run_id) for _, run_id in same_start)

    def _partition(self, table: ResourceKeys, value: str) -> list[Item]:
        name = self._tables.get_table_name(table)
        return query_partition(self._client, name, TABLE_SPECS[table].partition.name, value)

    def _partitions(self, wanted: Sequence[tuple[ResourceKeys, str]]) -> list[list[Item]]:
        return self._reads.each([partial(self._partition, *where) for where in wanted])

    def _steps(self, workflow_execution_id: str) -> list[Item]:
        name = self._tables.get_table_name(ResourceKeys.PIPELINE_EXECUTIONS)
        # a GSI read, eventually consistent: DynamoDB offers nothing stronger for this lookup
        steps = query_partition(
            self._client, name, EXECUTION_ID, workflow_execution_id, index_name=_STEPS_INDEX
        )
        return sorted(steps, key=lambda step: str(step["pipelineExecutionId"]))

    def _get(self, table: ResourceKeys, key: Mapping[str, Any]) -> Item | None:
        response = self._client.get_item(
            TableName=self._tables.get_table_name(table), Key=to_wire(key), ConsistentRead=True
        )
        item = response.get("Item")
        return None if item is None else from_wire(item)

    def _put_if_absent(self, table: ResourceKeys, item: Mapping[str, Any]) -> bool:
        from botocore.exceptions import ClientError

        try:
            self._client.put_item(**self._new(table, item))
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            return False
        return True

    def _put_version_if_absent(
        self, table: ResourceKeys, item: Mapping[str, Any], version: int | float
    ) -> bool | None:
        from botocore.exceptions import ClientError

        # the definition's latest checked in the put's own transaction: a publish (or another
        # import) landing after a look at it would otherwise be written past
        check: dict[str, Any] = {
            "TableName": self._tables.get_table_name(ResourceKeys.WORKFLOW_DEFINITIONS),
            "Key": to_wire(definition_key(item)),
            # no definition, or none with a number for its latest: nothing to be past
            "ConditionExpression": "NOT attribute_type(#latest, :number) OR #latest >= :version",
            "ExpressionAttributeNames": {"#latest": "latestVersion"},
            "ExpressionAttributeValues": to_wire({":number": "N", ":version": version}),
        }
        try:
            actions = [{"Put": self._new(table, item)}, {"ConditionCheck": check}]
            self._client.transact_write_items(TransactItems=actions)  # type: ignore[arg-type]
        except ClientError as exc:
            codes = cancellation_codes(exc)
            if codes[:1] == [CONDITION_FAILED]:
                return False
            if codes[1:2] == [CONDITION_FAILED]:
                return None
            raise
        return True

    def _new(self, table: ResourceKeys, item: Mapping[str, Any]) -> dict[str, Any]:
        name, spec = self._tables.get_table_name(table), TABLE_SPECS[table]
        check_item(name, spec, item)
        return {
            "TableName": name,
            "Item": to_wire(item),
            "ConditionExpression": "attribute_not_exists(#pk)",
            "ExpressionAttributeNames": {"#pk": spec.partition.name},
        }

    def _delete(self, table: ResourceKeys, key: Mapping[str, Any]) -> None:
        self._client.delete_item(TableName=self._tables.get_table_name(table), Key=to_wire(key))
