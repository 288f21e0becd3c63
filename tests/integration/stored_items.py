"""Every item of one table, read past the adapters: a scan on DynamoDB, the `item` column on
SQLite. For the checks that a use case wrote (or left) nothing in a table."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from adapters.dynamodb.codec import from_wire
from adapters.tables import ResourceKeys, TableNames


def stored_items(container: Any, key: ResourceKeys) -> list[dict[str, Any]]:
    name = TableNames().get_table_name(key)
    if container.config.store() == "dynamodb":
        pages = container.dynamodb_client().get_paginator("scan").paginate(TableName=name)
        return [from_wire(item) for page in pages for item in page["Items"]]
    with sqlite3.connect(Path(container.config.sqlite_path())) as connection:
        return [json.loads(text) for (text,) in connection.execute(f'SELECT item FROM "{name}"')]
