"""The SQLite mirror of `adapters.tables.TABLES`: the same keys, one index per GSI, JSON items."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy import (
    Column,
    Engine,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
)

from adapters.tables import TABLES, IndexSpec, KeyAttribute, ResourceKeys, TableNames, TableSpec

ITEM_COLUMN = "item"


def index_name(table_name: str, index: IndexSpec) -> str:
    """SQLite index names share one namespace per database, so two prefixes (two `TableNames` in
    one file) would clash on the bare GSI name; the table name in front keeps them apart."""
    return f"{table_name}.{index.name}"


def index_columns(spec: TableSpec, index: IndexSpec) -> tuple[str, ...]:
    """GSI partition, GSI sort, then the table partition: the tie-breaker of newest-first paging."""
    names = [attribute.name for attribute in index.attributes]
    if spec.partition.name not in names:
        names.append(spec.partition.name)
    return tuple(names)


@dataclass(frozen=True)
class SqliteTable:
    """One table spec resolved to its SQLite table."""

    spec: TableSpec
    table: Table

    @property
    def name(self) -> str:
        return self.table.name

    @property
    def key_columns(self) -> tuple[str, ...]:
        """Every table and index key attribute: the columns beside `item`."""
        return tuple(attribute.name for attribute in self.spec.all_key_attributes)

    def index_name(self, gsi_name: str) -> str:
        return index_name(self.name, self.spec.index(gsi_name))


@dataclass(frozen=True)
class SqliteSchema:
    """All tables for one `TableNames`, declared on one MetaData."""

    metadata: MetaData
    tables: Mapping[ResourceKeys, SqliteTable]

    def __getitem__(self, key: ResourceKeys) -> SqliteTable:
        return self.tables[key]

    def create_all(self, engine: Engine) -> None:
        self.metadata.create_all(engine)  # CREATE ... IF NOT EXISTS semantics: idempotent


def _column(attribute: KeyAttribute, table_key: bool) -> Column[object]:
    kind = Integer() if attribute.type == "N" else Text()
    # Index-only keys are sparse (seed 000): a row without one holds NULL, which no `= ?` lookup
    # matches, just as DynamoDB leaves such an item out of the GSI.
    return Column(attribute.name, kind, nullable=not table_key)


def _table(metadata: MetaData, spec: TableSpec, name: str) -> Table:
    table_keys = {attribute.name for attribute in spec.key_attributes}
    columns = [_column(a, a.name in table_keys) for a in spec.all_key_attributes]
    table = Table(
        name,
        metadata,
        *columns,
        Column(ITEM_COLUMN, Text(), nullable=False),
        PrimaryKeyConstraint(*(a.name for a in spec.key_attributes)),
    )
    for index in spec.indexes:
        Index(index_name(name, index), *(table.c[c] for c in index_columns(spec, index)))
    return table


def build_schema(names: TableNames) -> SqliteSchema:
    metadata = MetaData()
    tables = {
        spec.key: SqliteTable(spec, _table(metadata, spec, names.get_table_name(spec.key)))
        for spec in TABLES
    }
    return SqliteSchema(metadata, tables)
