"""Which TokenVerifier checks bearer tokens: the identity provider's JWKS when WFX_JWT_JWKS is
set, else the local signing key in WFX_HOME (the one `wfx auth token` signs with)."""

from __future__ import annotations

from pathlib import Path

from adapters.identity.jwks import JwksTokenVerifier
from adapters.identity.local_key import LocalSigningKey
from adapters.identity.local_tokens import LocalTokenIssuer, LocalTokenVerifier
from application.ports.access import TokenVerifier
from entrypoints.settings import JwtSettings, Settings


def verifier_for(settings: Settings, home: Path) -> TokenVerifier:
    return jwt_verifier(settings.jwt, home)


def jwt_verifier(jwt: JwtSettings, home: str | Path) -> TokenVerifier:
    """The container's provider (its configuration holds JwtSettings' parts, not Settings)."""
    if jwt.jwks is not None:
        return JwksTokenVerifier(jwt.jwks, jwt.issuer, jwt.audience)
    return LocalTokenVerifier(LocalSigningKey(Path(home)))


def local_token_issuer(home: str | Path) -> LocalTokenIssuer:
    return LocalTokenIssuer(LocalSigningKey(Path(home)))
