"""Configuration from the environment: which store, where the data lives, which endpoint."""

from __future__ import annotations

import getpass
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from adapters.tables import (
    TABLE_OVERRIDE_PREFIX,
    TABLE_PREFIX_VARIABLE,
    VAMS_TABLES,
    ResourceKeys,
    TableNames,
)
from domain.bounds import is_whole_number
from domain.errors import InvalidInputError
from domain.names import DEFAULT_STATE_MACHINE_PREFIX, check_state_machine_prefix

if TYPE_CHECKING:
    from domain.sub_process_reach import SubProcessReach

STORES = ("sqlite", "dynamodb")
RUNNERS = ("local", "stepfunctions")
EVENT_BUSES = ("local", "eventbridge")
OBJECT_STORES = ("filesystem", "s3")
# S3's bucket naming rules (general purpose buckets): 3-63 lowercase letters, digits, dots and
# hyphens, starting and ending with a letter or digit, no two dots in a row.
_BUCKET_NAME = re.compile(r"^(?!.*\.\.)[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")
DEFAULT_REGION = "us-east-1"
DEFAULT_SFN_SYNC_MIN_INTERVAL_SECONDS = 30.0
DEFAULT_STOP_GRACE_SECONDS = 5.0
DEFAULT_LEASE_SECONDS = 30.0
DEFAULT_MAX_REQUEST_BYTES = 1024 * 1024
MAX_REQUEST_BYTES_SETTING = 100 * 1024 * 1024
MAX_SERVE_WORKERS = 64
# What `wfx workflows deploy` needs, each read only when deploying (name: what it is).
DEPLOYMENT_VARIABLES = {
    "WFX_SFN_ROLE_ARN": "the ARN of the IAM role the state machine runs as",
    "WFX_SFN_LOG_GROUP_ARN": "the CloudWatch Logs log group ARN the state machine logs to",
    "WFX_LAMBDA_TRACKING_ARN": "the ARN of the step tracking Lambda function",
    "WFX_LAMBDA_COMPLETION_ARN": "the ARN of the completion Lambda function",
    "WFX_LAMBDA_ERROR_ARN": "the ARN of the error handler Lambda function",
}


class UnusableSettingError(Exception):
    """A setting names a place or a service wfx cannot use (the CLI exits 3, as for a missing
    service); the message names the variable and what to do."""


def dynamodb_endpoint(environ: Mapping[str, str]) -> str | None:
    """WFX_DYNAMODB_ENDPOINT, checked: an http:// or https:// URL with a host (and, if given, a
    port of 1-65535), no spaces. Anything else would reach boto3 as a traceback or a request to
    a host nobody meant."""
    text = environ.get("WFX_DYNAMODB_ENDPOINT") or None
    if text is None:
        return None
    try:
        parts = urlsplit(text)
        usable = (
            parts.scheme in ("http", "https")
            and bool(parts.hostname)
            and parts.port != 0
            and not any(character.isspace() for character in text)
        )
    except ValueError:  # an unclosed IPv6 bracket, a port that is not a number or too big
        usable = False
    if not usable:
        raise UnusableSettingError(
            f"WFX_DYNAMODB_ENDPOINT: must be an http:// or https:// URL with a host, such as "
            f"http://127.0.0.1:5000, got {text!r}; fix it, or unset it to use AWS"
        )
    return text


