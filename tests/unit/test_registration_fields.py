"""Field-level validation of a registration event (as VAMS: a bad field is dropped, the rest
kept), wfx's former sub-execution shape converted, and the stored-entry upgrade."""

from __future__ import annotations

import pytest

from adapters.step_records import sub_execution_entry, upgrade_sub_execution_entry
from domain.logs import RegisteredLog, RegisteredSubExecution
from domain.registration import normalize_log, normalize_sub_execution

RUN = "arn:aws:states:us-east-1:123456789012:execution:inner:run-1"
MACHINE = "arn:aws:states:us-east-1:123456789012:stateMachine:inner"
JOB_ARN = "arn:aws:batch:us-east-1:123456789012:job/4c2a6f0e"
FARM, QUEUE, JOB = "farm-" + "a" * 32, "queue-" + "b" * 32, "job-" + "c" * 32


def test_every_valid_locator_key_is_kept() -> None:
    raw = {
        "resourceType": "ecsTask",
        "taskArn": "arn:aws:ecs:us-east-1:123456789012:task/c/t",
        "clusterArn": "arn:aws:ecs:us-east-1:123456789012:cluster/c",
        "stageName": "Render",
        "label": "render task",
    }

    assert normalize_sub_execution(raw) == (
        RegisteredSubExecution(
            resource_type="ecsTask",
            task_arn=raw["taskArn"],
            cluster_arn=raw["clusterArn"],
            stage_name="Render",
            label="render task",
        ),
        (),
    )


def test_a_missing_resource_type_is_a_step_functions_execution() -> None:
    sub, dropped = normalize_sub_execution({"stateMachineArn": MACHINE, "executionArn": RUN})
    assert sub == RegisteredSubExecution(
        resource_type="stepFunctionsExecution", state_machine_arn=MACHINE, execution_arn=RUN
    )
    assert dropped == ()


def test_an_invalid_locator_key_is_dropped_and_named_and_the_others_kept() -> None:
    sub, dropped = normalize_sub_execution(
        {"resourceType": "batchJob", "jobId": "no spaces!", "jobArn": JOB_ARN, "label": "\x07"}
    )
    assert sub == RegisteredSubExecution(resource_type="batchJob", job_arn=JOB_ARN)
    assert dropped == (
        "subExecution.jobId: must be 3 to 63 letters, digits, '-' or '_'; dropped",
        "subExecution.label: must be 1 to 256 characters, no controls; dropped",
    )


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ({"resourceType": "batchJob"}, "subExecution: no valid locator"),
        ({"resourceType": "bad type!", "jobId": "job-1"}, "subExecution.resourceType: must be"),
        ({"executionArn": "not an arn"}, "subExecution.executionArn: must be an ARN"),
        ("a string", "subExecution: must be an object"),
        ({"resourceType": "batch", "resourceId": ""}, "subExecution.resourceId: must be"),
    ],
)
def test_an_entry_left_without_a_locator_is_dropped_whole(raw: object, reason: str) -> None:
    sub, dropped = normalize_sub_execution(raw)
    assert sub is None
    assert any(problem.startswith(reason) for problem in dropped)


def test_an_unknown_key_is_reported_and_the_entry_kept() -> None:
    sub, dropped = normalize_sub_execution({"executionArn": RUN, "colour": "red"})
    assert sub is not None
    assert dropped == ("subExecution.colour: not a field of this entry; dropped",)


@pytest.mark.parametrize(
    ("old", "typed"),
    [
        (
            {"resourceType": "stepFunctions", "resourceId": RUN, "label": "x"},
            RegisteredSubExecution(
                resource_type="stepFunctionsExecution", execution_arn=RUN, label="x"
            ),
        ),
        (
            {"resourceType": "batch", "resourceId": "job-1"},
            RegisteredSubExecution(resource_type="batchJob", job_id="job-1"),
        ),
        (
            {"resourceType": "batch", "resourceId": JOB_ARN},
            RegisteredSubExecution(resource_type="batchJob", job_arn=JOB_ARN),
        ),
        (
            {"resourceType": "deadline", "resourceId": f"{FARM}/{QUEUE}/{JOB}"},
            RegisteredSubExecution(
                resource_type="deadlineCloudJob", farm_id=FARM, queue_id=QUEUE, job_id=JOB
            ),
        ),
        (
            {
                "resourceType": "deadline",
                "resourceId": f"arn:aws:deadline:us-east-1:123456789012:farm/{FARM}"
                f"/queue/{QUEUE}/job/{JOB}",
            },
            RegisteredSubExecution(
                resource_type="deadlineCloudJob", farm_id=FARM, queue_id=QUEUE, job_id=JOB
            ),
        ),
        (
            {"resourceType": "localProcess", "resourceId": "4242"},
            RegisteredSubExecution(resource_type="localProcess", local_process_id="4242"),
        ),
    ],
)
def test_wfx_former_entry_is_converted_to_the_typed_locator(
    old: dict[str, str], typed: RegisteredSubExecution
) -> None:
    assert normalize_sub_execution(old) == (typed, ())
    # the stored entry upgrades to the same locator, and its one id reads back to it
    assert upgrade_sub_execution_entry(old | {"label": old.get("label", "")}) == (
        sub_execution_entry(typed)
    )
    assert RegisteredSubExecution.of_resource(typed.resource_type, typed.resource_id) == (
        typed.model_copy(update={"label": ""})
    )


def test_the_upgrade_leaves_a_typed_entry_as_it_is() -> None:
    entry = {"resourceType": "batchJob", "jobId": "job-1", "stageName": "S"}
    assert upgrade_sub_execution_entry(entry) == entry


def test_a_typed_entry_is_stored_with_vams_keys_and_no_empty_ones() -> None:
    sub = RegisteredSubExecution(resource_type="stepFunctionsExecution", execution_arn=RUN)
    assert sub_execution_entry(sub) == {
        "resourceType": "stepFunctionsExecution",
        "executionArn": RUN,
    }


def test_a_log_keeps_its_valid_fields_and_an_unknown_source_type_is_custom() -> None:
    log, dropped = normalize_log(
        {
            "logGroupName": "/aws/batch/job",
            "logStreamName": "a*b",
            "logStreamPrefix": "render/",
            "stageName": "Render",
            "sourceType": "kubernetes",
        }
    )
    assert log == RegisteredLog(
        log_group_name="/aws/batch/job",
        log_stream_prefix="render/",
        stage_name="Render",
        source_type="custom",
    )
    assert [problem.split(":")[0] for problem in dropped] == [
        "logs[0].logStreamName",
        "logs[0].sourceType",
    ]


@pytest.mark.parametrize(
    "raw",
    [
        {"logStreamName": "s"},
        {"logGroupArn": "arn:aws:s3:::bucket"},
        {"logGroupName": "spaces are not allowed"},
        ["not", "an", "object"],
    ],
)
def test_a_log_without_a_valid_group_is_dropped_whole(raw: object) -> None:
    log, dropped = normalize_log(raw)
    assert log is None and dropped
