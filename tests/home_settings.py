"""The Settings a test gives the application on a home folder, the fields every test sets alike
written once: a store file `wfx.db` in the home, no DynamoDB endpoint, one region."""

from pathlib import Path
from typing import Any

from entrypoints.settings import Settings


def home_settings(
    home: Path,
    *,
    store: str = "sqlite",
    user: str = "alice",
    sqlite_path: Path | None = None,
    dynamodb_endpoint: str | None = None,
    **overrides: Any,
) -> Settings:
    return Settings(
        store=store,
        home=home,
        sqlite_path=home / "wfx.db" if sqlite_path is None else sqlite_path,
        dynamodb_endpoint=dynamodb_endpoint,
        region="us-east-1",
        user=user,
        **overrides,
    )