def object_store_settings(environ: Mapping[str, str]) -> tuple[str, str | None]:
    """(store, bucket) from WFX_OBJECT_STORE (filesystem | s3, default filesystem) and
    WFX_S3_BUCKET (required with s3, refused without it: it would be silently ignored)."""
    store = environ.get("WFX_OBJECT_STORE") or "filesystem"
    if store not in OBJECT_STORES:
        raise InvalidInputError(
            f"WFX_OBJECT_STORE: must be one of {', '.join(OBJECT_STORES)}, got {store!r}"
        )
    bucket = environ.get("WFX_S3_BUCKET", "").strip() or None
    if store == "filesystem":
        if bucket is not None:
            raise InvalidInputError(
                "WFX_S3_BUCKET: set only with WFX_OBJECT_STORE=s3; set that too to keep files "
                "in the bucket, or unset WFX_S3_BUCKET to keep them under WFX_HOME"
            )
        return store, None
    if bucket is None:
        raise InvalidInputError(
            "WFX_S3_BUCKET: not set; WFX_OBJECT_STORE=s3 needs the name of an S3 bucket with "
            "versioning enabled"
        )
    if not _BUCKET_NAME.match(bucket):
        raise UnusableSettingError(
            f"WFX_S3_BUCKET: {bucket!r} is not an S3 bucket name (3-63 lowercase letters, "
            "digits, dots and hyphens, starting and ending with a letter or digit); fix it"
        )
    return store, bucket


def default_home(environ: Mapping[str, str]) -> Path:
    """The user's data directory: XDG on Linux, Application Support on macOS, AppData on Windows."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "wfx"
    if sys.platform == "win32":
        return Path(environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local")) / "wfx"
    return Path(environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "wfx"


def terminal_columns_set(environ: Mapping[str, str] | None = None) -> bool:
    """Whether COLUMNS names the width output should wrap at (rich reads it itself)."""
    return "COLUMNS" in (os.environ if environ is None else environ)


# What makes rich take a stream that is not a terminal for one, or read its width elsewhere.
_RICH_TERMINAL_VARIABLES = ("FORCE_COLOR", "TTY_COMPATIBLE", "COLUMNS")


def rich_terminal_variables_set(environ: Mapping[str, str] | None = None) -> bool:
    """Whether a variable rich reads decides how it writes off a terminal (rich reads it itself;
    a table written without rich must leave such output to it)."""
    environ = os.environ if environ is None else environ
    return any(name in environ for name in _RICH_TERMINAL_VARIABLES)


def has_display(environ: Mapping[str, str] | None = None) -> bool:
    """Whether a browser could open here: macOS and Windows always, else an X or Wayland
    display."""
    if sys.platform in ("darwin", "win32"):
        return True
    environ = os.environ if environ is None else environ
    return bool(environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"))


def user_source(environ: Mapping[str, str] | None = None) -> str:
    """Where the CLI's user comes from, as a refusal of that user names it."""
    environ = os.environ if environ is None else environ
    return "WFX_USER" if environ.get("WFX_USER") else "your OS login"


def audit_log_kind(environ: Mapping[str, str]) -> str:
    """WFX_AUDIT_LOG (file | logging); in Lambda, where WFX_HOME is no place to keep a file,
    the audit goes through logging to CloudWatch."""
    chosen = environ.get("WFX_AUDIT_LOG", "")
    if chosen in ("file", "logging"):
        return chosen
    return "logging" if environ.get("AWS_LAMBDA_FUNCTION_NAME") else "file"


def _user(environ: Mapping[str, str]) -> str:
    if environ.get("WFX_USER"):
        from domain.triggers import user_id_problem

        problem = user_id_problem(environ["WFX_USER"])
        if problem is not None:
            raise InvalidInputError(f"WFX_USER: {problem}")
        return environ["WFX_USER"]
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "local-user"


def _seconds(
    environ: Mapping[str, str], variable: str, default: float, minimum: float = 0.0
) -> float:
    """A number of seconds from the environment; InvalidInputError naming the variable."""
    text = environ.get(variable, "")
    if not text:
        return default
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not (seconds >= minimum and seconds < float("inf")):  # also refuses nan
        raise InvalidInputError(
            f"{variable}: must be a number of seconds >= {minimum:g}, got {text!r}"
        )
    return seconds


