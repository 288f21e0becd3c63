"""Revoked tokens refused: a verifier that asks the store after the signature, issuer, audience
and expiry held, so a logged-out token stops working at once, not at its expiry."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import jwt

from application.ports.access import RevokedTokens, TokenVerifier
from domain.authorization import Subject
from domain.errors import NotAuthenticatedError

# Worded so that redaction, which every message goes through, leaves it whole.
REVOKED = "that session was ended (logged out or revoked); log in again with a new one"


@dataclass(frozen=True)
class TokenFacts:
    token_id: str
    issued_at: int  # epoch seconds; 0 when the token does not say
    expires_at: int


def token_facts(token: str) -> TokenFacts:
    """The id, issue and expiry of a token already verified (its signature is not checked
    again). A token without `jti` (an identity provider's may have none) is named by a digest
    of itself."""
    claims = jwt.decode(token, options={"verify_signature": False})
    token_id = claims.get("jti")
    if not isinstance(token_id, str) or not token_id:
        token_id = hashlib.sha256(token.encode("utf-8")).hexdigest()[:32]
    issued, expires = claims.get("iat"), claims.get("exp")
    return TokenFacts(
        token_id=token_id,
        issued_at=int(issued) if isinstance(issued, int | float) else 0,
        expires_at=int(expires) if isinstance(expires, int | float) else 0,
    )


class RevocationCheckingVerifier:
    """TokenVerifier: the inner one's checks, then the store's list of revoked tokens."""

    def __init__(self, inner: TokenVerifier, revoked: RevokedTokens) -> None:
        self._inner, self._revoked = inner, revoked

    def verify(self, token: str) -> Subject:
        subject = self._inner.verify(token)
        facts = token_facts(token)
        if self._revoked.is_revoked(facts.token_id, subject.user_id, facts.issued_at):
            raise NotAuthenticatedError(REVOKED)
        return subject
