"""MigratedRuns on SQLite: a migrated run's rows in one transaction."""

from __future__ import annotations

from adapters.migrated_rows import main_row, supporting_rows
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_sql import EXECUTION_ID, ExecutionSql
from adapters.sqlite.schema import build_schema
from adapters.tables import TableNames
from domain.migration import MigratedRun


class SqliteMigratedRuns:
    """Writes the V1 migration's runs into the execution tables of one SQLite file."""

    def __init__(self, database: SqliteDatabase, tables: TableNames) -> None:
        self._database = database
        self._sql = ExecutionSql(build_schema(tables))
        main = self._sql.executions
        self._exists = f"SELECT 1 FROM {main.name} WHERE {main.q(EXECUTION_ID)} = ? LIMIT 1"

    def has_run(self, workflow_execution_id: str) -> bool:
        with self._database.read() as connection:
            found = connection.execute(self._exists, (workflow_execution_id,)).fetchone()
        return found is not None

    def add_migrated(self, run: MigratedRun) -> bool:
        sql = self._sql
        execution_id = run.execution.workflow_execution_id
        with self._database.write() as connection:
            inserted = connection.execute(
                sql.insert_execution_if_new, (*sql.executions.row(main_row(run)), execution_id)
            )
            if inserted.rowcount == 0:
                return False
            for key, item in supporting_rows(run):
                connection.execute(sql.tables[key].upsert, sql.tables[key].row(item))
        return True
