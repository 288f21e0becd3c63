"""`ExecutionStore` on SQLite: the seed-000 tables as rows of key columns plus the JSON item."""

from __future__ import annotations

from adapters.sqlite.execution_queries import SqliteExecutionQueries
from adapters.sqlite.run_reads import SqliteRunReads
from adapters.sqlite.run_writer import SqliteRunWriter
from adapters.sqlite.schema import create_tables


class SqliteExecutionStore(SqliteRunWriter, SqliteRunReads, SqliteExecutionQueries):
    """ExecutionStore over one SQLite database; each call is one transaction. The parts, one per
    port, share the database and statements of SqliteStoreBase."""

    def create_tables(self) -> None:
        create_tables(self._database, self._sql.schema)
        self._attempts_ready = True
        self._unit_of_work.ensure_table()
