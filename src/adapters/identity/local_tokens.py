"""Tokens signed with the local key (EdDSA JWTs): issued by `wfx auth token`, verified by the
local HTTP service when no identity provider (WFX_JWT_JWKS) is configured."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta

import jwt

from adapters.identity.claims import claims_subject
from adapters.identity.errors import no_token, refusal
from adapters.identity.local_key import LocalSigningKey
from domain.authorization import Subject
from domain.constraints import role_name_problem
from domain.errors import InvalidInputError
from domain.triggers import user_id_problem

LOCAL_ISSUER = "wfx-local"
LOCAL_AUDIENCE = "wfx"
_ALGORITHM = "EdDSA"
_REQUIRED = ["exp", "iat", "iss", "aud", "sub"]


def _utc_now() -> datetime:
    return datetime.now(UTC)


class LocalTokenIssuer:
    """Signs a token for a user with the local key."""

    def __init__(self, key: LocalSigningKey, now: Callable[[], datetime] = _utc_now) -> None:
        self._key, self._now = key, now

    def issue(self, user_id: str, ttl: timedelta, roles: Sequence[str] = ()) -> str:
        problem = user_id_problem(user_id)
        if problem is not None:
            raise InvalidInputError(f"user: {problem}")
        if ttl <= timedelta(0):
            raise InvalidInputError("ttl: must be more than zero")
        for role in roles:  # a role no role can be named would grant nothing, silently
            problem = role_name_problem(role)
            if problem is not None:
                raise InvalidInputError(f"role: {problem}")
        issued = self._now()
        claims = {
            "iss": LOCAL_ISSUER,
            "aud": LOCAL_AUDIENCE,
            "sub": user_id,
            "roles": list(dict.fromkeys(roles)),
            "iat": int(issued.timestamp()),
            "exp": int((issued + ttl).timestamp()),
            "jti": uuid.uuid4().hex,  # two tokens of one second still differ
        }
        return jwt.encode(
            claims,
            self._key.private_key(),
            algorithm=_ALGORITHM,
            headers={"kid": self._key.key_id},
        )


class LocalTokenVerifier:
    """TokenVerifier for tokens of the local key: its signature, issuer and audience, unexpired."""

    def __init__(self, key: LocalSigningKey) -> None:
        self._key = key

    def verify(self, token: str) -> Subject:
        if not token:
            raise no_token()
        try:
            claims = jwt.decode(
                token,
                self._key.public_key(),
                algorithms=[_ALGORITHM],  # only ours: no "none", no HMAC with the public key
                issuer=LOCAL_ISSUER,
                audience=LOCAL_AUDIENCE,
                options={"require": _REQUIRED},
            )
        except jwt.PyJWTError as error:
            raise refusal(error, token) from None
        return claims_subject(claims)
