"""A store whose wfx tables are not there, or were made by an earlier wfx: told apart from any
other failure by class name and message, so that importing this loads neither botocore nor
SQLAlchemy. Shared by the HTTP service's answer and the embedding API's error."""

from __future__ import annotations


def tables_missing(error: BaseException) -> bool:
    """DynamoDB's ResourceNotFoundException, SQLite's "no such table" or "no such column"."""
    code = getattr(error, "response", {}).get("Error", {}).get("Code", "")
    if code == "ResourceNotFoundException":
        return True
    text = str(error)
    return type(error).__name__ == "OperationalError" and (
        "no such table" in text or "no such column" in text
    )
