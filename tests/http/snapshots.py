"""Everything a request could have written, read around the stores' own API: every row of every
table (moto's model of it on DynamoDB, a select on SQLite) and every file under the home."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any


def _sqlite_rows(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    connection = sqlite3.connect(path)
    try:
        names = [
            name
            for (name,) in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        return {
            name: sorted(connection.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr)
            for name in names
        }
    finally:
        connection.close()


def _dynamodb_rows(client: Any) -> dict[str, list[str]]:
    """Every item of every table, as a consistent scan of each returns it, read from the model
    of the in-process moto the client's requests reach: a scan of the 21 tables through the
    API was three quarters of the time of a test taking a snapshot per permission."""
    from moto.core.models import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends

    tables = dynamodb_backends[DEFAULT_ACCOUNT_ID][client.meta.region_name].tables
    listed = client.list_tables()["TableNames"]  # one request: this client's tables are these
    assert sorted(listed) == sorted(tables), (listed, sorted(tables))
    return {
        name: sorted(
            repr(sorted(item.to_json()["Attributes"].items())) for item in table.all_items()
        )
        for name, table in tables.items()
    }


def _files(home: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(home)): path.read_bytes()
        for path in sorted(home.rglob("*"))
        if path.is_file() and not path.name.startswith("wfx.db") and path.name != "audit.log"
    }


def snapshot(container: Any) -> dict[str, Any]:
    """The stores and the files of the container's home; the audit log is left out, since a
    denial is meant to write it."""
    home = Path(container.config.home())
    if container.config.store() == "sqlite":
        tables: Any = _sqlite_rows(Path(container.config.sqlite_path()))
    else:
        tables = _dynamodb_rows(container.dynamodb_client())
    return {"tables": tables, "files": _files(home)}
