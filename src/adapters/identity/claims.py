"""A token's claims to the Subject they name: ours, an identity provider's, or those API
Gateway's HTTP API (payload 2.0) JWT authorizer hands a Lambda in
`requestContext.authorizer.jwt.claims`."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from domain.authorization import Subject
from domain.errors import NotAuthenticatedError

# The user: `sub` (ours, and every OIDC provider's), else the provider's user name.
USER_CLAIMS = ("sub", "username", "cognito:username")
# The roles a token carries: ours, or the Cognito groups the user is in.
ROLE_CLAIMS = ("roles", "cognito:groups")
_ROLE_SEPARATORS = re.compile(r"[\s,]+")


def claims_subject(claims: Mapping[str, Any]) -> Subject:
    """The Subject the claims name; NotAuthenticatedError when they name no user.

    A role claim may be a list, or a string: one role, several separated by commas or spaces,
    or API Gateway's rendering of a list (`[admin reader]`: the authorizer passes every claim
    on as a string)."""
    name = next((name for name in USER_CLAIMS if claims.get(name)), None)
    if name is None or not str(claims[name]).strip():
        raise NotAuthenticatedError(
            f"the token names no user: it has none of the claims {', '.join(USER_CLAIMS)}"
        )
    if isinstance(claims[name], bool) or not isinstance(claims[name], str | int):
        # str() of an object would name a user no provider issued: deny, never guess
        raise NotAuthenticatedError(f"the token names no user: its claim {name} is no string")
    user_id = str(claims[name]).strip()
    roles: list[str] = []
    for name in ROLE_CLAIMS:
        for role in _roles(claims.get(name)):
            if role not in roles:
                roles.append(role)
    return Subject(user_id=user_id, roles=tuple(roles))


def _roles(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("[") and text.endswith("]"):
            listed = _json_list(text)
            if listed is not None:
                return _roles(listed)
            text = text[1:-1]
        return [role for role in _ROLE_SEPARATORS.split(text) if role]
    if isinstance(value, list | tuple):
        return [str(role).strip() for role in value if str(role).strip()]
    return []


def _json_list(text: str) -> list[Any] | None:
    """A list claim passed on JSON-encoded (`["admin","reader"]`), as a REST API's authorizer
    or a mapping template does; None for API Gateway's own `[admin reader]`."""
    try:
        listed = json.loads(text)
    except ValueError:
        return None
    except RecursionError:  # a list nested past what Python reads: no role of it is granted
        return []
    return listed if isinstance(listed, list) else None
