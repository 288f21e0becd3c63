"""The item shapes of seed 000, built once for both storage adapters."""

from datetime import UTC, datetime, timedelta, timezone
from enum import StrEnum

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters import records, run_records, step_records
from domain.execution import (
    ExecutionConfiguration,
    ExecutionInput,
    PipelineExecution,
    RunnerLease,
    WorkflowExecution,
)
from domain.statuses import ExecutionStatus
from domain.triggers import TriggerType
from domain.workflow import ExecutionType, InputFileArity

START = datetime(2026, 11, 29, 9, 0, 0, 123456, tzinfo=UTC)


def an_execution(**changes: object) -> WorkflowExecution:
    values: dict[str, object] = {
        "workflow_execution_id": "e1",
        "workflow_database_id": "db",
        "workflow_id": "wf",
        "workflow_version": 2,
        "status": ExecutionStatus.RUNNING,
        "execution_start_date": START,
        "triggered_by_user_id": "alice",
        "trigger_type": TriggerType.MANUAL,
    }
    return WorkflowExecution.model_validate(values | changes)


def a_step(**changes: object) -> PipelineExecution:
    values: dict[str, object] = {
        "pipeline_execution_id": "p1",
        "workflow_execution_id": "e1",
        "pipeline_database_id": "db",
        "pipeline_id": "stats",
        "step_index": 0,
        "execution_type": ExecutionType.PYTHON,
        "input_file_arity": InputFileArity.MANY,
        "end_state": False,
        "input_path": "assets/db/a/",
        "output_files_path": "executions/e1/output/",
        "output_preview_path": "executions/e1/output/preview/",
        "output_metadata_path": "executions/e1/output/metadata/",
        "auxiliary_path": "executions/e1/auxiliary/p1/",
    }
    return PipelineExecution.model_validate(values | changes)


def test_the_main_row_has_colon_joined_keys_and_the_global_list_partition() -> None:
    item = run_records.build_execution_record(an_execution())
    assert item["workflowExecutionId"] == "e1"
    assert item["workflowDatabaseId:workflowId"] == "db:wf"
    assert item["allListPartition"] == "execution"
    assert item["executionStatus"] == "RUNNING"
    # VAMS's date format: whole seconds, what VAMS parses
    assert item["executionStartDate"] == "2026-11-29T09:00:00Z"


def test_an_ungrouped_run_has_no_group_attribute_at_all() -> None:
    assert "executionGroupId" not in run_records.build_execution_record(an_execution())
    assert "executionGroupId" not in run_records.build_execution_record(
        an_execution(execution_group_id="")
    )
    grouped = run_records.build_execution_record(an_execution(execution_group_id="batch-7"))
    assert grouped["executionGroupId"] == "batch-7"


def test_an_open_run_has_vams_empty_values_for_what_it_has_not_got_yet() -> None:
    item = run_records.build_execution_record(an_execution())
    for empty in (
        "executionStopDate",
        "lastSfnSyncCheckDate",
        "executionError",
        "executionLog",
        "workflow_arn",
        "workflow_execution_arn",
        "executionLogGroupArn",
    ):
        assert item[empty] == ""
    assert "redriveDate" not in item  # wfx's own: absent until set


def test_a_root_step_has_no_predecessor_attribute_and_a_later_step_has_one() -> None:
    assert "from_pipeline_execution_id" not in step_records.build_pipeline_execution_record(
        a_step()
    )
    later = step_records.build_pipeline_execution_record(a_step(from_pipeline_execution_id="p0"))
    assert later["from_pipeline_execution_id"] == "p0"


def test_a_step_row_reserves_the_credential_vending_fields() -> None:
    item = step_records.build_pipeline_execution_record(a_step(end_state=True))
    assert item["credentialVendingState"] == "notVended"
    assert item["endStatePipeline"] == "true"
    assert item["pipelineDatabaseId:pipelineId"] == "db:stats"


def test_a_step_row_keeps_the_source_its_pipeline_registers_under() -> None:
    prefix = "wfx.execution.e1.pipeline.p1"
    step = a_step(orchestration_bus_event_prefix=prefix)
    item = step_records.build_pipeline_execution_record(step)
    assert item["orchestrationBusEventPrefix"] == prefix
    assert step_records.parse_pipeline_execution_record(item) == step


