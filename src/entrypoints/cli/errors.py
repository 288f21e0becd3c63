"""Errors as one line on stderr and an exit code: 2 for bad input, 3 for a missing service."""

from __future__ import annotations

import errno
import os
import re
import sys
import traceback
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import NoReturn

from pydantic import ValidationError

from application.ports.executions import EventNumberTakenError
from application.validation_messages import describe_validation_error
from domain.errors import DomainError, IdempotencyConflictError, InvalidInputError
from domain.redaction import redact

EXIT_FAILED_RUN = 1
EXIT_BAD_INPUT = 2
EXIT_SERVICE_UNAVAILABLE = 3


def _usage_problem(error: BaseException) -> tuple[str, int] | None:
    """click's own errors (a missing argument, `--limit abc`) as one line instead of a panel.

    Matched by class name because typer vendors click in some versions and not in others."""
    if not any(kind.__name__ == "ClickException" for kind in type(error).__mro__):
        return None
    message = " ".join(str(error.format_message()).split())  # type: ignore[attr-defined]
    context = getattr(error, "ctx", None)
    if context is not None:
        message += f" (see `{context.command_path} --help`)"
    return message, int(getattr(error, "exit_code", EXIT_BAD_INPUT))


_DYNAMODB_OPERATIONS = frozenset(
    {
        "BatchGetItem",
        "BatchWriteItem",
        "CreateTable",
        "DeleteItem",
        "DescribeTable",
        "GetItem",
        "PutItem",
        "Query",
        "Scan",
        "TransactGetItems",
        "TransactWriteItems",
        "UpdateItem",
    }
)


def _configured_dynamodb_endpoint() -> str:
    """WFX_DYNAMODB_ENDPOINT as Settings reads it, or nothing when the settings cannot be read
    (that error is the one the command failed with, or a reading of them would have been)."""
    from entrypoints.settings import Settings, UnusableSettingError

    try:
        return Settings.from_environment().dynamodb_endpoint or ""
    except (DomainError, UnusableSettingError):
        return ""


def _is_dynamodb_endpoint(endpoint: str) -> bool:
    configured = _configured_dynamodb_endpoint()
    return bool(configured and endpoint.rstrip("/") == configured.rstrip("/")) or (
        "dynamodb." in endpoint
    )


def _service_problem(error: BaseException) -> str | None:
    """A message saying how to start the missing service, when that is what went wrong."""
    from adapters.aws.failures import (
        BucketUnusableError,
        denied_call,
        endpoint_of,
        is_unreachable,
        transport_problem,
    )

    if isinstance(error, BucketUnusableError):
        return str(error)
    name = type(error).__name__
    if is_unreachable(error):
        endpoint = endpoint_of(error)
        if _is_dynamodb_endpoint(endpoint) or not endpoint:
            return (
                f"cannot reach DynamoDB ({error}). Start it (for example `moto_server -p 5000` "
                "or DynamoDB Local) and point WFX_DYNAMODB_ENDPOINT at it, "
                "or unset WFX_STORE to use SQLite."
            )
    problem = transport_problem(error)
    if problem is not None:
        return f"{problem}."
    denied = denied_call(error)
    if denied is not None:
        # the caller's own credentials: AWS's message (the action, the resource) is theirs
        reason = getattr(error, "response", {}).get("Error", {}).get("Message", "")
        return (
            f"AWS denied {denied}: {reason}. Grant your credentials that right (docs/aws.md "
            "lists what each command needs)"
        )
    # boto3 raises modeled subclasses (`ResourceNotFoundException`), never a bare ClientError.
    if any(kind.__name__ == "ClientError" for kind in type(error).__mro__):
        code = getattr(error, "response", {}).get("Error", {}).get("Code", "")
        if code == "ResourceNotFoundException":
            if getattr(error, "operation_name", "") in _DYNAMODB_OPERATIONS:
                return _missing_beside_vams(error) or (
                    f"{error}. Create the tables first: `wfx tables create`."
                )
            return f"{error}."
    if name == "OperationalError" and "no such table" in str(error):
        return "the SQLite file has no wfx tables. Create them first: `wfx tables create`."
    if name == "OperationalError" and "no such column" in str(error):
        return (
            "the SQLite file was made by an earlier wfx. Bring its tables up to date (nothing "
            "stored is lost): `wfx tables create`."
        )
    return None


