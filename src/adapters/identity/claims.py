"""A token's claims to the Subject they name: ours, an identity provider's, or those API
Gateway's HTTP API (payload 2.0) JWT authorizer hands a Lambda in
`requestContext.authorizer.jwt.claims`."""

from __future__ import annotations

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
    user_id = next((str(claims[name]).strip() for name in USER_CLAIMS if claims.get(name)), "")
    if not user_id:
        raise NotAuthenticatedError(
            f"the token names no user: it has none of the claims {', '.join(USER_CLAIMS)}"
        )
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
            text = text[1:-1]
        return [role for role in _ROLE_SEPARATORS.split(text) if role]
    if isinstance(value, list | tuple):
        return [str(role).strip() for role in value if str(role).strip()]
    return []
