"""The SQLite mirror of `adapters.tables.TABLES`: the same keys, one index per GSI or LSI, JSON
items.

The layout (names, key columns, index names) is plain data that the statements are rendered from.
The DDL is declared once with SQLAlchemy Core and created by its `create_all`; SQLAlchemy is
imported only there, so a command that only reads or writes rows never pays for importing it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from adapters.sqlite.database import SqliteDatabase
from adapters.tables import (
    NOT_CREATED,
    TABLES,
    IndexSpec,
    KeyAttribute,
    ResourceKeys,
    TableNames,
    TableSpec,
)

if TYPE_CHECKING:
    from sqlalchemy import Column, MetaData

ITEM_COLUMN = "item"
# Tables an earlier wfx made with fewer index keys, whose items always held those attributes: an
# existing file gets the key columns filled from its items, and the indexes. (The workflow tables
# have an upgrade of their own: adapters/sqlite/workflow_tables.py.) The earlier table is no
# longer made (NOT_CREATED; a SQLite user migrates from a file): one an earlier wfx made is
# upgraded, never created.
FILLED_FROM_ITEMS = (ResourceKeys.WORKFLOW_EXECUTIONS_V1,)


def index_name(table_name: str, index: IndexSpec) -> str:
    """SQLite index names share one namespace per database, so two prefixes (two `TableNames` in
    one file) would clash on the bare GSI name; the table name in front keeps them apart."""
    return f"{table_name}.{index.name}"


def sparse_key(spec: TableSpec, index: IndexSpec) -> str | None:
    """The index partition a row may lack, when it is not a table key: DynamoDB leaves an item
    without it out of the GSI, and so does the index (`WHERE <it> IS NOT NULL`), which spares a
    write of such a row (most runs have no group, no output asset) a page of the index. Every
    lookup of the index names its partition with `=` or `IN`, so SQLite still uses it."""
    name = index.partition.name
    return None if name in {a.name for a in spec.key_attributes} else name


def index_columns(spec: TableSpec, index: IndexSpec) -> tuple[str, ...]:
    """Index partition, index sort, then the table partition: the tie-breaker of newest-first
    paging (an LSI's partition is the table's, so it is not repeated)."""
    names = [attribute.name for attribute in index.attributes]
    if spec.partition.name not in names:
        names.append(spec.partition.name)
    return tuple(names)


@dataclass(frozen=True)
class SqliteTable:
    """One table spec resolved to its SQLite table name."""

    spec: TableSpec
    name: str

    @property
    def key_columns(self) -> tuple[str, ...]:
        """Every table and index key attribute: the columns beside `item`."""
        return tuple(attribute.name for attribute in self.spec.all_key_attributes)

    @property
    def primary_key(self) -> tuple[str, ...]:
        return tuple(attribute.name for attribute in self.spec.key_attributes)

    def index_name(self, gsi_name: str) -> str:
        return index_name(self.name, self.spec.index(gsi_name))


@dataclass(frozen=True)
class SqliteSchema:
    """All tables for one `TableNames`."""

    tables: Mapping[ResourceKeys, SqliteTable]

    def __getitem__(self, key: ResourceKeys) -> SqliteTable:
        return self.tables[key]


def build_schema(names: TableNames) -> SqliteSchema:
    return SqliteSchema(
        {spec.key: SqliteTable(spec, names.get_table_name(spec.key)) for spec in TABLES}
    )


# -- the DDL, through SQLAlchemy ----------------------------------------------------------------


def build_metadata(schema: SqliteSchema) -> MetaData:
    """The SQLAlchemy declaration of every table: key columns, `item`, primary key, indexes."""
    from sqlalchemy import Column, Index, Integer, MetaData, PrimaryKeyConstraint, Table, Text

    def column(attribute: KeyAttribute, table_key: bool) -> Column[object]:
        kind = Integer() if attribute.type == "N" else Text()
        # Index-only keys are sparse (seed 000): a row without one holds NULL, which no `= ?`
        # lookup matches, just as DynamoDB leaves such an item out of the GSI.
        return Column(attribute.name, kind, nullable=not table_key)

    metadata = MetaData()
    for table in schema.tables.values():
        if table.spec.key in NOT_CREATED:
            continue
        table_keys = set(table.primary_key)
        declared = Table(
            table.name,
            metadata,
            *(column(a, a.name in table_keys) for a in table.spec.all_key_attributes),
            Column(ITEM_COLUMN, Text(), nullable=False),
            PrimaryKeyConstraint(*table.primary_key),
        )
        for index in table.spec.indexes:
            columns = index_columns(table.spec, index)
            sparse = sparse_key(table.spec, index)
            Index(
                index_name(table.name, index),
                *(declared.c[name] for name in columns),
                sqlite_where=None if sparse is None else declared.c[sparse].isnot(None),
            )
    return metadata


def create_tables(database: SqliteDatabase, schema: SqliteSchema) -> None:
    """CREATE each missing table and index (idempotent), in one BEGIN IMMEDIATE transaction.

    Every store's set-up asks for the whole schema, so all but the first find every table there:
    one lookup of sqlite_master, not SQLAlchemy's declaration and a check per table (0.04 s).
    `create_all` makes an index only with its table, so a file with every table needs nothing.
    """
    created = [table.name for table in schema.tables.values() if table.spec.key not in NOT_CREATED]
    if missing_tables(database, created):
        _create_with_sqlalchemy(database, schema)
    for key in FILLED_FROM_ITEMS:
        if key in schema.tables:
            _add_index_columns(database, schema[key])


def _create_with_sqlalchemy(database: SqliteDatabase, schema: SqliteSchema) -> None:
    """SQLAlchemy runs on the database's own connection (no second pool, and in memory the only
    connection that sees the database); the engine is dropped, not disposed, which would close it.
    """
    from sqlalchemy import create_engine, event
    from sqlalchemy.pool import StaticPool

    metadata = build_metadata(schema)
    with database.exclusive_connection() as connection:
        engine = create_engine("sqlite://", creator=lambda: connection, poolclass=StaticPool)

        @event.listens_for(engine, "begin")
        def _begin(sqlalchemy_connection: object) -> None:
            # The connection never BEGINs on its own (isolation_level=None); commit() still ends
            # the transaction begun here. IMMEDIATE: two processes creating at once take turns.
            connection.execute("BEGIN IMMEDIATE")

        metadata.create_all(engine)


def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _add_index_columns(database: SqliteDatabase, table: SqliteTable) -> None:
    """A table made before some of its index keys were declared: `create_all` makes a missing
    table only, never a column or an index of an existing one, so add them here, each column
    filled from the attribute of the same name in the rows' items (NULL where absent: sparse)."""
    name = _quote(table.name)
    with database.write() as connection:  # checked inside: two processes may upgrade at once
        present = {row[1] for row in connection.execute(f"PRAGMA table_info({name})")}
        if not present:
            return  # no such table in this file
        missing = [a for a in table.spec.all_key_attributes if a.name not in present]
        if not missing:
            return
        for attribute in missing:
            kind = "INTEGER" if attribute.type == "N" else "TEXT"
            column = _quote(attribute.name)
            connection.execute(f"ALTER TABLE {name} ADD COLUMN {column} {kind}")
            path = "'$.\"" + attribute.name.replace("'", "''") + "\"'"
            connection.execute(f"UPDATE {name} SET {column} = json_extract({ITEM_COLUMN}, {path})")
        for index in table.spec.indexes:
            columns = ", ".join(_quote(c) for c in index_columns(table.spec, index))
            sparse = sparse_key(table.spec, index)
            where = "" if sparse is None else f" WHERE {_quote(sparse)} IS NOT NULL"
            connection.execute(
                f"CREATE INDEX IF NOT EXISTS {_quote(index_name(table.name, index))} "
                f"ON {name} ({columns}){where}"
            )


def create_tables_unless_present(
    database: SqliteDatabase, schema: SqliteSchema, table_name: str
) -> None:
    """A database made before `table_name` existed gets it (with every other table missing) on
    its first use; one lookup when it is there."""
    with database.read() as connection:
        found = connection.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table_name,)
        ).fetchone()
    if found is None:
        create_tables(database, schema)


def missing_tables(database: SqliteDatabase, table_names: Iterable[str]) -> set[str]:
    """Those of `table_names` the database has not: one lookup of sqlite_master."""
    with database.read() as connection:
        present = {
            name
            for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
    return set(table_names) - present