def _max_request_bytes(environ: Mapping[str, str]) -> int:
    text = environ.get("WFX_MAX_REQUEST_BYTES", "").strip()
    if not text:
        return DEFAULT_MAX_REQUEST_BYTES
    if not is_whole_number(text) or not 1024 <= int(text) <= MAX_REQUEST_BYTES_SETTING:
        raise InvalidInputError(
            f"WFX_MAX_REQUEST_BYTES: must be a number of bytes from 1024 to "
            f"{MAX_REQUEST_BYTES_SETTING}, got {text!r}"
        )
    return int(text)


def take_handed_over(variable: str) -> str:
    """A value a parent process hands its children through their environment (the serving
    processes' session key): read once and removed, so nothing the child starts inherits it."""
    return os.environ.pop(variable)


def machine_cores() -> int:
    """The cores this process may run on (a container's or taskset's share, not the host's)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _serve_workers(environ: Mapping[str, str]) -> int:
    text = environ.get("WFX_SERVE_WORKERS", "").strip()
    if not text:
        return machine_cores()
    if not is_whole_number(text) or not 1 <= int(text) <= MAX_SERVE_WORKERS:
        raise InvalidInputError(
            f"WFX_SERVE_WORKERS: must be a whole number of processes from 1 to "
            f"{MAX_SERVE_WORKERS}, got {text!r}"
        )
    return int(text)


def deployment_setting(deployment: Mapping[str, str] | None, variable: str) -> str:
    """One deployment variable's value; InvalidInputError naming it when it is not set."""
    value = (deployment or {}).get(variable)
    if not value:
        raise InvalidInputError(
            f"{variable}: not set; deploying to Step Functions needs "
            f"{DEPLOYMENT_VARIABLES[variable]}"
        )
    return value


@dataclass(frozen=True)
class JwtSettings:
    """Where bearer tokens are verified: an identity provider's JWKS (file or URL), its issuer
    and the audience its tokens must name; no JWKS: the local key of `wfx auth token`."""

    jwks: str | None = None
    issuer: str | None = None
    audience: str | None = None


def jwt_settings(environ: Mapping[str, str]) -> JwtSettings:
    """WFX_JWT_JWKS (a file path, or an http(s):// URL), WFX_JWT_ISSUER (needed with it: a
    JWKS of a shared provider signs other issuers' tokens too), WFX_JWT_AUDIENCE (optional)."""
    jwks = environ.get("WFX_JWT_JWKS", "").strip() or None
    issuer = environ.get("WFX_JWT_ISSUER", "").strip() or None
    audience = environ.get("WFX_JWT_AUDIENCE", "").strip() or None
    if jwks is None:
        for variable, value in (("WFX_JWT_ISSUER", issuer), ("WFX_JWT_AUDIENCE", audience)):
            if value is not None:
                raise InvalidInputError(
                    f"{variable}: set only with WFX_JWT_JWKS (the identity provider's keys); "
                    "local tokens have their own issuer and audience"
                )
        return JwtSettings()
    if jwks.startswith(("http://", "https://")):
        try:
            parts = urlsplit(jwks)
            usable = bool(parts.hostname) and parts.port != 0 and " " not in jwks
        except ValueError:
            usable = False
        if not usable:
            raise InvalidInputError(
                f"WFX_JWT_JWKS: must be a file path or an http:// or https:// URL with a host, "
                f"such as https://cognito-idp.us-east-1.amazonaws.com/POOL/.well-known/jwks.json, "
                f"got {jwks!r}"
            )
    else:
        jwks = str(Path(jwks).expanduser())
    if issuer is None:
        raise InvalidInputError(
            "WFX_JWT_ISSUER: not set; tokens verified with WFX_JWT_JWKS must name their issuer "
            "(the iss claim), such as https://cognito-idp.us-east-1.amazonaws.com/POOL"
        )
    return JwtSettings(jwks=jwks, issuer=issuer, audience=audience)


def check_runner(runner: str, source: str) -> str:
    if runner not in RUNNERS:
        raise InvalidInputError(f"{source}: must be one of {', '.join(RUNNERS)}, got {runner!r}")
    return runner


