"""Execution-name rules of seed 001: the execution id is also the orchestrator's execution name."""

import re

from domain.errors import InvalidInputError

MAX_NAME_LENGTH = 80
# What every state machine's name starts with (WFX_STATE_MACHINE_PREFIX): a stack's own, so that
# two stacks in one account name their machines apart and each role names only its stack's. Its
# length leaves a cut name the hash, the version and a few characters of the workflow.
DEFAULT_STATE_MACHINE_PREFIX = "wfx-"
MAX_STATE_MACHINE_PREFIX_LENGTH = 40
_STATE_MACHINE_PREFIX = re.compile(rf"[0-9A-Za-z_-]{{1,{MAX_STATE_MACHINE_PREFIX_LENGTH}}}")
# The prefix a stack's template gives its machines (adapters/aws/stack/arns.py): this head, the
# first 8 hex digits of the stack's id, `-`. What tells a machine of another wfx stack.
STACK_PREFIX_HEAD = "wfx_"
_STACK_MACHINE = re.compile(re.escape(STACK_PREFIX_HEAD) + r"[0-9a-f]{8}-")

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


def check_state_machine_prefix(prefix: str, source: str) -> str:
    """The prefix, or InvalidInputError naming `source`: a name Step Functions would refuse, or
    one leaving no room for the workflow, fails every deploy."""
    if _STATE_MACHINE_PREFIX.fullmatch(prefix) is None:
        raise InvalidInputError(
            f"{source}: must be 1-{MAX_STATE_MACHINE_PREFIX_LENGTH} characters of 0-9A-Za-z _ - "
            f"(a state machine name's alphabet, leaving room for the workflow), got {prefix!r}"
        )
    return prefix


def other_stack_machine(arn: str, own_prefix: str) -> str | None:
    """The machine's name when `arn` is a state machine (or one of its runs) of another wfx
    stack than the one whose machines start with `own_prefix`; None for any other ARN, and for
    every ARN when `own_prefix` is no stack's (wfx outside a stack stops what it is told to)."""
    if _STACK_MACHINE.fullmatch(own_prefix) is None:
        return None
    parts = arn.split(":")
    if len(parts) < 7 or parts[2] != "states":
        return None
    if parts[5] not in ("stateMachine", "execution", "express"):
        return None
    name = parts[6]
    if _STACK_MACHINE.match(name) is None or name.startswith(own_prefix):
        return None
    return name