def test_a_step_row_without_a_recorded_source_reads_as_vams_empty_value() -> None:
    item = dict(step_records.build_pipeline_execution_record(a_step()))
    assert item["orchestrationBusEventPrefix"] == ""
    del item["orchestrationBusEventPrefix"]  # a row written before wfx recorded it
    assert step_records.parse_pipeline_execution_record(item).orchestration_bus_event_prefix == ""


def test_a_results_only_configuration_has_no_output_asset_key() -> None:
    config = ExecutionConfiguration(
        workflow_execution_id="e1",
        workflow_key="db:wf",
        workflow_version=1,
        execution_start_date=START,
    )
    item = run_records.build_execution_configuration_record(config)
    assert item["recordType"] == "configuration"
    assert "outputDatabaseId:outputAssetId" not in item
    targeted = config.model_copy(update={"output_database_id": "db", "output_asset_id": "out"})
    assert (
        run_records.build_execution_configuration_record(targeted)["outputDatabaseId:outputAssetId"]
        == "db:out"
    )


def test_a_configuration_snapshot_reads_vams_references_and_its_earlier_entries() -> None:
    config = ExecutionConfiguration(
        workflow_execution_id="e1",
        workflow_key="db:wf",
        workflow_version=1,
        execution_start_date=START,
        specified_pipelines=(("db", "scan"), ("GLOBAL", "convert")),
    )
    item = dict(run_records.build_execution_configuration_record(config))
    assert item["specifiedPipelinesSnapshot"][1] == {
        "pipelineDatabaseId": "GLOBAL",
        "pipelineId": "convert",
        "pipelineDatabaseId:pipelineId": "GLOBAL:convert",
        "jobName": "",
        "defaultTemplateId": "",
    }
    assert run_records.parse_execution_configuration_record(item) == config
    # VAMS before 2.6 snapshotted `{name, databaseId}`; a malformed entry is left out
    item["specifiedPipelinesSnapshot"] = [{"name": "p1", "databaseId": "db"}, "junk", {}]
    assert run_records.parse_execution_configuration_record(item).specified_pipelines == (
        ("db", "p1"),
    )


def test_an_input_row_pins_the_version_and_keys_the_asset() -> None:
    row = ExecutionInput(
        workflow_execution_id="e1",
        workflow_key="db:wf",
        database_id="db",
        asset_id="a",
        input_asset_file_key="meshes/cube.obj",
        bucket="wfx-local",
        asset_root_key="assets/db/a/",
        version_id="v1",
        execution_start_date=START,
    )
    item = run_records.build_execution_input_record(row)
    assert item["databaseId:assetId:inputAssetFileKey"] == "db:a:meshes/cube.obj"
    assert item["databaseId:assetId"] == "db:a"
    assert item["versionId"] == "v1"
    assert run_records.parse_execution_input_record(item) == row


def test_records_round_trip() -> None:
    execution = an_execution(
        execution_group_id="g",
        status=ExecutionStatus.FAILED,
        execution_stop_date=START,
        execution_error="boom",
        execution_log="log",
    )
    assert (
        run_records.parse_execution_record(run_records.build_execution_record(execution))
        == execution
    )
    step = a_step(from_pipeline_execution_id="p0", error="x")
    assert (
        step_records.parse_pipeline_execution_record(
            step_records.build_pipeline_execution_record(step)
        )
        == step
    )


REQUIRED_ITEM = {
    "workflowExecutionId": "e1",
    "workflowDatabaseId:workflowId": "db:wf",
    "workflowDatabaseId": "db",
    "workflowId": "wf",
    "workflowVersion": 2,
    "executionStartDate": "2026-11-29T09:00:00.123456Z",
    "triggeredByUserId": "alice",
    "triggerType": "Manual",
    "executionStatus": "RUNNING",
}


VAMS_ITEM = {key: value for key, value in REQUIRED_ITEM.items() if key != "workflowVersion"} | {
    "workflow_arn": "",
    "workflow_execution_arn": "",
    "executionLogGroupArn": "",
    "executionStopDate": "",
    "lastSfnSyncCheckDate": "",
    "executionError": "",
    "executionLog": "",
    "allListPartition": "execution",
}


