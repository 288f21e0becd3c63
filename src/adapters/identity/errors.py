"""PyJWT's refusals as NotAuthenticatedError, each with a message that says what was wrong
with the token and never quotes it."""

from __future__ import annotations

from datetime import UTC, datetime

import jwt

from domain.errors import NotAuthenticatedError


def refusal(error: jwt.PyJWTError, token: str = "") -> NotAuthenticatedError:
    """The error to raise (`from None`: PyJWT's own message may quote a claim's value).
    `token`: the one refused, whose expiry an expired one is refused naming."""
    if isinstance(error, jwt.ExpiredSignatureError):
        return NotAuthenticatedError(_expired(token))
    if isinstance(error, jwt.ImmatureSignatureError):
        return NotAuthenticatedError("the token is not valid yet")
    if isinstance(error, jwt.InvalidSignatureError):
        return NotAuthenticatedError("the token's signature does not verify")
    if isinstance(error, jwt.InvalidIssuerError):
        return NotAuthenticatedError("the token is from another issuer")
    if isinstance(error, jwt.InvalidAudienceError):
        return NotAuthenticatedError("the token is meant for another audience")
    if isinstance(error, jwt.MissingRequiredClaimError):
        return NotAuthenticatedError(f"the token has no {error.claim} claim")
    if isinstance(error, jwt.InvalidAlgorithmError):
        return NotAuthenticatedError("the token is signed with an algorithm not accepted here")
    return NotAuthenticatedError("the token is malformed")


def _expired(token: str) -> str:
    # PyJWT checks the signature before the claims, so an expired token's `exp` is its signer's
    try:
        expires = jwt.decode(token, options={"verify_signature": False})["exp"]
        moment = datetime.fromtimestamp(int(expires), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (jwt.PyJWTError, KeyError, TypeError, ValueError, OverflowError, OSError):
        return "the token has expired"
    return f"the token expired at {moment}"


def no_token() -> NotAuthenticatedError:
    return NotAuthenticatedError("no token given")  # no `bearer word` shape redaction hides
