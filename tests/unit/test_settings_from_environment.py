"""What Settings reads for the parts of wfx that once read the environment themselves."""

from __future__ import annotations

import pytest

from domain.errors import InvalidInputError
from entrypoints.settings import Settings, has_display, terminal_columns_set


@pytest.mark.parametrize(
    ("environ", "kind"),
    [
        ({}, "file"),
        ({"AWS_LAMBDA_FUNCTION_NAME": "wfx-api"}, "logging"),
        ({"WFX_AUDIT_LOG": "logging"}, "logging"),
        ({"WFX_AUDIT_LOG": "file", "AWS_LAMBDA_FUNCTION_NAME": "wfx-api"}, "file"),
    ],
)
def test_the_audit_log_is_a_file_except_in_lambda_unless_chosen(
    environ: dict[str, str], kind: str
) -> None:
    assert Settings.from_environment({"WFX_HOME": "/tmp/wfx", **environ}).audit_log == kind


def test_the_template_settings_come_with_the_rest() -> None:
    settings = Settings.from_environment(
        {"WFX_HOME": "/tmp/wfx", "WFX_TABLE_PREFIX": "dev-", "WFX_EVENT_SOURCE_PREFIX": "acme"}
    )
    assert settings.tables.prefix == "dev-"
    assert settings.event_source_prefix == "acme"


def test_the_state_machine_prefix_is_the_stack_s_else_wfx_s_earlier_one() -> None:
    stack = Settings.from_environment({"WFX_STATE_MACHINE_PREFIX": "wfx_0a1b2c3d-"})
    assert stack.state_machine_prefix == "wfx_0a1b2c3d-"
    assert Settings.from_environment({}).state_machine_prefix == "wfx-"
    with pytest.raises(InvalidInputError, match=r"^WFX_STATE_MACHINE_PREFIX: must be 1-40"):
        Settings.from_environment({"WFX_STATE_MACHINE_PREFIX": "team a/"})


def test_columns_and_a_display_are_read_from_the_given_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    assert terminal_columns_set({"COLUMNS": "120"})
    assert not terminal_columns_set({})
    assert has_display({"WAYLAND_DISPLAY": "wayland-0"})
    assert not has_display({})