def test_a_main_row_as_vams_writes_it_parses_to_a_step_functions_run_of_no_version() -> None:
    parsed = run_records.parse_execution_record(dict(VAMS_ITEM))

    assert parsed == an_execution(workflow_version=0, orchestrator="stepfunctions")
    assert parsed.execution_error is None and parsed.execution_stop_date is None


def test_a_main_row_with_only_its_required_attributes_parses_to_the_defaults() -> None:
    # every optional field spelled out: the values the parse passed explicitly before it left
    # absent attributes to the model's defaults
    expected = an_execution(
        **dict.fromkeys(
            (
                "execution_group_id",
                "execution_stop_date",
                "last_sfn_sync_check_date",
                "state_machine_arn",
                "execution_arn",
                "execution_log",
                "execution_log_object_key",
                "execution_error",
                "execution_cause",
                "redrive_date",
                "redrive_status",
                "redrive_status_reason",
                "client_token",
                "request_digest",
                "abort_requested_date",
                "abort_cause",
                "runner_lease",
            )
        ),
        orchestrator="stepfunctions",  # a row with no orchestrator: VAMS launched it
        redrive_count=0,
    )

    parsed = run_records.parse_execution_record(dict(REQUIRED_ITEM))

    assert parsed == expected
    assert parsed.model_dump() == expected.model_dump()
    assert parsed.execution_start_date.tzinfo is UTC


def test_a_main_row_with_every_attribute_parses_to_every_field() -> None:
    later = "2026-11-29T10:00:00.000001Z"
    item = REQUIRED_ITEM | {
        "executionGroupId": "g",
        "executionStopDate": later,
        "lastSfnSyncCheckDate": later,
        "orchestrator": "stepfunctions",
        "stateMachineArn": "arn:sm",
        "executionArn": "arn:ex",
        "executionLog": "tail",
        "executionLogTruncated": True,
        "executionLogObjectKey": "executions/e1/logs/execution.log",
        "executionError": "boom: why",
        "executionCause": "why",
        "redriveCount": 3,
        "redriveDate": later,
        "redriveStatus": "NOT_REDRIVABLE",
        "redriveStatusReason": "no",
        "clientToken": "t",
        "requestDigest": "d",
        "abortRequestedDate": later,
        "abortCause": "stop",
        "runnerLeaseOwner": "host:1:x",
        "runnerLeaseRenewedDate": later,
        "runnerLeaseExpiresDate": "2026-11-29T10:00:30.000001Z",
        "allListPartition": "execution",
    }
    at = datetime(2026, 11, 29, 10, 0, 0, 1, tzinfo=UTC)
    expected = an_execution(
        execution_group_id="g",
        execution_stop_date=at,
        last_sfn_sync_check_date=at,
        orchestrator="stepfunctions",
        state_machine_arn="arn:sm",
        execution_arn="arn:ex",
        execution_log="tail",
        execution_log_object_key="executions/e1/logs/execution.log",
        execution_error="boom: why",
        execution_cause="why",
        redrive_count=3,
        redrive_date=at,
        redrive_status="NOT_REDRIVABLE",
        redrive_status_reason="no",
        client_token="t",
        request_digest="d",
        abort_requested_date=at,
        abort_cause="stop",
        runner_lease=RunnerLease(
            owner="host:1:x", renewed_date=at, expires_date=at + timedelta(seconds=30)
        ),
    )

    parsed = run_records.parse_execution_record(item)

    assert parsed == expected
    assert parsed.model_dump() == expected.model_dump()
    assert (
        run_records.parse_execution_record(run_records.build_execution_record(expected)) == expected
    )


def test_an_empty_optional_date_reads_as_absent() -> None:
    parsed = run_records.parse_execution_record(REQUIRED_ITEM | {"executionStopDate": ""})
    assert parsed.execution_stop_date is None


def test_a_status_update_removes_what_has_no_value_and_empties_what_vams_always_has() -> None:
    present, removed = run_records.execution_mutable_attributes(an_execution())
    assert present["executionStatus"] == "RUNNING"
    assert present["executionStopDate"] == "" and "executionStopDate" not in removed
    assert "abortCause" in removed and "abortCause" not in present