def _missing_beside_vams(error: BaseException) -> str | None:
    """On a VAMS deployment: which of wfx's own tables (VAMS has none of them) the failed
    request needed, and how to have it."""
    from adapters.dynamodb.missing_tables import TABLE_NAMES
    from adapters.tables import TABLES, VAMS_TABLES
    from entrypoints.settings import Settings

    try:
        tables = Settings.from_environment().tables
    except Exception:
        return None
    if tables.vams_parameter_prefix is None:
        return None
    requested = getattr(error, "response", {}).get("Error", {}).get(TABLE_NAMES, [])
    names = tables.names()  # wfx's own tables are named without SSM
    own = {
        names.get_table_name(spec.key): spec.key for spec in TABLES if spec.key not in VAMS_TABLES
    }
    missing = [(name, own[name]) for name in requested if name in own]
    if not missing:
        return None
    where = f"the VAMS deployment {tables.vams_parameter_prefix} has none of wfx's own tables"
    if len(missing) == 1:
        name, key = missing[0]
        return (
            f"table {name} (wfx's {key.value}) does not exist: {where}; create it with "
            f"`wfx tables create`, or name an existing table with WFX_TABLE_{key.value}"
        )
    listed = ", ".join(f"{name} (WFX_TABLE_{key.value})" for name, key in missing)
    return (
        f"one of the tables {listed} does not exist: {where}; create them with "
        "`wfx tables create`, or name existing tables with WFX_TABLE_<KEY>"
    )


def is_setup_problem(error: BaseException) -> bool:
    """The store or a service it needs is not there (unreachable, a table missing): what no
    retry of the same command mends, and what `exit_for` says how to set up."""
    return _service_problem(error) is not None


def is_full_disk(error: BaseException) -> bool:
    """No space, no quota left, or a read-only file system: what a write under WFX_HOME met."""
    return isinstance(error, OSError) and error.errno in (
        errno.ENOSPC,
        errno.EDQUOT,
        errno.EROFS,
    )


def _setting_problem(error: BaseException) -> str | None:
    """A setting that names something unusable: checked up front (UnusableSettingError), or
    found only by the first read or write (a damaged SQLite file, one another process kept
    locked, a home SQLite or the runner cannot write in)."""
    from adapters.tables import TableNameError
    from entrypoints.settings import Settings, UnusableSettingError

    if isinstance(error, UnusableSettingError | TableNameError):
        return str(error)
    sqlite_error = str(getattr(error, "sqlite_errorname", ""))
    is_os_error = isinstance(error, OSError) and bool(error.filename)
    if not sqlite_error and not is_os_error and not is_full_disk(error):
        return None
    try:
        settings = Settings.from_environment()
    except Exception:
        return None
    database = settings.sqlite_path
    if sqlite_error.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return (
            f"WFX_DB ({database}): another process held a write on it for longer than wfx "
            f"waits ({error}); try again once it is done"
        )
    if sqlite_error.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
        return (
            f"WFX_DB ({database}): is corrupted ({error}); point WFX_DB at a wfx database, or "
            "move the file away to start a new one"
        )
    if sqlite_error.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM")):
        if database == settings.home / "wfx.db":  # WFX_DB unset: the home is what to change
            return (
                f"WFX_HOME ({settings.home}): its SQLite file cannot be opened for writing "
                f"({error}); set WFX_HOME to a folder you can write to"
            )
        return (
            f"WFX_DB ({database}): cannot be opened for writing ({error}); set WFX_DB to a "
            "file in a folder you can write to"
        )
    if sqlite_error.startswith(("SQLITE_FULL", "SQLITE_IOERR")) or is_full_disk(error):
        written = getattr(error, "filename", None) or database
        return (
            f"WFX_HOME ({settings.home}): cannot write {written} ({error}): the disk is full "
            "or read-only; free space there, or set WFX_HOME to a folder on another disk"
        )
    if is_os_error:
        assert isinstance(error, OSError)
        written = Path(os.path.abspath(error.filename))
        if not written.is_relative_to(os.path.abspath(settings.home)):
            return None
        if error.errno == errno.ENAMETOOLONG:
            # the folder is writable: what it cannot take is a path this long below it
            return (
                f"WFX_HOME ({settings.home}): cannot write a path of {len(bytes(written))} "
                f"bytes below it ({error.strerror}): the path is longer than the file system "
                "takes; set WFX_HOME to a folder with a shorter path"
            )
        return (
            f"WFX_HOME ({settings.home}): cannot write {written} ({error.strerror}); set "
            "WFX_HOME to a folder you can write to"
        )
    return None


