"""Who asks, what about, and what for: the terms of the two-tier authorization (seed 000).

Tier 1 checks a route: the object `{object__type: api, route__path: ...}` with the HTTP method.
Tier 2 checks the objects a request touches: an execution is readable when its workflow is, every
asset it read and the asset it wrote to are, and every database it took metadata from is
(`authorize_execution_access`).
"""

from enum import StrEnum

from pydantic import BaseModel, ConfigDict

SYSTEM_USER = "SYSTEM_USER"
ADMIN_ROLE = "admin"
# Publishing a step that runs code on the service's machine (a python or command step) is PUT on
# this object: whoever holds it runs code with the rights the steps run with, so no shipped
# template but admin's grants it (VAMS keeps pipelines, the code, as admin objects).
HOST_CODE_OBJECT_TYPE = "hostCode"


class Action(StrEnum):
    GET = "GET"
    PUT = "PUT"
    POST = "POST"
    DELETE = "DELETE"


class Subject(BaseModel):
    """The caller: a user id (`user::<id>` to the authorizer) and the roles it holds, when its
    identity provider carries them; the authorizer adds the roles assigned in the store."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    user_id: str
    roles: tuple[str, ...] = ()


class AssetKey(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    database_id: str
    asset_id: str


class AccessFacts(BaseModel):
    """What tier 2 needs to know of one execution, read from its input and configuration rows
    (the main row carries no asset linkage, seed 000)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str
    workflow_database_id: str
    workflow_id: str
    read_assets: tuple[AssetKey, ...] = ()
    written_asset: AssetKey | None = None
    metadata_databases: tuple[str, ...] = ()


class AccessDecision(BaseModel):
    """The authorizer's answer and the rule that decided it (for the audit log; no secret)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    allowed: bool
    rule: str = ""


SUBJECT_PREFIX = "user::"
ROLE_PREFIX = "role::"


def subject_key(user_id: str) -> str:
    """The caller as the authorizer names it."""
    return f"{SUBJECT_PREFIX}{user_id}"


def role_key(role_name: str) -> str:
    """A role as the authorizer names it (a role name holds no ':', so the two never clash)."""
    return f"{ROLE_PREFIX}{role_name}"


def is_administrator(subject: Subject) -> bool:
    """SYSTEM_USER and the `admin` role are allowed everything, whatever is stored: a
    trigger-launched run is attributed to SYSTEM_USER (seed 000), and an empty store must not
    lock its administrator out."""
    return subject.user_id == SYSTEM_USER or ADMIN_ROLE in subject.roles
