"""claims_subject over the claims API Gateway's HTTP API JWT authorizer passes on, the WFX_JWT_*
settings' validation, and verifier_for's choice of verifier."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.identity.claims import claims_subject
from adapters.identity.jwks import JwksTokenVerifier
from adapters.identity.local_tokens import LocalTokenVerifier
from domain.authorization import Subject
from domain.errors import InvalidInputError, NotAuthenticatedError
from entrypoints.identity_wiring import verifier_for
from entrypoints.settings import JwtSettings, Settings, jwt_settings

_RFC8037_X = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"  # RFC 8037's example public key
POOL = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_abc"


@pytest.mark.parametrize(
    ("claims", "subject"),
    [
        (
            {"sub": "u-1", "roles": ["admin", "reader"]},
            Subject(user_id="u-1", roles=("admin", "reader")),
        ),
        ({"username": "bob"}, Subject(user_id="bob")),
        (
            {"cognito:username": "carol", "cognito:groups": "[admin reader]"},
            Subject(user_id="carol", roles=("admin", "reader")),
        ),
        ({"sub": "u-2", "cognito:groups": "admin"}, Subject(user_id="u-2", roles=("admin",))),
        (
            {"sub": "u-3", "roles": "a, b", "cognito:groups": ["b", "c"]},
            Subject(user_id="u-3", roles=("a", "b", "c")),
        ),
        ({"sub": "u-4", "roles": "[]"}, Subject(user_id="u-4")),
    ],
    ids=[
        "sub and a roles list",
        "username",
        "cognito, groups as API Gateway renders a list",
        "one group as a string",
        "both claims merged",
        "an empty list",
    ],
)
def test_claims_name_the_user_and_the_roles(claims: dict[str, Any], subject: Subject) -> None:
    assert claims_subject(claims) == subject


@pytest.mark.parametrize("claims", [{}, {"sub": ""}, {"roles": ["admin"]}])
def test_claims_naming_no_user_are_refused(claims: dict[str, Any]) -> None:
    with pytest.raises(NotAuthenticatedError, match="names no user"):
        claims_subject(claims)


def test_no_jwks_means_the_local_key() -> None:
    assert jwt_settings({}) == JwtSettings()


def test_a_jwks_file_or_url_with_its_issuer() -> None:
    assert jwt_settings(
        {"WFX_JWT_JWKS": f"{POOL}/.well-known/jwks.json", "WFX_JWT_ISSUER": POOL}
    ) == JwtSettings(jwks=f"{POOL}/.well-known/jwks.json", issuer=POOL)
    settings = jwt_settings(
        {"WFX_JWT_JWKS": "~/jwks.json", "WFX_JWT_ISSUER": POOL, "WFX_JWT_AUDIENCE": "api"}
    )
    assert settings.jwks == str(Path("~/jwks.json").expanduser())
    assert settings.audience == "api"


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"WFX_JWT_ISSUER": POOL}, "WFX_JWT_ISSUER: set only with WFX_JWT_JWKS"),
        ({"WFX_JWT_AUDIENCE": "api"}, "WFX_JWT_AUDIENCE: set only with WFX_JWT_JWKS"),
        ({"WFX_JWT_JWKS": "/etc/jwks.json"}, "WFX_JWT_ISSUER: not set"),
        (
            {"WFX_JWT_JWKS": "https://", "WFX_JWT_ISSUER": POOL},
            "WFX_JWT_JWKS: must be a file path or",
        ),
        ({"WFX_JWT_JWKS": "http://host:0/jwks", "WFX_JWT_ISSUER": POOL}, "WFX_JWT_JWKS: must be"),
    ],
)
def test_unusable_jwt_settings_are_named(environ: dict[str, str], message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        jwt_settings(environ)
    with pytest.raises(InvalidInputError, match=message):
        Settings.from_environment({"WFX_HOME": "/tmp/wfx-home", **environ})


def test_verifier_for_picks_the_jwks_when_configured_else_the_local_key(tmp_path: Path) -> None:
    jwks = tmp_path / "jwks.json"
    jwks.write_text(
        json.dumps({"keys": [{"kty": "OKP", "crv": "Ed25519", "x": _RFC8037_X, "kid": "k"}]})
    )
    local = Settings.from_environment({"WFX_HOME": str(tmp_path)})
    remote = Settings.from_environment(
        {"WFX_HOME": str(tmp_path), "WFX_JWT_JWKS": str(jwks), "WFX_JWT_ISSUER": POOL}
    )

    assert isinstance(verifier_for(local, tmp_path), LocalTokenVerifier)
    assert isinstance(verifier_for(remote, tmp_path), JwksTokenVerifier)


def test_a_role_claim_nested_past_what_python_reads_gives_no_role() -> None:
    """A direct invoke may put any text in a claim: a list nested 100,000 deep is no role list
    (nothing granted), never a RecursionError out of the identity check."""
    deep = "[" * 100_000 + "]" * 100_000

    subject = claims_subject({"sub": "mallory", "cognito:groups": deep})

    assert subject.user_id == "mallory"
    assert subject.roles == ()
