"""A full or read-only disk under the service is a 503 saying so, never a 500: as the OS says it
(ENOSPC, EROFS) and as SQLite does (`disk I/O error`, `database or disk is full`)."""

from __future__ import annotations

import errno
import sqlite3
import warnings

import pytest
from fastapi import FastAPI

from entrypoints.http.errors import install_error_handlers

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


def _sqlite_error(name: str) -> sqlite3.OperationalError:
    error = sqlite3.OperationalError("disk I/O error")
    error.sqlite_errorname = name  # type: ignore[attr-defined]
    return error


@pytest.mark.parametrize(
    "error",
    [
        OSError(errno.ENOSPC, "No space left on device", "/home/wfx/runs/x"),
        OSError(errno.EROFS, "Read-only file system", "/home/wfx/wfx.db"),
        _sqlite_error("SQLITE_IOERR"),
        _sqlite_error("SQLITE_FULL"),
    ],
)
def test_a_full_disk_is_a_503_saying_so(error: Exception) -> None:
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/write")
    def write() -> None:
        raise error

    answer = TestClient(app, raise_server_exceptions=False).get("/write")
    assert answer.status_code == 503
    assert "full or read-only" in answer.json()["message"]
