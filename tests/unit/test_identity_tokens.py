"""Bearer tokens with real PyJWT: the local key's tokens, a JWKS from a file and from a URL
(served by a local http.server thread), and every refusal as NotAuthenticatedError whose
message says what is wrong without quoting the token."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from adapters.identity.jwks import JwksTokenVerifier, JwksUnavailableError
from adapters.identity.local_key import KEY_FILE_NAME, LocalSigningKey
from adapters.identity.local_tokens import (
    LOCAL_AUDIENCE,
    LOCAL_ISSUER,
    LocalTokenIssuer,
    LocalTokenVerifier,
)
from domain.authorization import Subject
from domain.errors import InvalidInputError, NotAuthenticatedError
from tests.one_answer_server import answering

ISSUER = "https://idp.example.com/pool-1"
AUDIENCE = "wfx-api"


def _refused(verifier: Any, token: str, reason: str) -> None:
    with pytest.raises(NotAuthenticatedError) as refused:
        verifier.verify(token)
    assert reason in str(refused.value)
    assert token not in str(refused.value) if token else True


# -- the local key -------------------------------------------------------------------------------


def test_a_local_token_names_its_user_and_roles(tmp_path: Path) -> None:
    token = LocalTokenIssuer(LocalSigningKey(tmp_path)).issue(
        "alice", timedelta(hours=1), ("admin", "viewer", "admin")
    )

    # another instance (another process) reads the same key from the home
    subject = LocalTokenVerifier(LocalSigningKey(tmp_path)).verify(token)

    assert subject == Subject(user_id="alice", roles=("admin", "viewer"))


def test_the_key_is_made_on_first_use_readable_by_its_owner_only(tmp_path: Path) -> None:
    key = LocalSigningKey(tmp_path / "home")
    assert not key.path.exists()

    key.private_key()

    assert key.path == tmp_path / "home" / KEY_FILE_NAME
    assert stat.S_IMODE(key.path.stat().st_mode) == 0o600
    assert LocalSigningKey(tmp_path / "home").key_id == key.key_id


def test_a_key_file_open_to_others_is_refused(tmp_path: Path) -> None:
    LocalSigningKey(tmp_path).private_key()
    os.chmod(tmp_path / KEY_FILE_NAME, 0o644)

    with pytest.raises(InvalidInputError, match="chmod 600"):
        LocalSigningKey(tmp_path).private_key()


def test_an_expired_token_is_refused(tmp_path: Path) -> None:
    two_hours_ago = datetime.now(UTC) - timedelta(hours=2)
    issuer = LocalTokenIssuer(LocalSigningKey(tmp_path), now=lambda: two_hours_ago)
    token = issuer.issue("alice", timedelta(hours=1))

    _refused(LocalTokenVerifier(LocalSigningKey(tmp_path)), token, "expired")


def test_a_token_of_another_key_or_tampered_with_is_refused(tmp_path: Path) -> None:
    theirs = LocalTokenIssuer(LocalSigningKey(tmp_path / "other")).issue("alice", timedelta(1))
    verifier = LocalTokenVerifier(LocalSigningKey(tmp_path / "ours"))
    _refused(verifier, theirs, "signature does not verify")

    ours = LocalTokenIssuer(LocalSigningKey(tmp_path / "ours")).issue("alice", timedelta(1))
    header, _payload, signature = ours.split(".")
    claims = jwt.decode(ours, options={"verify_signature": False})
    forged = jwt.utils.base64url_encode(json.dumps(claims | {"sub": "root"}).encode()).decode()
    _refused(verifier, f"{header}.{forged}.{signature}", "signature does not verify")


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"aud": "another-service"}, "another audience"),
        ({"iss": "someone-else"}, "another issuer"),
        ({"sub": None}, "no sub claim"),
        ({"exp": None}, "no exp claim"),
    ],
)
def test_a_token_for_another_audience_or_issuer_or_missing_a_claim_is_refused(
    tmp_path: Path, changes: dict[str, Any], reason: str
) -> None:
    key = LocalSigningKey(tmp_path)
    now = int(datetime.now(UTC).timestamp())
    claims = {"iss": LOCAL_ISSUER, "aud": LOCAL_AUDIENCE, "sub": "a", "iat": now, "exp": now + 60}
    claims = {k: v for k, v in (claims | changes).items() if v is not None}
    token = jwt.encode(claims, key.private_key(), algorithm="EdDSA")

    _refused(LocalTokenVerifier(key), token, reason)


def test_an_unsigned_token_garbage_or_none_is_refused(tmp_path: Path) -> None:
    verifier = LocalTokenVerifier(LocalSigningKey(tmp_path))
    unsigned = jwt.encode({"sub": "root", "exp": 2**40}, "", algorithm="none")

    _refused(verifier, unsigned, "algorithm not accepted")
    _refused(verifier, "not-a-token", "malformed")
    _refused(verifier, "", "no token given")


def test_issuing_needs_a_user_and_a_positive_ttl(tmp_path: Path) -> None:
    issuer = LocalTokenIssuer(LocalSigningKey(tmp_path))
    with pytest.raises(InvalidInputError, match="user"):
        issuer.issue(" ", timedelta(hours=1))
    with pytest.raises(InvalidInputError, match="ttl"):
        issuer.issue("alice", timedelta(0))


@pytest.mark.parametrize("role", ["", " admin", "db:1", "a" * 101])
def test_a_role_no_role_can_be_named_is_refused_not_signed(tmp_path: Path, role: str) -> None:
    """An empty role (`wfx auth token x --role ""`) was signed into the token, granting nothing."""
    with pytest.raises(InvalidInputError, match=r"^role: must"):
        LocalTokenIssuer(LocalSigningKey(tmp_path)).issue("alice", timedelta(hours=1), [role])


# -- a JWKS --------------------------------------------------------------------------------------


class _Provider:
    """An identity provider with two keys (RSA, EC) published as a JWKS."""

    def __init__(self) -> None:
        self.rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.ec = ec.generate_private_key(ec.SECP256R1())
        self.jwks = {
            "keys": [
                {
                    **json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.rsa.public_key())),
                    "kid": "rsa-1",
                    "use": "sig",
                    "alg": "RS256",
                },
                {
                    **json.loads(jwt.algorithms.ECAlgorithm.to_jwk(self.ec.public_key())),
                    "kid": "ec-1",
                    "use": "sig",
                },
                {"kty": "oct", "kid": "hmac-1", "k": "c2VjcmV0"},  # never accepted
            ]
        }

    def token(self, kid: str | None = "ec-1", signer: Any = None, **changes: Any) -> str:
        now = int(datetime.now(UTC).timestamp())
        claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "u-1", "exp": now + 300, "iat": now}
        claims = {k: v for k, v in (claims | changes).items() if v is not None}
        algorithm = "RS256" if kid == "rsa-1" else "ES256"
        key = signer or (self.rsa if algorithm == "RS256" else self.ec)
        headers = {"kid": kid} if kid else {}
        return jwt.encode(claims, key, algorithm=algorithm, headers=headers)


@pytest.fixture
def provider() -> _Provider:
    return _Provider()


@pytest.fixture
def jwks_file(provider: _Provider, tmp_path: Path) -> str:
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps(provider.jwks), encoding="utf-8")
    return str(path)


def test_a_jwks_file_key_is_chosen_by_the_tokens_kid(provider: _Provider, jwks_file: str) -> None:
    verifier = JwksTokenVerifier(jwks_file, ISSUER, AUDIENCE)

    assert verifier.verify(provider.token("rsa-1", roles=["a"])) == Subject(
        user_id="u-1", roles=("a",)
    )
    assert verifier.verify(provider.token("ec-1", **{"cognito:groups": ["b"]})).roles == ("b",)


def test_a_jwks_refuses_an_unknown_kid_a_wrong_key_and_a_symmetric_key(
    provider: _Provider, jwks_file: str
) -> None:
    verifier = JwksTokenVerifier(jwks_file, ISSUER, AUDIENCE)
    stranger = ec.generate_private_key(ec.SECP256R1())

    _refused(verifier, provider.token("ec-9"), "key the JWKS does not hold")
    _refused(verifier, provider.token("ec-1", signer=stranger), "signature does not verify")
    _refused(verifier, provider.token(None), "key the JWKS does not hold")  # two keys: which?
    hmac = jwt.encode(
        {"sub": "x", "iss": ISSUER, "exp": 2**40}, "s" * 32, headers={"kid": "hmac-1"}
    )
    _refused(verifier, hmac, "key the JWKS does not hold")


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"iss": "https://idp.example.com/pool-2"}, "another issuer"),
        ({"iss": None}, "no iss claim"),
        ({"aud": "other-api"}, "another audience"),
        ({"aud": None}, "no aud claim"),
        ({"exp": 1_000_000}, "expired"),
    ],
)
def test_a_jwks_token_must_be_of_the_issuer_for_the_audience_and_unexpired(
    provider: _Provider, jwks_file: str, changes: dict[str, Any], reason: str
) -> None:
    _refused(JwksTokenVerifier(jwks_file, ISSUER, AUDIENCE), provider.token(**changes), reason)


def test_without_an_audience_configured_any_audience_is_taken(
    provider: _Provider, jwks_file: str
) -> None:
    verifier = JwksTokenVerifier(jwks_file, ISSUER, None)

    assert verifier.verify(provider.token(aud="whatever")).user_id == "u-1"
    assert verifier.verify(provider.token(aud=None, username="bob", sub=None)).user_id == "bob"


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        (None, "cannot read"),
        ("{", "not JSON"),
        ('{"k": 1}', "not a JWKS"),
        ('{"keys": []}', "no signing key"),
    ],
)
def test_an_unusable_jwks_file_is_named(tmp_path: Path, document: str | None, problem: str) -> None:
    path = tmp_path / "jwks.json"
    if document is not None:
        path.write_text(document, encoding="utf-8")

    with pytest.raises(InvalidInputError, match=problem):
        JwksTokenVerifier(str(path), ISSUER, None)


@pytest.fixture
def jwks_url(provider: _Provider) -> Iterator[str]:
    body = json.dumps(provider.jwks).encode()

    with answering(200, body, {"Content-Type": "application/json"}) as endpoint:
        yield f"{endpoint.url}/.well-known/jwks.json"


def test_a_jwks_url_is_fetched_and_its_keys_chosen_by_kid(
    provider: _Provider, jwks_url: str
) -> None:
    verifier = JwksTokenVerifier(jwks_url, ISSUER, AUDIENCE)

    assert verifier.verify(provider.token("rsa-1")).user_id == "u-1"
    assert verifier.verify(provider.token("ec-1")).user_id == "u-1"
    _refused(verifier, provider.token("ec-9"), "key the JWKS does not hold")
    _refused(verifier, provider.token("ec-1", aud="x"), "another audience")


def test_a_jwks_url_that_cannot_be_read_is_the_services_problem(provider: _Provider) -> None:
    verifier = JwksTokenVerifier("http://127.0.0.1:9/jwks.json", ISSUER, AUDIENCE)

    with pytest.raises(JwksUnavailableError):
        verifier.verify(provider.token())
