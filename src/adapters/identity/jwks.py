"""Tokens of an identity provider, verified with its published keys (a JWKS): a file, or a URL
fetched (and cached) by PyJWT's PyJWKClient. The key is chosen by the token's `kid`; the
algorithm is the key's own, never the token's say-so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jwt

from adapters.identity.claims import claims_subject
from adapters.identity.errors import no_token, refusal
from domain.authorization import Subject
from domain.errors import InvalidInputError, NotAuthenticatedError

# A key may say which algorithm it signs with; one that does not gets its type's default
# (RSA: RS256, EC: by curve, OKP: EdDSA), as PyJWK decides. Symmetric keys are never accepted:
# a JWKS is public.
_ASYMMETRIC_TYPES = frozenset({"RSA", "EC", "OKP"})


class JwksUnavailableError(RuntimeError):
    """The JWKS URL could not be read: the service's problem, not the caller's (not a 401)."""


def is_url(source: str) -> bool:
    return source.startswith(("https://", "http://"))


class JwksTokenVerifier:
    """TokenVerifier for an identity provider's tokens: signature by a JWKS key, the issuer and
    (when configured) the audience, unexpired."""

    def __init__(self, source: str, issuer: str | None, audience: str | None) -> None:
        self._issuer, self._audience = issuer, audience
        self._client = jwt.PyJWKClient(source, cache_keys=True) if is_url(source) else None
        self._keys = None if self._client else _read_file(Path(source))

    def verify(self, token: str) -> Subject:
        if not token:
            raise no_token()
        try:
            key = self._signing_key(token)
            if key.key_type not in _ASYMMETRIC_TYPES:
                raise _unknown_key()
            claims = jwt.decode(
                token,
                key.key,
                algorithms=[key.algorithm_name],
                issuer=self._issuer,
                audience=self._audience,
                options={
                    "require": ["exp", *(["iss"] if self._issuer else [])],
                    "verify_aud": self._audience is not None,
                },
            )
        except jwt.PyJWKClientConnectionError as error:
            raise JwksUnavailableError(f"cannot read the JWKS: {error}") from None
        except jwt.PyJWTError as error:
            raise refusal(error, token) from None
        return claims_subject(claims)

    def _signing_key(self, token: str) -> jwt.PyJWK:
        if self._client is not None:
            try:
                return self._client.get_signing_key_from_jwt(token)
            except jwt.PyJWKClientConnectionError:
                raise
            except jwt.PyJWKClientError:
                raise _unknown_key() from None
        assert self._keys is not None
        kid = jwt.get_unverified_header(token).get("kid")
        if kid is None and len(self._keys) == 1:
            return self._keys[0]  # one key and no kid: there is no choosing to do
        for key in self._keys:
            if key.key_id is not None and key.key_id == kid:
                return key
        raise _unknown_key()


def _unknown_key() -> NotAuthenticatedError:
    return NotAuthenticatedError("the token is signed with a key the JWKS does not hold")


def _read_file(path: Path) -> list[jwt.PyJWK]:
    try:
        document: Any = json.loads(path.expanduser().read_text(encoding="utf-8"))
    except OSError as error:
        raise InvalidInputError(f"JWKS file {path}: cannot read it: {error.strerror}") from None
    except ValueError as error:
        raise InvalidInputError(f"JWKS file {path}: not JSON: {error}") from None
    except RecursionError:
        raise InvalidInputError(f"JWKS file {path}: nested deeper than a JWKS can be") from None
    entries = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise InvalidInputError(f'JWKS file {path}: not a JWKS (no "keys" list)')
    keys: list[jwt.PyJWK] = []
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("kty") not in _ASYMMETRIC_TYPES:
            continue  # a symmetric or unknown key cannot verify a provider's token
        if entry.get("use", "sig") != "sig":
            continue
        try:
            keys.append(jwt.PyJWK(entry))
        except jwt.PyJWTError as error:
            raise InvalidInputError(f"JWKS file {path}: a key cannot be used: {error}") from None
    if not keys:
        raise InvalidInputError(f"JWKS file {path}: holds no signing key")
    return keys