VAMS_PREFIX_VARIABLE = "VAMS_RESOURCE_PARAM_PREFIX"


@dataclass(frozen=True)
class TableSettings:
    """How the tables are named: WFX_TABLE_PREFIX and WFX_TABLE_<KEY> (`overrides`); for a VAMS
    deployment, VAMS's per-table variables that are set (`vams_variables`) and the prefix of its
    SSM parameters (VAMS_RESOURCE_PARAM_PREFIX), read for the tables neither names."""

    prefix: str = ""
    overrides: Mapping[ResourceKeys, str] = field(default_factory=dict)
    vams_variables: Mapping[ResourceKeys, str] = field(default_factory=dict)
    vams_parameter_prefix: str | None = None

    def names(self) -> TableNames:
        """The names these settings give without asking SSM: all of them when no VAMS
        deployment is named, and what the infrastructure template declares."""
        return TableNames(
            prefix=self.prefix, overrides=self.overrides, deployment=self.vams_variables
        )


def table_settings(environ: Mapping[str, str]) -> TableSettings:
    overrides = {
        key: environ[f"{TABLE_OVERRIDE_PREFIX}{key.value}"]
        for key in ResourceKeys
        if environ.get(f"{TABLE_OVERRIDE_PREFIX}{key.value}")
    }
    vams_variables: dict[ResourceKeys, str] = {}
    for key, table in VAMS_TABLES.items():
        # VAMS's order: the first of a table's variables that is set wins
        set_ones = [environ[name] for name in table.variables if environ.get(name)]
        if set_ones:
            vams_variables[key] = set_ones[0]
    parameter_prefix = environ.get(VAMS_PREFIX_VARIABLE, "").strip() or None
    # SSM takes a name with a slash only whole ("/vams/prod/dynamoTables/..."), so a prefix
    # without its leading slash would find nothing and say nothing about why.
    if parameter_prefix is not None and (
        not parameter_prefix.startswith("/")
        or not parameter_prefix.strip("/")
        or any(character.isspace() for character in parameter_prefix)
    ):
        raise InvalidInputError(
            f"{VAMS_PREFIX_VARIABLE}: must be the VAMS deployment's SSM parameter path, "
            f"starting with / and without spaces (such as /vams/prod), got {parameter_prefix!r}"
        )
    return TableSettings(
        prefix=environ.get(TABLE_PREFIX_VARIABLE, ""),
        overrides=overrides,
        vams_variables=vams_variables,
        vams_parameter_prefix=parameter_prefix.rstrip("/") if parameter_prefix else None,
    )


def _store(environ: Mapping[str, str], tables: TableSettings) -> str:
    """WFX_STORE; a VAMS deployment's tables are in DynamoDB, so naming one picks it."""
    chosen = environ.get("WFX_STORE") or None
    store = chosen or ("dynamodb" if tables.vams_parameter_prefix else "sqlite")
    if store not in STORES:
        raise InvalidInputError(f"WFX_STORE: must be one of {', '.join(STORES)}, got {store!r}")
    if store == "sqlite" and tables.vams_parameter_prefix:
        raise InvalidInputError(
            f"WFX_STORE: a VAMS deployment ({VAMS_PREFIX_VARIABLE}) keeps its tables in "
            "DynamoDB; unset WFX_STORE or set it to dynamodb, or unset "
            f"{VAMS_PREFIX_VARIABLE} to use SQLite"
        )
    return store


