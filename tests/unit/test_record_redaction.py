"""Rows hold no secret: every free-text attribute a record builder writes, as SQLite stores it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings

from adapters import output_records, records, run_records, step_records
from adapters.sqlite.statements import dump_json
from domain.attempts import TaskExecution
from domain.execution import OutputMetadata, StepInputConfiguration, StepLog
from domain.run import StepMove
from domain.statuses import StepStatus
from domain.sub_processes import StopOutcome, SubExecutionStop
from domain.workflow import ExecutionType, InputFileArity, StepDefinition
from tests import planted_secrets
from tests.contract.builders import a_step, a_version, an_execution
from tests.planted_secrets import Plant

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _rows(text: str) -> list[records.Item]:
    """One item of each kind that carries free text, with `text` in every such attribute."""
    execution = an_execution("e1").model_copy(
        update={"execution_log": text, "execution_error": text}
    )
    step = a_step("e1", 0).model_copy(
        update={
            "error": text,
            "sub_execution_stops": (
                SubExecutionStop(
                    resource_type="batch",
                    resource_id="job-1",
                    outcome=StopOutcome.COULD_NOT_STOP,
                    detail=text,
                    at=NOW,
                ),
            ),
        }
    )
    common: dict[str, Any] = {
        "pipeline_execution_id": step.pipeline_execution_id,
        "workflow_execution_id": "e1",
    }
    configuration = StepInputConfiguration(
        **common,
        execution_type=ExecutionType.COMMAND,
        command=("sh", "-c", text),
        input_file_arity=InputFileArity.NONE,
    )
    attempt = TaskExecution(
        **common, attempt=1, status=StepStatus.FAILED, start_date=NOW, error=text
    )
    change = StepMove(
        "e1", "e1-step0", StepStatus.FAILED, frozenset({StepStatus.RUNNING}), stop_date=NOW,
        error=text, close_attempt=1,
    )  # fmt: skip
    return [
        run_records.build_execution_record(execution),
        step_records.build_pipeline_execution_record(step),
        step_records.step_move_attributes(change),
        step_records.task_execution_close_of(change)[0],
        step_records.build_task_execution_record(attempt),
        step_records.build_step_input_configuration_record(configuration),
        output_records.build_output_metadata_record(
            OutputMetadata(**common, target_file_path="a.obj", metadata_key="notes", value=text)
        ),
        output_records.build_step_log_record(StepLog(**common, status="FAILED", message=text)),
        records.build_workflow_version_record(
            a_version(1).model_copy(update={"description": text})
        ),
    ]


def _version_with_command(text: str) -> records.Item:
    """The stored step definition of a one-step version running `text` (the item holding it)."""
    step = StepDefinition(
        pipeline_id="run",
        pipeline_database_id="db1",
        execution_type=ExecutionType.COMMAND,
        command=("sh", "-c", text),
    )
    version = a_version(1).model_copy(update={"steps": (step,)})
    (stored,) = records.build_step_definition_records(version)
    return stored


@settings(max_examples=150)
@given(planted_secrets.embedded())
def test_no_row_holds_a_planted_secret(plant: Plant) -> None:
    stored = [dump_json(item) for item in _rows(plant.text)]
    for secret in plant.secrets:
        assert not [item for item in stored if secret in item], plant.kind


@given(planted_secrets.registered_value(), planted_secrets.NOISE)
def test_no_row_holds_a_registered_secret(value: str, around: str) -> None:
    with planted_secrets.registered(value):
        text = f"{around} {value} {around}"
        stored = [dump_json(item) for item in [*_rows(text), _version_with_command(text)]]
    assert not [item for item in stored if value in item]


@settings(max_examples=100)
@given(planted_secrets.embedded())
def test_the_command_a_version_runs_loses_every_secret_known_by_its_shape(plant: Plant) -> None:
    stored = dump_json(_version_with_command(plant.text))
    if plant.kind in ("key name", "pem cut"):
        # what runs keeps these as written: in code `token = f()` is no secret, and a BEGIN
        # alone is a program printing a header (docs/reliability.md, "Redaction")
        return
    for secret in plant.secrets:
        assert secret not in stored, plant.kind


def test_the_command_a_version_runs_keeps_code_that_only_names_a_secret() -> None:
    code = "import os; print('aws_secret_access_key=' + os.environ['KEY']); token = f()"
    assert _version_with_command(code)["command"][2] == code


def test_a_metadata_value_under_a_secret_name_goes_whatever_it_looks_like() -> None:
    row = OutputMetadata(
        pipeline_execution_id="p1",
        workflow_execution_id="e1",
        target_file_path="a.obj",
        metadata_key="db_password",
        value="x",
    )
    item = output_records.build_output_metadata_record(row)
    assert item["metadataValue"] == "[REDACTED]"
    assert item["targetFilePath:metadataKey"] == "/a.obj:db_password"


def test_a_python_handler_is_a_reference_not_a_name_value_pair() -> None:
    configuration = StepInputConfiguration(
        pipeline_execution_id="p1",
        workflow_execution_id="e1",
        execution_type=ExecutionType.PYTHON,
        handler="app.passwords:check",
        input_file_arity=InputFileArity.NONE,
    )
    item = step_records.build_step_input_configuration_record(configuration)
    assert item["handler"] == "app.passwords:check"
