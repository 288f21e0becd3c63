"""What the CLI prints holds no secret, even when a row still does (written before the policy,
or by another writer): `show`, `show --json`, `logs` in each mode, progress lines, errors."""

from __future__ import annotations

import io
import time
from contextlib import redirect_stderr, redirect_stdout, suppress
from dataclasses import replace

import pytest
from hypothesis import given, settings
from rich.console import Console

from application.use_cases.get_execution_logs import ExecutionLogs, LogLine, LogSourceReport
from domain.available_logs import AvailableLog, LogReadStatus
from domain.execution import ExecutionDetails, StepDetails
from domain.logs import LogKind
from domain.statuses import ExecutionStatus, StepStatus
from entrypoints.cli import errors, logs, progress
from entrypoints.cli.render import dump_json, print_details
from entrypoints.vams_details import VamsExecutionDetails
from tests import planted_secrets
from tests.contract.builders import a_step, an_attempt, an_execution
from tests.planted_secrets import Plant


def _console(into: io.StringIO) -> Console:
    return Console(file=into, width=1000, highlight=False, color_system=None)


def _details(text: str) -> ExecutionDetails:
    """A failed run whose every free-text field holds `text`, as a raw row would."""
    execution = an_execution("e1", status=ExecutionStatus.FAILED).model_copy(
        update={"execution_error": text, "execution_log": text, "execution_group_id": text}
    )
    step = a_step("e1", 0, status=StepStatus.FAILED).model_copy(update={"error": text})
    attempts = tuple(replace(an_attempt(step.pipeline_execution_id, n), error=text) for n in (1, 2))
    log = AvailableLog(
        kind=LogKind.REGISTERED,
        log_id="0123456789abcdef",
        pipeline_execution_id=step.pipeline_execution_id,
        log_group_name="/wfx/steps",
        label=text,
    )
    entry = StepDetails(step=step, attempts=attempts, available_logs=(log,))
    return ExecutionDetails(execution=execution, steps=(entry,), log_warnings=(text,))


def _logs(text: str, full: bool) -> ExecutionLogs:
    source = AvailableLog(
        kind=LogKind.INVOCATION,
        log_id="fedcba9876543210",
        pipeline_execution_id="e1-step0",
        log_group_name="e1",
    )
    lines = tuple(LogLine(log_id=source.log_id, message=line) for line in text.split("\n"))
    return ExecutionLogs(
        workflow_execution_id="e1",
        log_sources=(
            LogSourceReport(
                source=source, status=LogReadStatus.READ, execution_filtered=False, problem=text
            ),
        ),
        lines=lines if full else (),
        run_log=None if full else text,
        warnings=(text,),
    )


def _printed(call: object, *arguments: object) -> str:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err), suppress(SystemExit):
        call(*arguments)  # type: ignore[operator]
    return out.getvalue() + err.getvalue()


def _assert_clean(plant: Plant, shown: str) -> None:
    for secret in plant.secrets:
        assert secret not in shown, plant.kind


@settings(max_examples=100)
@given(planted_secrets.embedded())
def test_show_and_show_json_print_no_secret(plant: Plant) -> None:
    details = _details(plant.text)
    shown = io.StringIO()
    print_details(details, _console(shown))
    _assert_clean(plant, shown.getvalue())
    _assert_clean(plant, dump_json(VamsExecutionDetails.of(details).dump()))


@settings(max_examples=100)
@given(planted_secrets.embedded())
def test_logs_print_no_secret_in_any_mode(plant: Plant) -> None:
    for full, log_id, json_output in (
        (False, None, False),
        (True, None, False),
        (True, "fedcba9876543210", False),
        (True, None, True),
    ):
        result = _logs(plant.text, full)
        _assert_clean(plant, _printed(logs._print_logs, result, log_id, full, json_output))


@settings(max_examples=100)
@given(planted_secrets.embedded())
def test_progress_lines_and_error_messages_print_no_secret(plant: Plant) -> None:
    execution = an_execution("e1", status=ExecutionStatus.FAILED)
    step = a_step("e1", 0, status=StepStatus.FAILED).model_copy(update={"error": plant.text})
    drawn = io.StringIO()
    _console(drawn).print(progress._render(execution, [step], time.monotonic()))
    _assert_clean(plant, drawn.getvalue())
    _assert_clean(plant, _printed(errors._fail, plant.text, errors.EXIT_BAD_INPUT))


@given(planted_secrets.registered_value())
def test_a_registered_secret_is_not_printed_either(value: str) -> None:
    with planted_secrets.registered(value):
        details = _details(f"failed with {value}")
        shown = io.StringIO()
        print_details(details, _console(shown))
        as_json = dump_json(VamsExecutionDetails.of(details).dump())
        assert value not in shown.getvalue() + as_json


def test_an_unexpected_error_prints_a_redacted_traceback() -> None:
    secret = "postgres://admin:" + "s3cr3t" + "@db/x"
    try:
        raise RuntimeError(f"cannot connect to {secret}")
    except RuntimeError as error:
        printed = _printed(
            errors.print_redacted_traceback, RuntimeError, error, error.__traceback__
        )
    assert "Traceback" in printed and "RuntimeError" in printed
    assert "s3cr3t" not in printed


@pytest.mark.parametrize("key", ["DB_PASSWORD", "apiKey", "client_secret"])
def test_json_keeps_a_secret_named_key_and_drops_its_value(key: str) -> None:
    assert dump_json({"metadata": {key: "plain"}}) == dump_json({"metadata": {key: "[REDACTED]"}})
