"""Configuration from the environment: which store, where the data lives, which endpoint."""

from __future__ import annotations

import getpass
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from domain.errors import InvalidInputError

STORES = ("sqlite", "dynamodb")
DEFAULT_REGION = "us-east-1"


def default_home(environ: Mapping[str, str]) -> Path:
    """The user's data directory: XDG on Linux, Application Support on macOS, AppData on Windows."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "wfx"
    if sys.platform == "win32":
        return Path(environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local")) / "wfx"
    return Path(environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "wfx"


def _user(environ: Mapping[str, str]) -> str:
    if environ.get("WFX_USER"):
        return environ["WFX_USER"]
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "local-user"


@dataclass(frozen=True)
class Settings:
    store: str
    home: Path
    sqlite_path: Path
    dynamodb_endpoint: str | None
    region: str
    user: str

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Settings:
        environ = os.environ if environ is None else environ
        store = environ.get("WFX_STORE", "sqlite") or "sqlite"
        if store not in STORES:
            raise InvalidInputError(f"WFX_STORE: must be one of {', '.join(STORES)}, got {store!r}")
        home = (
            Path(environ["WFX_HOME"]).expanduser()
            if environ.get("WFX_HOME")
            else default_home(environ)
        )
        sqlite_path = (
            Path(environ["WFX_DB"]).expanduser() if environ.get("WFX_DB") else home / "wfx.db"
        )
        region = environ.get("AWS_REGION") or environ.get("AWS_DEFAULT_REGION") or DEFAULT_REGION
        return cls(
            store=store,
            home=home,
            sqlite_path=sqlite_path,
            dynamodb_endpoint=environ.get("WFX_DYNAMODB_ENDPOINT") or None,
            region=region,
            user=_user(environ),
        )

    def describe_store(self) -> str:
        if self.store == "sqlite":
            return f"sqlite ({self.sqlite_path})"
        return f"dynamodb ({self.dynamodb_endpoint or 'AWS, region ' + self.region})"
