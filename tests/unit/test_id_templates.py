"""A launch's rows (its main row, its configuration, its steps' rows), a step's run's (its
attempt, its cost entry) and a run's end's (its steps' logs), written from a template per
workflow step (`IdTemplates`) or given from a row kept whole (`RowTemplates`), hold the compact
encoder's text of their items, whatever the ids, dates, handler, command and the other values
are (quotes, control characters, DEL, accents, a template's own mark character), built once or
again with other ids; a row given from a kept one is the row built field by field."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.compact_json import IdTemplates, RowTemplates, encode_compact
from adapters.cost_records import build_cost_ledger_record, cost_ledger_item
from adapters.output_records import build_step_log_record
from adapters.run_records import (
    build_execution_configuration_record,
    build_execution_record,
    execution_configuration_item,
    execution_item,
)
from adapters.step_records import (
    build_pipeline_execution_record,
    build_step_input_configuration_record,
    build_task_execution_record,
    pipeline_execution_item,
    step_input_configuration_item,
)
from domain.attempts import AttemptTrigger, TaskExecution
from domain.costs import CostBasis, CostKind, CostLedgerEntry, CostSource
from domain.execution import (
    ExecutionConfiguration,
    PipelineExecution,
    RunnerLease,
    StepInputConfiguration,
    StepLog,
    WorkflowExecution,
)
from domain.redaction import configure_redaction
from domain.statuses import ExecutionStatus, StepStatus
from domain.triggers import TriggerType
from domain.workflow import ExecutionType, InputFileArity

_MARK = "\ue000"  # the first varying value's mark in a template
_TEXT = st.text(max_size=8) | st.sampled_from(
    ["", _MARK, f'x"{_MARK}', "\x7f", "é", "\\ue000", "%s"]
)
_IDS = st.lists(st.tuples(_TEXT, _TEXT), min_size=1, max_size=3)


def _is_the_encoders(record: dict[str, object], text: str | None) -> None:
    assert text == encode_compact(dict(record))
    assert json.loads(text) == record


@settings(max_examples=200, deadline=None)
@given(
    ids=_IDS,
    execution_type=st.sampled_from(list(ExecutionType)),
    arity=st.sampled_from(list(InputFileArity)),
    handler=st.none() | _TEXT,
    command=st.none() | st.lists(_TEXT, max_size=3).map(tuple),
    metadata_inputs=st.lists(_TEXT, max_size=2).map(tuple),
    input_files=st.lists(_TEXT, max_size=2).map(tuple),
)
def test_a_step_configurations_text_is_the_encoders(
    ids: list[tuple[str, str]],
    execution_type: ExecutionType,
    arity: InputFileArity,
    handler: str | None,
    command: tuple[str, ...] | None,
    metadata_inputs: tuple[str, ...],
    input_files: tuple[str, ...],
) -> None:
    for step_id, run_id in ids:  # the second and third from the first one's kept row
        configuration = StepInputConfiguration(
            pipeline_execution_id=step_id,
            workflow_execution_id=run_id,
            execution_type=execution_type,
            handler=handler,
            command=command,
            input_file_arity=arity,
            metadata_inputs=metadata_inputs,
            input_files=input_files,
        )
        record = build_step_input_configuration_record(configuration)
        _is_the_encoders(record, record.json_text)
        assert record == step_input_configuration_item(configuration)


@settings(max_examples=200, deadline=None)
@given(
    run_ids=st.lists(_TEXT, min_size=1, max_size=3),
    moment=st.datetimes(timezones=st.just(UTC)).map(lambda m: m.replace(microsecond=0)),
    workflow_key=_TEXT,
    output=st.none() | st.tuples(_TEXT, _TEXT),
    selections=st.lists(_TEXT, max_size=2).map(tuple),
    group=st.none() | _TEXT,
    steps=st.lists(st.tuples(_TEXT, _TEXT), max_size=3).map(tuple),
)
def test_a_run_configurations_text_is_the_encoders(
    run_ids: list[str],
    moment: datetime,
    workflow_key: str,
    output: tuple[str, str] | None,
    selections: tuple[str, ...],
    group: str | None,
    steps: tuple[tuple[str, str], ...],
) -> None:
    for run_id in run_ids:  # the second and third from the first one's kept row
        configuration = ExecutionConfiguration(
            workflow_execution_id=run_id,
            workflow_key=workflow_key,
            workflow_version=3,
            execution_start_date=moment,
            output_database_id=output[0] if output else None,
            output_asset_id=output[1] if output else None,
            input_selections=selections,
            execution_group_id=group,
            specified_pipelines=steps,
        )
        record = build_execution_configuration_record(configuration)
        _is_the_encoders(record, record.json_text)
        assert record == execution_configuration_item(configuration)


_WHOLE_SECONDS = st.datetimes(timezones=st.just(UTC)).map(lambda m: m.replace(microsecond=0))
_INSTANT = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
)


@settings(max_examples=300, deadline=None)
@given(
    runs=st.lists(
        st.tuples(_TEXT, _WHOLE_SECONDS, st.none() | _TEXT, st.none() | st.tuples(_TEXT, _INSTANT)),
        min_size=1,
        max_size=3,
    ),
    constant=st.fixed_dictionaries(
        {
            "workflow_database_id": _TEXT,
            "workflow_id": _TEXT,
            "workflow_version": st.integers(min_value=0, max_value=3),
            "execution_group_id": st.none() | _TEXT,
            "triggered_by_user_id": _TEXT,
            "trigger_type": st.sampled_from(list(TriggerType)),
            "orchestrator": _TEXT,
            "start_date_estimated": st.booleans(),
            "status": st.sampled_from(list(ExecutionStatus)),
            "client_token": st.none() | _TEXT,
            "rerun_of_execution_id": st.none() | _TEXT,
            "execution_error": st.none() | _TEXT,
        }
    ),
)
def test_a_launched_runs_main_row_text_is_the_encoders(
    runs: list[tuple[str, datetime, str | None, tuple[str, datetime] | None]],
    constant: dict[str, object],
) -> None:
    for run_id, start, digest, lease in runs:  # the second and third from the first's template
        execution = WorkflowExecution.model_validate(
            constant
            | {
                "workflow_execution_id": run_id,
                "execution_start_date": start,
                "request_digest": digest,
                "runner_lease": None
                if lease is None
                else RunnerLease(
                    owner=lease[0], renewed_date=lease[1], expires_date=lease[1] + timedelta(30)
                ),
            }
        )
        record = build_execution_record(execution)
        _is_the_encoders(record, record.json_text)
        assert record == execution_item(execution)


_MOMENT = st.none() | st.datetimes(timezones=st.just(UTC)).map(lambda m: m.replace(microsecond=0))


@settings(max_examples=300, deadline=None)
@given(
    ids=st.lists(st.tuples(_TEXT, _TEXT, _TEXT), min_size=1, max_size=3),
    constant=st.fixed_dictionaries(
        {
            "pipeline_database_id": _TEXT,
            "pipeline_id": _TEXT,
            "step_index": st.integers(min_value=0, max_value=3),
            "step_definition_id": st.none() | _TEXT,
            "execution_type": st.sampled_from(list(ExecutionType)),
            "input_file_arity": st.sampled_from(list(InputFileArity)),
            "wait_for_callback": st.booleans(),
            "pipeline_resource_arn": _TEXT,
            "end_state": st.booleans(),
            "vended_role_arn": _TEXT,
            "credential_vending_state": _TEXT,
            "input_path": _TEXT,
        }
    ),
    from_step=st.none() | _TEXT,
    status=st.sampled_from(list(StepStatus)),
    start=_MOMENT,
    stop=_MOMENT,
    error=st.none() | _TEXT,
    scopes=st.lists(_TEXT, max_size=1).map(tuple),
)
def test_a_step_rows_text_is_the_encoders(
    ids: list[tuple[str, str, str]],
    constant: dict[str, object],
    from_step: str | None,
    status: StepStatus,
    start: datetime | None,
    stop: datetime | None,
    error: str | None,
    scopes: tuple[str, ...],
) -> None:
    for step_id, run_id, path in ids:  # the second and third from the first one's template
        step = PipelineExecution.model_validate(
            constant
            | {
                "pipeline_execution_id": step_id,
                "workflow_execution_id": run_id,
                "from_pipeline_execution_id": from_step,
                "status": status,
                "start_date": start,
                "stop_date": stop,
                "error": error,
                "s3_read_only_scopes": scopes,
                "output_files_path": f"{path}/output/",
                "output_preview_path": f"{path}/preview/",
                "output_metadata_path": f"{path}/metadata/",
                "auxiliary_path": f"{path}/auxiliary/",
                "orchestration_bus_event_prefix": f"{run_id}.{step_id}",
            }
        )
        record = build_pipeline_execution_record(step)
        _is_the_encoders(record, record.json_text)
        assert record == pipeline_execution_item(step)


@settings(max_examples=200, deadline=None)
@given(
    ids=st.lists(st.tuples(_TEXT, _TEXT, _WHOLE_SECONDS, _MOMENT), min_size=1, max_size=3),
    constant=st.fixed_dictionaries(
        {
            "attempt": st.integers(min_value=1, max_value=3),
            "status": st.sampled_from(list(StepStatus)),
            "trigger": st.sampled_from(list(AttemptTrigger)),
        }
    ),
)
def test_an_attempts_text_is_the_encoders(
    ids: list[tuple[str, str, datetime, datetime | None]], constant: dict[str, Any]
) -> None:
    for step_id, run_id, start, stop in ids:  # the second and third from the first's template
        moments: dict[str, Any] = {"start_date": start, "stop_date": stop}
        attempt = TaskExecution(
            pipeline_execution_id=step_id, workflow_execution_id=run_id, **moments, **constant
        )
        record = build_task_execution_record(attempt)
        _is_the_encoders(record, record.json_text)


_AMOUNT = st.decimals(allow_nan=False, allow_infinity=False, places=3)


@settings(max_examples=200, deadline=None)
@given(
    entries=st.lists(
        st.tuples(_TEXT, _TEXT, _TEXT, _AMOUNT, _WHOLE_SECONDS, st.none() | _TEXT),
        min_size=1,
        max_size=3,
    ),
    constant=st.fixed_dictionaries(
        {
            "attempt": st.integers(min_value=1, max_value=3),
            "workflow_database_id": _TEXT,
            "workflow_id": _TEXT,
            "execution_group_id": st.none() | _TEXT,
            "asset_keys": st.lists(_TEXT, max_size=2).map(tuple),
            "kind": st.sampled_from(list(CostKind)),
            "unit": _TEXT,
            "basis": st.sampled_from(list(CostBasis)),
            "source": st.sampled_from(list(CostSource)),
        }
    ),
    price=st.none() | st.tuples(_AMOUNT, _TEXT),
)
def test_a_cost_entrys_text_is_the_encoders(
    entries: list[tuple[str, str, str, Decimal, datetime, str | None]],
    constant: dict[str, Any],
    price: tuple[Decimal, str] | None,
) -> None:
    for entry_id, run_id, step_id, quantity, moment, supersedes in entries:
        entry = CostLedgerEntry(
            entry_id=entry_id,
            workflow_execution_id=run_id,
            pipeline_execution_id=step_id,
            quantity=quantity,
            recorded_at=moment,
            supersedes=None if supersedes == entry_id else supersedes,
            unit_price=None if price is None else price[0],
            currency=None if price is None else price[1],
            amount=None if price is None else price[0],
            **constant,
        )
        record = build_cost_ledger_record(entry)
        _is_the_encoders(record, record.json_text)
        assert record == cost_ledger_item(entry)


def test_equal_prices_of_other_texts_are_each_written_as_given() -> None:
    for price in (Decimal("0.5"), Decimal("0.50"), Decimal("0.5E0")):  # equal, not alike
        entry = CostLedgerEntry(
            entry_id="e-1",
            workflow_execution_id="run-1",
            pipeline_execution_id="step-1",
            attempt=1,
            workflow_database_id="db",
            workflow_id="wf",
            kind=CostKind.DURATION,
            quantity=Decimal(2),
            unit="s",
            unit_price=price,
            currency="USD",
            amount=Decimal(1),
            basis=CostBasis.ACTUAL,
            source=CostSource.RUNNER,
            recorded_at=datetime(2026, 12, 8, tzinfo=UTC),
        )
        record = build_cost_ledger_record(entry)
        assert record["unitPrice"] == str(price)
        _is_the_encoders(record, record.json_text)


@settings(max_examples=200, deadline=None)
@given(
    logs=st.lists(st.tuples(_TEXT, _TEXT, _TEXT, _TEXT), min_size=1, max_size=3),
    log_type=st.sampled_from(["summary", "error", _MARK]),
    status=st.sampled_from(["SUCCEEDED", "FAILED", "ABORTED"]),
)
def test_a_step_logs_text_is_the_encoders(
    logs: list[tuple[str, str, str, str]], log_type: str, status: str
) -> None:
    for step_id, run_id, message, location in logs:  # the second and third from the first's
        record = build_step_log_record(
            StepLog(
                pipeline_execution_id=step_id,
                workflow_execution_id=run_id,
                log_type=log_type,
                status=status,
                message=message,
                log_location=location,
            )
        )
        _is_the_encoders(record, record.json_text)


def test_a_marks_character_or_a_varying_value_missing_or_not_text_encodes_it_whole() -> None:
    templates = IdTemplates(("a", "b"))
    marked = {"a": "1", "b": "2", "c": _MARK}
    assert templates.text("marked", marked) == encode_compact(marked)
    assert templates.text("marked", marked | {"a": "3"}) == encode_compact(marked | {"a": "3"})
    plain = {"a": "1", "b": "2", "c": "x"}
    assert templates.text("plain", plain) == encode_compact(plain)
    assert templates.text("plain", plain | {"b": 7}) == '{"a":"1","b":7,"c":"x"}'
    assert templates.text("plain", {"a": "1", "c": "x"}) == '{"a":"1","c":"x"}'


def test_templates_past_the_size_are_dropped_and_made_again() -> None:
    templates = IdTemplates(("a",), size=2)
    for rest in range(5):
        item = {"a": f"id-{rest}", "c": rest}
        assert templates.text(rest, item) == encode_compact(item)
    assert templates.text(0, {"a": "z", "c": 0}) == '{"a":"z","c":0}'


@settings(max_examples=200, deadline=None)
@given(
    items=st.lists(
        st.tuples(_TEXT, st.none() | _TEXT | st.integers(), st.booleans()), min_size=1, max_size=4
    )
)
def test_a_value_its_builder_left_out_of_the_rest_costs_a_template_never_a_wrong_text(
    items: list[tuple[str, str | int | None, bool]],
) -> None:
    templates = IdTemplates(("id",))
    for identifier, other, extra in items:
        item: dict[str, object] = {"id": identifier, "other": other}
        if extra:
            item = {"extra": [other], **item}  # another key, first: the order differs too
        assert templates.text("the same rest for every item", item) == encode_compact(item)


def test_a_row_kept_with_a_marks_character_or_a_varying_value_not_text_is_not_kept() -> None:
    rows = RowTemplates(("a", "b"))
    rows.keep("marked", {"a": "1", "b": "2", "c": _MARK})
    rows.keep("number", {"a": "1", "b": 2, "c": "x"})
    rows.keep("missing", {"a": "1", "c": "x"})
    assert rows.row("marked", ("3", "4")) is None
    assert rows.row("number", ("3", "4")) is None
    assert rows.row("missing", ("3", "4")) is None
    rows.keep("plain", {"a": "1", "c": [""], "b": "2"})
    item, text = rows.row("plain", ('"\x7f', "\u00e9")) or ({}, "")
    assert item == {"a": '"\x7f', "c": [""], "b": "\u00e9"}
    assert text == encode_compact(item)


def test_rows_past_the_size_are_dropped() -> None:
    rows = RowTemplates(("a",), size=2)
    for key in range(3):
        rows.keep(key, {"a": f"id-{key}", "c": key})
    assert rows.row(0, ("z",)) is None
    assert rows.row(2, ("z",)) == ({"a": "z", "c": 2}, '{"a":"z","c":2}')


def _a_launched_run(
    status: ExecutionStatus, execution_error: str | None = None
) -> WorkflowExecution:
    return WorkflowExecution(
        workflow_execution_id="run-1",
        workflow_database_id="db",
        workflow_id="wf",
        workflow_version=1,
        status=status,
        execution_start_date=datetime(2026, 12, 7, tzinfo=UTC),
        triggered_by_user_id="user",
        trigger_type=TriggerType.MANUAL,
        execution_error=execution_error,
        request_digest="digest",
    )


def test_a_kept_launch_row_is_redacted_of_the_secrets_registered_since() -> None:
    configuration = StepInputConfiguration(
        pipeline_execution_id="step-1",
        workflow_execution_id="run-1",
        execution_type=ExecutionType.PYTHON,
        handler="steps.hunter2hunter2:run",
        command=("run", "--key=hunter2hunter2"),
        input_file_arity=InputFileArity.NONE,
    )
    execution = _a_launched_run(
        status=ExecutionStatus.FAILED, execution_error="failed with hunter2hunter2"
    )
    try:
        for secrets in ((), ("hunter2hunter2",)):
            configure_redaction(secrets)
            for run_id in ("run-1", "run-2"):  # the second from the first one's kept row
                built = build_step_input_configuration_record(
                    configuration.model_copy(update={"workflow_execution_id": run_id})
                )
                row = build_execution_record(
                    execution.model_copy(update={"workflow_execution_id": run_id})
                )
                assert ("hunter2hunter2" in str(built.json_text)) == (not secrets)
                assert ("hunter2hunter2" in str(row.json_text)) == (not secrets)
    finally:
        configure_redaction(())


def test_a_launched_row_without_a_digest_or_a_lease_owner_is_built_whole() -> None:
    execution = _a_launched_run(status=ExecutionStatus.RUNNING)
    at = datetime(2026, 12, 7, 0, 0, 1, tzinfo=UTC)
    for owner, digest in (("runner-1", "digest"), ("", "digest"), ("runner-1", "")):
        lease = RunnerLease(owner=owner, renewed_date=at, expires_date=at + timedelta(30))
        run = execution.model_copy(update={"runner_lease": lease, "request_digest": digest})
        record = build_execution_record(run)
        assert record == execution_item(run)
        _is_the_encoders(record, record.json_text)
