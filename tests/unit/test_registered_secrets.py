"""WFX_REDACT and WFX_REDACT_FILE: the user's own secrets, configured once for the process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from domain.errors import InvalidInputError
from domain.redaction import redact, registered_secrets
from entrypoints.container import build_container
from entrypoints.settings import Settings


@pytest.fixture(autouse=True)
def _forget_registered_secrets() -> Iterator[None]:
    yield
    build_container(Settings.from_environment({}))


def test_values_come_from_wfx_redact_and_the_file(tmp_path: Path) -> None:
    secrets_file = tmp_path / "secrets"
    secrets_file.write_text("from-the-file\r\n\n  spaced value  \n", encoding="utf-8")
    settings = Settings.from_environment(
        {"WFX_REDACT": "alpha-1,beta-2\ngamma-3,", "WFX_REDACT_FILE": str(secrets_file)}
    )
    assert settings.registered_secrets == (
        "alpha-1",
        "beta-2",
        "gamma-3",
        "from-the-file",
        "spaced value",
    )
    assert "alpha-1" not in repr(settings)


def test_the_container_configures_every_later_redaction(tmp_path: Path) -> None:
    build_container(
        Settings.from_environment({"WFX_HOME": str(tmp_path), "WFX_REDACT": "s3kr1t,ab"})
    )
    assert registered_secrets() == ("s3kr1t",)  # shorter than four characters: ignored
    assert redact("using s3kr1t and ab") == "using [REDACTED] and ab"


def test_a_container_without_them_forgets_the_earlier_ones(tmp_path: Path) -> None:
    build_container(Settings.from_environment({"WFX_HOME": str(tmp_path), "WFX_REDACT": "s3kr1t"}))
    build_container(Settings.from_environment({"WFX_HOME": str(tmp_path)}))
    assert redact("s3kr1t") == "s3kr1t"


def test_an_unreadable_secrets_file_is_refused_rather_than_ignored(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match=r"^WFX_REDACT_FILE: cannot read .*missing"):
        Settings.from_environment({"WFX_REDACT_FILE": str(tmp_path / "missing")})
