"""ExecutionStore on the seed-000 DynamoDB tables, item for item and index for index."""

from __future__ import annotations

from adapters.dynamodb.execution_queries import DynamoDbExecutionQueries
from adapters.dynamodb.run_writer import DynamoDbRunWriter
from adapters.dynamodb.schema import create_tables


class DynamoDbExecutionStore(DynamoDbRunWriter, DynamoDbExecutionQueries):
    """ExecutionStore on DynamoDB: the eleven seed-000 tables through a low-level boto3 client.
    The parts, one per port, share the client and tables of DynamoDbStoreBase."""

    def create_tables(self) -> None:
        create_tables(self._client, self._tables)
