"""Step types: lambda and batch for Step Functions, retry policies, the fields each type takes."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import ValidationError

from adapters.records import (
    build_step_definition_records,
    build_workflow_version_record,
    parse_workflow_version_record,
)
from application.use_cases.publish_workflow_version import _digest, _steps
from application.workflow_documents import parse_workflow_document
from domain.errors import InvalidInputError
from domain.workflow import ExecutionType, RetryPolicy, StepDefinition, WorkflowVersion

FUNCTION_ARN = "arn:aws:lambda:us-east-1:123456789012:function:mesh-convert"


def _document(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"databaseId": "demo", "workflowId": "mesh", "steps": list(steps)}


def _problem(step: dict[str, Any]) -> str:
    with pytest.raises(InvalidInputError) as refused:
        parse_workflow_document(_document(step))
    return str(refused.value)


def test_a_lambda_step_takes_a_function_name_or_arn_and_an_optional_callback() -> None:
    document = parse_workflow_document(
        _document(
            {"pipelineId": "a", "executionType": "lambda", "functionName": "mesh-convert"},
            {
                "pipelineId": "b",
                "executionType": "lambda",
                "functionName": FUNCTION_ARN,
                "waitForCallback": True,
            },
        )
    )
    first, second = _steps(document)
    assert (first.function_name, first.wait_for_callback) == ("mesh-convert", False)
    assert (second.function_name, second.wait_for_callback) == (FUNCTION_ARN, True)


def test_a_batch_step_takes_a_job_queue_and_a_job_definition() -> None:
    document = parse_workflow_document(
        _document(
            {
                "pipelineId": "render",
                "executionType": "batch",
                "jobQueue": "wfx-queue",
                "jobDefinition": "render:3",
            }
        )
    )
    (step,) = _steps(document)
    assert (step.job_queue, step.job_definition) == ("wfx-queue", "render:3")


@pytest.mark.parametrize(
    ("step", "message"),
    [
        (
            {"pipelineId": "x", "executionType": "lambda"},
            "steps[0]: functionName: a lambda step needs functionName",
        ),
        (
            {"pipelineId": "x", "executionType": "lambda", "functionName": "has space"},
            "steps[0]: functionName: expected a Lambda function name or ARN, got 'has space'",
        ),
        (
            {"pipelineId": "x", "executionType": "batch", "jobQueue": "q"},
            "steps[0]: jobDefinition: a batch step needs jobDefinition",
        ),
        (
            {"pipelineId": "x", "executionType": "batch", "jobDefinition": "d"},
            "steps[0]: jobQueue: a batch step needs jobQueue",
        ),
        (
            {"pipelineId": "x", "executionType": "lambda", "functionName": "f", "jobQueue": "q"},
            "steps[0]: jobQueue: only a batch step takes jobQueue",
        ),
        (
            {
                "pipelineId": "x",
                "executionType": "batch",
                "jobQueue": "q",
                "jobDefinition": "d",
                "waitForCallback": False,
            },
            "steps[0]: waitForCallback: only a lambda step takes waitForCallback",
        ),
        (
            {"pipelineId": "x", "executionType": "python", "handler": "m:f", "functionName": "f"},
            "steps[0]: functionName: only a lambda step takes functionName",
        ),
        (
            {"pipelineId": "x", "executionType": "lambda", "functionName": "f", "command": ["a"]},
            "steps[0]: command: only a command step takes command",
        ),
        (
            {"pipelineId": "x", "executionType": "command", "command": ["a"], "handler": "m:f"},
            "steps[0]: handler: only a python step takes handler",
        ),
    ],
)
def test_each_type_requires_its_own_fields_and_refuses_the_others(
    step: dict[str, Any], message: str
) -> None:
    assert _problem(step).startswith(message)


def test_an_unknown_step_type_is_refused_naming_the_field() -> None:
    problem = _problem({"pipelineId": "x", "executionType": "ecs", "functionName": "f"})
    assert problem.startswith("steps[0].executionType:")


def test_a_retry_policy_is_read_with_defaults_for_what_it_leaves_out() -> None:
    document = parse_workflow_document(
        _document(
            {
                "pipelineId": "x",
                "executionType": "lambda",
                "functionName": "f",
                "retry": {"maxAttempts": 4, "backoffRate": 1.5},
            }
        )
    )
    (step,) = _steps(document)
    assert step.retry == RetryPolicy(max_attempts=4, interval_seconds=1, backoff_rate=1.5)


@pytest.mark.parametrize(
    ("retry", "field"),
    [
        ({"maxAttempts": 0}, "retry.maxAttempts"),
        ({"maxAttempts": 11}, "retry.maxAttempts"),
        ({"intervalSeconds": 0}, "retry.intervalSeconds"),
        ({"backoffRate": 0.5}, "retry.backoffRate"),
        ({"maxAtempts": 2}, "retry.maxAtempts: unknown key"),
    ],
)
def test_a_retry_policy_out_of_bounds_or_misspelt_is_refused_naming_the_key(
    retry: dict[str, Any], field: str
) -> None:
    step = {"pipelineId": "x", "executionType": "lambda", "functionName": "f", "retry": retry}
    assert _problem(step).startswith(f"steps[0].{field}")


def test_a_retry_policy_waits_longer_after_each_attempt() -> None:
    policy = RetryPolicy(max_attempts=4, interval_seconds=2, backoff_rate=3.0)
    assert [policy.delay_before(n) for n in (2, 3, 4)] == [2.0, 6.0, 18.0]


def test_the_domain_refuses_a_step_whose_fields_do_not_fit_its_type() -> None:
    with pytest.raises(ValidationError, match="jobQueue: only a batch step takes jobQueue"):
        StepDefinition(
            pipeline_id="x",
            pipeline_database_id="demo",
            execution_type=ExecutionType.LAMBDA,
            function_name="f",
            job_queue="q",
        )


def test_lambda_batch_and_retry_fields_survive_the_stored_record() -> None:
    document = parse_workflow_document(
        _document(
            {
                "pipelineId": "a",
                "executionType": "lambda",
                "functionName": FUNCTION_ARN,
                "waitForCallback": True,
                "retry": {"maxAttempts": 3, "intervalSeconds": 5, "backoffRate": 1.5},
            },
            {"pipelineId": "b", "executionType": "batch", "jobQueue": "q", "jobDefinition": "d:1"},
            {"pipelineId": "c", "executionType": "python", "handler": "m:f"},
        )
    )
    steps = _steps(document)
    version = WorkflowVersion(
        database_id="demo",
        workflow_id="mesh",
        version=1,
        steps=steps,
        published_at=datetime(2026, 11, 29, tzinfo=UTC),
        digest=_digest("", steps),
    )
    record = build_workflow_version_record(version)
    rows = build_step_definition_records(version)
    assert rows[0]["waitForCallback"] is True
    assert rows[0]["retry"] == {
        "maxAttempts": 3,
        "intervalSeconds": 5,
        "backoffRate": 1.5,
    }
    assert "waitForCallback" not in rows[1]  # sparse: absent when false
    assert "retry" not in rows[2]
    assert parse_workflow_version_record(record, rows) == version


def test_a_local_only_file_keeps_the_digest_it_had_before_the_new_step_fields() -> None:
    """The digest of a python/command workflow, as computed before lambda/batch/retry existed
    (the canonical dump then had no such keys): re-publishing it must still say unchanged."""
    document = parse_workflow_document(
        _document(
            {"pipelineId": "stats", "executionType": "python", "handler": "pkg.mod:fn"},
            {"pipelineId": "preview", "executionType": "command", "command": ["echo"]},
        )
    )
    assert (
        _digest("", _steps(document))
        == "08a8abc48e835e58b9379342c37c1cdf768c1ce7a9af859f97ea3c625e20921c"
    )