@dataclass(frozen=True)
class Settings:
    store: str
    home: Path
    sqlite_path: Path
    dynamodb_endpoint: str | None
    region: str
    user: str
    # seed 000 SFN_SYNC_MIN_INTERVAL_SECONDS: how long a read trusts an open row unchecked
    sfn_sync_min_interval_seconds: float = DEFAULT_SFN_SYNC_MIN_INTERVAL_SECONDS
    runner: str = "local"  # which orchestrator runs a launch: the local runner or Step Functions
    # how long a local process has to end on SIGTERM before SIGKILL follows
    stop_grace_seconds: float = DEFAULT_STOP_GRACE_SECONDS
    # how long a local run's lease lasts unrenewed before its runner counts as lost
    lease_seconds: float = DEFAULT_LEASE_SECONDS
    # The DEPLOYMENT_VARIABLES that are set, by name.
    deployment: Mapping[str, str] = field(default_factory=dict)
    # WFX_STATE_MACHINE_PREFIX: what `wfx workflows deploy` starts a machine's name with (the
    # stack's StateMachineNamePrefix output, the names its roles may reach)
    state_machine_prefix: str = DEFAULT_STATE_MACHINE_PREFIX
    # WFX_SUB_PROCESSES: the sub-processes the deployment's roles may stop (the stack's
    # SubProcess* parameters), the only ones registered; None (unset): any, as locally
    sub_process_reach: SubProcessReach | None = None
    # Where registration events go (see entrypoints/registration_wiring.py).
    event_source_prefix: str = "wfx"
    event_bus: str = "local"
    event_bus_name: str = "default"
    # WFX_REDACT / WFX_REDACT_FILE: literal secrets every redaction in the process removes.
    registered_secrets: tuple[str, ...] = field(default=(), repr=False)
    # WFX_JWT_*: how bearer tokens are verified (entrypoints/identity_wiring.py)
    jwt: JwtSettings = field(default_factory=JwtSettings)
    # Where asset files, run outputs and offloaded bodies live: under WFX_HOME, or in a bucket.
    object_store: str = "filesystem"
    s3_bucket: str | None = None
    # WFX_RATE_CARD: the rate card file (else rate-card.yaml|json in WFX_HOME, else defaults)
    rate_card: str | None = None
    # WFX_TABLE_*, VAMS_RESOURCE_PARAM_PREFIX and VAMS's per-table variables
    tables: TableSettings = field(default_factory=TableSettings)
    # WFX_STEP_USER (`wfx serve --step-user`): the OS user local steps run as; None: the service's
    step_user: str | None = None
    # WFX_MAX_REQUEST_BYTES: the largest request body `wfx serve` reads (413 past it)
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    # WFX_AUDIT_LOG: where authorization decisions are audited (`audit_log_kind`)
    audit_log: str = "file"
    # WFX_SERVE_WORKERS (`wfx serve --workers`): the service's processes; default: the cores
    serve_workers: int = 1

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Settings:
        environ = os.environ if environ is None else environ
        tables = table_settings(environ)
        store = _store(environ, tables)
        home = (
            Path(environ["WFX_HOME"]).expanduser()
            if environ.get("WFX_HOME")
            else default_home(environ)
        )
        sqlite_path = (
            Path(environ["WFX_DB"]).expanduser() if environ.get("WFX_DB") else home / "wfx.db"
        )
        runner = check_runner(environ.get("WFX_RUNNER") or "local", "WFX_RUNNER")
        prefix, bus, bus_name = event_bus_settings(environ, runner)
        region = environ.get("AWS_REGION") or environ.get("AWS_DEFAULT_REGION") or DEFAULT_REGION
        object_store, s3_bucket = object_store_settings(environ)
        return cls(
            store=store,
            home=home,
            sqlite_path=sqlite_path,
            dynamodb_endpoint=dynamodb_endpoint(environ),
            region=region,
            user=_user(environ),
            sfn_sync_min_interval_seconds=_seconds(
                environ,
                "WFX_SFN_SYNC_MIN_INTERVAL_SECONDS",
                DEFAULT_SFN_SYNC_MIN_INTERVAL_SECONDS,
            ),
            stop_grace_seconds=_seconds(
                environ, "WFX_STOP_GRACE_SECONDS", DEFAULT_STOP_GRACE_SECONDS
            ),
            # a lease must outlast a few renewals (one every third of it) of a loaded machine
            lease_seconds=_seconds(
                environ, "WFX_RUNNER_LEASE_SECONDS", DEFAULT_LEASE_SECONDS, minimum=1.0
            ),
            runner=runner,
            deployment={name: environ[name] for name in DEPLOYMENT_VARIABLES if environ.get(name)},
            state_machine_prefix=check_state_machine_prefix(
                environ.get("WFX_STATE_MACHINE_PREFIX") or DEFAULT_STATE_MACHINE_PREFIX,
                "WFX_STATE_MACHINE_PREFIX",
            ),
            sub_process_reach=_sub_process_reach(environ),
            event_source_prefix=prefix,
            event_bus=bus,
            event_bus_name=bus_name,
            registered_secrets=registered_secrets(environ),
            jwt=jwt_settings(environ),
            object_store=object_store,
            s3_bucket=s3_bucket,
            rate_card=environ.get("WFX_RATE_CARD") or None,
            tables=tables,
            step_user=environ.get("WFX_STEP_USER") or None,
            max_request_bytes=_max_request_bytes(environ),
            audit_log=audit_log_kind(environ),
            serve_workers=_serve_workers(environ),
        )

    def describe_store(self) -> str:
        if self.store == "sqlite":
            return f"sqlite ({self.sqlite_path})"
        return f"dynamodb ({self.dynamodb_endpoint or 'AWS, region ' + self.region})"


