"""`wfx auth token USER`: a bearer token for the local HTTP service, signed with the key in
WFX_HOME. The `wfx auth` group is registered here until its own module (auth_group.py) takes
it over: then only `auth_token` moves there."""

from __future__ import annotations

import sys
from datetime import timedelta
from typing import Annotated

import typer


def parse_ttl(text: str) -> timedelta:
    """`3600` (seconds), `90s`, `30m`, `1h`, `2d`, `1d12h`; InvalidInputError (exit 2) else."""
    from entrypoints.cli.maintenance import parse_duration

    return parse_duration(text, "--ttl", bare_seconds=True)


def auth_token(
    user: Annotated[str, typer.Argument(metavar="USER", help="The user the token names (sub).")],
    ttl: Annotated[
        str, typer.Option("--ttl", help="How long it is valid: 3600 (seconds), 30m, 1h, 2d.")
    ] = "1h",
    role: Annotated[
        list[str] | None,
        typer.Option("--role", metavar="ROLE", help="A role the token carries; repeatable."),
    ] = None,
) -> None:
    """Print a bearer token for USER, signed with the local key (made on first use, 0600)."""
    from entrypoints.cli.errors import named_as_given
    from entrypoints.identity_wiring import local_token_issuer
    from entrypoints.settings import Settings

    lifetime = parse_ttl(ttl)
    settings = Settings.from_environment()
    if settings.jwt.jwks is not None:
        print(
            "warning: WFX_JWT_JWKS is set: the service verifies the identity provider's "
            "tokens, not this one",
            file=sys.stderr,
        )
    with named_as_given({"user": "USER", "role": "--role"}):
        token = local_token_issuer(settings.home).issue(user, lifetime, tuple(role or ()))
    sys.stdout.write(token + "\n")