@given(
    st.datetimes(
        min_value=datetime(2000, 1, 1), max_value=datetime(2200, 1, 1), timezones=st.just(UTC)
    )
)
def test_dates_sort_as_text_in_time_order(moment: datetime) -> None:
    text = records.format_date(moment)
    assert text.endswith("Z") and len(text) == 27
    assert records.parse_date(text) == moment
    start_text = records.format_date(START)
    assert (start_text < text) == (moment > START)


def test_a_status_update_never_removes_the_orchestrator_references() -> None:
    """A save from a read taken before the launch recorded its ARN must not drop the ARN."""
    _, removed = run_records.execution_mutable_attributes(an_execution())
    assert "workflow_execution_arn" not in removed and "workflow_arn" not in removed
    with_arn = an_execution(execution_arn="arn:aws:states:us-east-1:1:execution:sm:e1")
    written = run_records.execution_mutable_attributes(with_arn)[0]
    assert written["workflow_execution_arn"].endswith(":e1")
    changed, _ = run_records.execution_changed_attributes(with_arn, an_execution())
    assert "workflow_execution_arn" not in changed  # an older read writes no "" over it


def test_an_output_file_s_stored_content_type_is_read_and_a_missing_one_named_by_its_path() -> None:
    from adapters.output_records import build_output_file_record, parse_output_file_record

    stored = {
        "pipelineExecutionId": "s1",
        "fileType": "file",
        "relativeFilePath": "mesh.zzq",
        "s3Key": "x/mesh.zzq",
        "fileSize": 3,
        "contentType": "model/x-vendor-mesh",  # VAMS keeps S3's type, no guess names it
    }
    assert parse_output_file_record(stored).content_type == "model/x-vendor-mesh"
    guessed = parse_output_file_record({**stored, "relativeFilePath": "p.png", "contentType": ""})
    assert guessed.content_type == "image/png"
    # wfx writes what it holds, so a row reads back as it was
    assert build_output_file_record(guessed)["contentType"] == "image/png"
    unknown = parse_output_file_record({k: v for k, v in stored.items() if k != "contentType"})
    assert unknown.content_type == ""


@given(
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2200, 1, 1)),
    st.sampled_from([UTC, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=8))]),
)
def test_a_kept_date_text_is_the_text_of_its_moment_in_whatever_zone_it_comes(
    local: datetime, zone: timezone
) -> None:
    moment = local.replace(tzinfo=zone)
    utc = moment.astimezone(UTC)
    expected = utc.strftime(records.DATE_FORMAT)
    expected_table = utc.strftime(records.TABLE_DATE_FORMAT)
    for _ in range(2):  # formatted, then kept
        assert records.format_date(moment) == records.format_date(utc) == expected
        assert records.format_table_date(moment) == expected_table
        assert records.format_table_date(utc) == expected_table


@pytest.mark.parametrize("microsecond", [0, 1, 990536])
def test_a_moment_formatted_for_a_vams_table_first_has_its_full_text_too(microsecond: int) -> None:
    moment = datetime(2026, 12, 4, 20, 55, 36, microsecond, tzinfo=UTC)
    assert records.format_table_date(moment) == "2026-12-04T20:55:36Z"
    assert records.format_date(moment) == f"2026-12-04T20:55:36.{microsecond:06d}Z"
    naive = moment.replace(tzinfo=None)
    assert records.format_date(naive) == records.format_date(naive.astimezone(UTC))


def test_every_enum_a_record_builder_writes_is_a_str_enum_whose_str_is_its_value() -> None:
    # the builders write str(member) (records.py): an Enum whose str() were "Class.NAME"
    # would change every row it is in
    from domain.attempts import AttemptTrigger
    from domain.costs import CostBasis, CostKind, CostSource
    from domain.events import EventType
    from domain.statuses import StepStatus

    written = (
        AttemptTrigger,
        CostBasis,
        CostKind,
        CostSource,
        EventType,
        ExecutionStatus,
        ExecutionType,
        InputFileArity,
        StepStatus,
        TriggerType,
    )
    for enum in written:
        for member in enum:
            assert isinstance(member, StrEnum)
            text = str(member)
            assert text == member.value and type(text) is str
