"""Who is calling: a bearer token the service verifies itself (`wfx serve`), or the claims API
Gateway's JWT authorizer verified before the request reached Lambda."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fastapi import Request

from application.ports.access import TokenVerifier
from domain.authorization import Subject
from domain.errors import NotAuthenticatedError

Identify = Callable[[Request], Subject]

# Worded so that redaction, which every message goes through, finds no secret in it: no
# `token: value` or `bearer word` shapes.
_NO_TOKEN = (
    "not logged in: the request carries no `Authorization: Bearer <token>` header "
    "(for local use, `wfx auth token USER` prints one)"
)


def bearer_token(request: Request) -> str:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise NotAuthenticatedError(_NO_TOKEN)
    return token.strip()


def verified_by(verifier: TokenVerifier) -> Identify:
    """The service checks the signature, expiry, issuer and audience itself."""

    def identify(request: Request) -> Subject:
        return verifier.verify(bearer_token(request))

    return identify


def api_gateway_claims(
    claims_subject: Callable[[Mapping[str, Any]], Subject],
) -> Identify:
    """In Lambda behind an HTTP API: the JWT authorizer has verified the token, and Mangum
    hands over the event whose `requestContext.authorizer.jwt.claims` name the caller."""

    def identify(request: Request) -> Subject:
        # a direct invoke may put anything at any level: what is no object holds no identity
        claims: object = request.scope.get("aws.event")
        for key in ("requestContext", "authorizer", "jwt", "claims"):
            claims = claims.get(key) if isinstance(claims, Mapping) else None
        if not isinstance(claims, Mapping) or not claims:
            raise NotAuthenticatedError(
                "the request carries no verified identity: put the route behind the API's "
                "JWT authorizer"
            )
        return claims_subject(claims)

    return identify
