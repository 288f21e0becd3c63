"""The library API on settings it cannot use: `wfx.open_application` or the first call says which
setting and what to do, as a `wfx` error - never a raw sqlite3, OSError or botocore traceback."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import wfx
from conftest import FAKE_AWS_ENVIRONMENT
from tests.e2e.served import free_port


def test_a_home_that_is_a_file_is_refused_when_opened_naming_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.write_text("not a folder\n", encoding="utf-8")

    with pytest.raises(wfx.UnusableSettingError, match=r"WFX_HOME .* is a file, not a folder"):
        wfx.open_application({"WFX_HOME": str(home)})

    assert home.read_text(encoding="utf-8") == "not a folder\n"


def test_a_home_with_a_nul_is_refused_naming_it(tmp_path: Path) -> None:
    with pytest.raises(wfx.UnusableSettingError, match="WFX_HOME"):
        wfx.open_application({"WFX_HOME": f"{tmp_path}/a\x00b"})


def test_a_database_that_is_not_sqlite_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    database = tmp_path / "notes.db"
    database.write_bytes(b"my notes, not a database\n" * 40)

    with pytest.raises(wfx.UnusableSettingError, match=r"WFX_DB .*notes\.db"):
        wfx.open_application({"WFX_HOME": str(tmp_path / "home"), "WFX_DB": str(database)})

    assert database.read_bytes() == b"my notes, not a database\n" * 40


def test_an_unknown_runner_mode_is_a_bad_input_naming_the_choices(tmp_path: Path) -> None:
    with pytest.raises(wfx.InvalidInputError, match="runner_mode: must be one of"):
        wfx.open_application({"WFX_HOME": str(tmp_path)}, runner_mode="threads")


def test_a_store_without_tables_says_to_create_them(tmp_path: Path) -> None:
    app = wfx.open_application({"WFX_HOME": str(tmp_path)}, runner_mode="inline")

    with pytest.raises(wfx.UnusableSettingError, match=r"create_tables\(\)") as refused:
        app.list(wfx.ListExecutionsQuery())

    assert "WorkflowExecutions" not in str(refused.value)  # the fix, not the table's name
    app.create_tables()
    assert app.list(wfx.ListExecutionsQuery()).items == ()


def test_a_dynamodb_endpoint_nothing_listens_on_says_how_to_start_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in FAKE_AWS_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    endpoint = f"http://127.0.0.1:{free_port()}"
    app = wfx.open_application(
        {"WFX_STORE": "dynamodb", "WFX_DYNAMODB_ENDPOINT": endpoint, "WFX_HOME": str(tmp_path)}
    )

    started = time.monotonic()
    with pytest.raises(wfx.UnusableSettingError) as refused:
        app.get("01a243cfe943af57c5f2cd319ec58f00")

    said = str(refused.value)
    assert endpoint in said and "WFX_DYNAMODB_ENDPOINT" in said and "moto_server" in said
    assert time.monotonic() - started < 30


def test_a_vams_prefix_whose_parameters_cannot_be_read_names_the_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in FAKE_AWS_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AWS_ENDPOINT_URL_SSM", f"http://127.0.0.1:{free_port()}")
    app = wfx.open_application(
        {
            "WFX_STORE": "dynamodb",
            "WFX_DYNAMODB_ENDPOINT": f"http://127.0.0.1:{free_port()}",
            "VAMS_RESOURCE_PARAM_PREFIX": "/vams/prod",
            "WFX_HOME": str(tmp_path),
        }
    )

    with pytest.raises(wfx.UnusableSettingError, match="VAMS_RESOURCE_PARAM_PREFIX"):
        app.list(wfx.ListExecutionsQuery())