def print_redacted_traceback(
    kind: type[BaseException], error: BaseException, trace: TracebackType | None
) -> None:
    """sys.excepthook of the CLI: an error nothing expected still prints no secret it quotes."""
    sys.stderr.write(redact("".join(traceback.format_exception(kind, error, trace))))


# `group: rule`, `inputs[0]: rule` (one --input, its value quoted), `clientToken 'x' was ...`
_FIELD_FIRST = re.compile(r"([A-Za-z_]+)(?:\[\d+\])?(?=[: ])")


@contextmanager
def named_as_given(names: Mapping[str, str]) -> Iterator[None]:
    """A refusal naming a field of a use case's command or query (`group`, `approval_id`,
    `executionGroupId`) re-said naming the option or argument the user gave (`--group`)."""
    try:
        yield
    except ValidationError as error:
        raise InvalidInputError(describe_validation_error(error, names)) from None
    except (InvalidInputError, IdempotencyConflictError) as error:
        said = _FIELD_FIRST.match(str(error))
        if said is None or said[1] not in names:
            raise
        raise type(error)(f"{names[said[1]]}{str(error)[said.end() :]}") from None


def exit_for(error: BaseException) -> NoReturn:
    if isinstance(error, DomainError):
        _fail(str(error), EXIT_BAD_INPUT)
    usage = _usage_problem(error)
    if usage is not None:
        if type(error).__name__ == "NoArgsIsHelpError":
            raise SystemExit(usage[1])  # typer has already printed the help
        _fail(*usage)
    if isinstance(error, ValidationError):
        _fail(describe_validation_error(error), EXIT_BAD_INPUT)
    if isinstance(error, EventNumberTakenError):  # the store's state, said; not a traceback
        _fail(str(error), EXIT_SERVICE_UNAVAILABLE)
    problem = _setting_problem(error) or _service_problem(error)
    if problem is None and error.__cause__ is not None:  # a port's error wrapping the service's
        problem = _service_problem(error.__cause__)
    if problem is not None:
        _fail(problem, EXIT_SERVICE_UNAVAILABLE)
    from adapters.aws.failures import throttling_code

    throttled = throttling_code(error)
    if throttled is not None:
        _fail(
            f"AWS is throttling the store's requests ({throttled}, after retries): try again "
            "shortly, or give the tables more capacity",
            EXIT_SERVICE_UNAVAILABLE,
        )
    raise error


def _fail(message: str, code: int) -> NoReturn:
    # One line, always: scripts read stderr line by line and a message may quote a multi-line
    # value (a YAML excerpt, a step's stderr). Redacted as a whole first, while a key block in
    # it still has its lines.
    message = redact(message)
    one_line = " / ".join(line.strip() for line in message.splitlines() if line.strip())
    print(f"error: {one_line}", file=sys.stderr)
    raise SystemExit(code)
