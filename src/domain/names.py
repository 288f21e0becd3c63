"""Execution-name rules of seed 001: the execution id is also the orchestrator's execution name."""

import re

from domain.errors import InvalidInputError

MAX_NAME_LENGTH = 80

_FORBIDDEN_CHARACTERS = frozenset(' <>{}[]?*"#%\\^|~`$&,;:/')
_LOGGING_SAFE = re.compile(r"[0-9A-Za-z_-]+")


def _is_forbidden_code_point(char: str) -> bool:
    code = ord(char)
    return (
        char in _FORBIDDEN_CHARACTERS
        or char.isspace()
        or code <= 0x1F
        or 0x7F <= code <= 0x9F
        or 0xFFFE <= code <= 0xFFFF
        or 0xD800 <= code <= 0xDFFF
    )


def execution_name_problem(name: str) -> str | None:
    """Why `name` cannot be a Step Functions execution name, or None when it can."""
    if not 1 <= len(name) <= MAX_NAME_LENGTH:
        return f"must be 1 to {MAX_NAME_LENGTH} characters long, got {len(name)}"
    bad = sorted({char for char in name if _is_forbidden_code_point(char)})
    if bad:
        shown = ", ".join(repr(char) for char in bad)
        return f"must not contain {shown}"
    return None


def execution_id_problem(identifier: str) -> str | None:
    """Why `identifier` cannot be the id of a stored run or step, or None when it can: a Step
    Functions execution name that is also one path segment (a run's folders, its object keys)."""
    if identifier in (".", ".."):
        return "must not be . or .. (an id names a folder)"
    return execution_name_problem(identifier)


def is_logging_safe(name: str) -> bool:
    """True when CloudWatch logging works for the name: only 0-9, A-Z, a-z, - and _."""
    return _LOGGING_SAFE.fullmatch(name) is not None


def validate_execution_name(name: str, field: str = "workflowExecutionId") -> str:
    # Every launch checks its new id: a logging-safe name holds none of the forbidden characters,
    # so only its length is left to check (the per-character scan is for the messages).
    if len(name) <= MAX_NAME_LENGTH and is_logging_safe(name):
        return name
    problem = execution_name_problem(name)
    if problem is not None:
        raise InvalidInputError(f"{field}: {problem}")
    if not is_logging_safe(name):
        raise InvalidInputError(
            f"{field}: must contain only 0-9, A-Z, a-z, - and _ so its logs can be read"
        )
    return name