def _sub_process_reach(environ: Mapping[str, str]) -> SubProcessReach | None:
    value = environ.get("WFX_SUB_PROCESSES")
    if not value:
        return None
    from domain.sub_process_reach import parse_sub_process_reach  # only a deployment sets it

    return parse_sub_process_reach(value, "WFX_SUB_PROCESSES")


def registered_secrets(environ: Mapping[str, str]) -> tuple[str, ...]:
    """WFX_REDACT (values separated by newlines or commas) and WFX_REDACT_FILE (one a line).

    A command step gets them only when WFX_STEP_ENV passes them on (its output is redacted by
    the runner anyway). Values too short to register are dropped by the domain, silently."""
    values = re.split(r"[\n,]", environ.get("WFX_REDACT", ""))
    path = environ.get("WFX_REDACT_FILE")
    if path:
        try:
            values += Path(path).expanduser().read_text(encoding="utf-8").splitlines()
        except OSError as error:
            # failing open would print every secret the file was meant to hide
            raise InvalidInputError(
                f"WFX_REDACT_FILE: cannot read {path}: {error.strerror or error}"
            ) from None
        except UnicodeDecodeError as error:
            raise InvalidInputError(
                f"WFX_REDACT_FILE: {path} is not UTF-8: {error.reason}"
            ) from None
    return tuple(value.strip() for value in values if value.strip())


def event_bus_settings(environ: Mapping[str, str], runner: str) -> tuple[str, str, str]:
    """(prefix, bus, bus name) from WFX_EVENT_SOURCE_PREFIX (default wfx), WFX_EVENT_BUS
    (default eventbridge when the runner is Step Functions, else local) and WFX_EVENT_BUS_NAME
    (default `default`)."""
    bus = environ.get("WFX_EVENT_BUS") or ("eventbridge" if runner == "stepfunctions" else "local")
    if bus not in EVENT_BUSES:
        raise InvalidInputError(
            f"WFX_EVENT_BUS: must be one of {', '.join(EVENT_BUSES)}, got {bus!r}"
        )
    prefix = environ.get("WFX_EVENT_SOURCE_PREFIX") or "wfx"
    if prefix != "wfx":  # the default is a good one: a command that sets none needs no rules
        from domain.registration import check_source_prefix

        check_source_prefix(prefix, "WFX_EVENT_SOURCE_PREFIX")
    return prefix, bus, environ.get("WFX_EVENT_BUS_NAME") or "default"
