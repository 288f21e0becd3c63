"""The state machine generator (ASL) and its structural validator."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from application.state_machines import (
    BATCH_SUBMIT_JOB_SYNC,
    COMPLETE_STATE,
    ERROR_STATE,
    FAILED_STATE,
    GATE_REJECTED_STATE,
    GATE_TIMED_OUT_FAILED_STATE,
    GATE_TIMED_OUT_STATE,
    LAMBDA_INVOKE,
    LAMBDA_INVOKE_CALLBACK,
    SUCCEEDED_STATE,
    HandlerArns,
    build_state_machine,
    state_machine_name,
    validate_state_machine,
)
from domain.approvals import ApprovalGate
from domain.errors import InvalidInputError
from domain.names import check_state_machine_prefix
from domain.workflow import ExecutionType, RetryPolicy, StepDefinition, WorkflowVersion

HANDLERS = HandlerArns(
    tracking="arn:aws:lambda:us-east-1:123456789012:function:wfx-track-step",
    completion="arn:aws:lambda:us-east-1:123456789012:function:wfx-complete-execution",
    error="arn:aws:lambda:us-east-1:123456789012:function:wfx-handle-execution-error",
)
# seed 000: a step's output prefix, composed from the execution's name (the execution id)
FROM_THE_NAME = "States.Format('executions/{}/output/', $$.Execution.Name)"
CATCH = [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.error", "Next": ERROR_STATE}]


def lambda_step(pipeline_id: str, callback: bool = False, **fields: Any) -> StepDefinition:
    return StepDefinition(
        pipeline_id=pipeline_id,
        pipeline_database_id="demo",
        execution_type=ExecutionType.LAMBDA,
        function_name=f"{pipeline_id[:60]}-fn",
        wait_for_callback=callback,
        **fields,
    )


def batch_step(pipeline_id: str, **fields: Any) -> StepDefinition:
    return StepDefinition(
        pipeline_id=pipeline_id,
        pipeline_database_id="demo",
        execution_type=ExecutionType.BATCH,
        job_queue="wfx-queue",
        job_definition="render:3",
        **fields,
    )


def approval_step(pipeline_id: str, timeout_seconds: int = 3600) -> StepDefinition:
    return StepDefinition(
        pipeline_id=pipeline_id,
        pipeline_database_id="demo",
        execution_type=ExecutionType.APPROVAL,
        approval=ApprovalGate(
            approvers=("carol", "role::release-managers"), timeout_seconds=timeout_seconds
        ),
    )


def a_version(
    *steps: StepDefinition, workflow_id: str = "mesh", number: int = 1
) -> WorkflowVersion:
    return WorkflowVersion(
        database_id="demo",
        workflow_id=workflow_id,
        version=number,
        steps=steps,
        published_at=datetime(2026, 11, 29, tzinfo=UTC),
        digest="sha256:x",
    )


def test_a_one_step_workflow_starts_runs_finishes_and_completes() -> None:
    definition = build_state_machine(a_version(lambda_step("convert")), HANDLERS)

    assert validate_state_machine(definition) == []
    assert definition["StartAt"] == "Start convert"
    assert list(definition["States"]) == [
        "Start convert",
        "Run convert",
        "Finish convert",
        COMPLETE_STATE,
        SUCCEEDED_STATE,
        ERROR_STATE,
        FAILED_STATE,
    ]
    states = definition["States"]
    assert states["Start convert"]["Resource"] == LAMBDA_INVOKE
    assert states["Start convert"]["Parameters"] == {
        "FunctionName": HANDLERS.tracking,
        "Payload": {
            "action": "start",
            "workflowExecutionId.$": "$.workflowExecutionId",
            "pipelineExecutionId.$": "$.pipelineExecutionIds[0]",
        },
    }
    assert states["Start convert"]["ResultPath"] is None
    assert states["Finish convert"]["Parameters"]["Payload"]["status"] == "SUCCEEDED"
    assert states["Finish convert"]["Next"] == COMPLETE_STATE
    assert states[COMPLETE_STATE]["Parameters"] == {
        "FunctionName": HANDLERS.completion,
        "Payload": {"workflowExecutionId.$": "$.workflowExecutionId", "status": "SUCCEEDED"},
    }
    assert states[COMPLETE_STATE]["Next"] == SUCCEEDED_STATE
    assert states[SUCCEEDED_STATE] == {"Type": "Succeed"}


def test_every_task_routes_any_failure_to_the_error_handler_which_fails_the_run() -> None:
    definition = build_state_machine(
        a_version(lambda_step("a"), batch_step("b"), lambda_step("c", callback=True)), HANDLERS
    )
    states = definition["States"]

    tasks = {name: s for name, s in states.items() if s["Type"] == "Task" and name != ERROR_STATE}
    assert len(tasks) == 3 * 3 + 1
    assert all(task["Catch"] == CATCH for task in tasks.values())
    handler = states[ERROR_STATE]
    assert handler["Parameters"] == {
        "FunctionName": HANDLERS.error,
        "Payload": {"workflowExecutionId.$": "$.workflowExecutionId", "error.$": "$.error"},
    }
    assert handler["Next"] == FAILED_STATE
    assert [c["Next"] for c in handler["Catch"]] == [FAILED_STATE]  # never back to itself
    assert states[FAILED_STATE]["Type"] == "Fail"
    assert states[FAILED_STATE]["ErrorPath"] == "$.error.Error"


def test_three_steps_with_a_callback_lambda_chain_in_order() -> None:
    version = a_version(
        lambda_step("split"), lambda_step("review", callback=True), lambda_step("merge")
    )
    definition = build_state_machine(version, HANDLERS)
    states = definition["States"]

    assert validate_state_machine(definition) == []
    order, name = [], definition["StartAt"]
    while states[name]["Type"] == "Task":
        order.append(name)
        name = states[name]["Next"]
    assert order == [
        *("Start split", "Run split", "Finish split"),
        *("Start review", "Run review", "Finish review"),
        *("Start merge", "Run merge", "Finish merge"),
        COMPLETE_STATE,
    ]
    review = states["Run review"]
    assert review["Resource"] == LAMBDA_INVOKE_CALLBACK
    assert review["Parameters"] == {
        "FunctionName": "review-fn",
        "Payload": {
            "workflowExecutionId.$": "$.workflowExecutionId",
            "pipelineExecutionId.$": "$.pipelineExecutionIds[1]",
            # seed 000: composed from the execution's name (the execution id), not the input
            "outputPrefix.$": FROM_THE_NAME,
            "taskToken.$": "$$.Task.Token",
        },
    }
    assert states["Run merge"]["Resource"] == LAMBDA_INVOKE
    assert "taskToken.$" not in states["Run merge"]["Parameters"]["Payload"]
    assert states["Finish merge"]["Parameters"]["Payload"]["pipelineExecutionId.$"] == (
        "$.pipelineExecutionIds[2]"
    )


def test_a_batch_step_submits_a_job_named_by_the_step_and_waits_for_it() -> None:
    definition = build_state_machine(a_version(lambda_step("a"), batch_step("render")), HANDLERS)
    render = definition["States"]["Run render"]

    assert validate_state_machine(definition) == []
    assert render["Resource"] == BATCH_SUBMIT_JOB_SYNC
    assert render["Parameters"] == {
        "JobName.$": "$.pipelineExecutionIds[1]",
        "JobQueue": "wfx-queue",
        "JobDefinition": "render:3",
        "ContainerOverrides": {
            "Environment": [
                {"Name": "WFX_EXECUTION_ID", "Value.$": "$.workflowExecutionId"},
                {"Name": "WFX_PIPELINE_EXECUTION_ID", "Value.$": "$.pipelineExecutionIds[1]"},
                {"Name": "WFX_OUTPUT_PREFIX", "Value.$": FROM_THE_NAME},
            ]
        },
    }
    assert render["ResultPath"] is None  # the ids stay in the state for the states after it


def test_a_retry_policy_becomes_a_loop_that_reports_each_retry_to_wfx() -> None:
    policy = RetryPolicy(max_attempts=4, interval_seconds=10, backoff_rate=1.5)
    definition = build_state_machine(
        a_version(batch_step("render", retry=policy), lambda_step("plain")), HANDLERS
    )
    states = definition["States"]

    assert validate_state_machine(definition) == []
    # no native Retry on the step: Step Functions would retry without telling wfx
    assert "Retry" not in states["Run render"] and "Retry" not in states["Run plain"]
    assert states["Start render"]["Next"] == "Attempt 1 render"
    assert states["Attempt 1 render"] == {
        "Type": "Pass",
        # whole seconds to wait before attempt n + 1: delay_before(2..4) = 10, 15, 22.5 -> 23
        "Result": {"attempt": 1, "delays": [10, 10, 15, 23]},
        "ResultPath": "$.attempts.s0",
        "Next": "Run render",
    }
    assert states["Run render"]["Catch"] == [
        {"ErrorEquals": ["States.ALL"], "ResultPath": "$.error", "Next": "Retry? render"}
    ]
    assert states["Retry? render"] == {
        "Type": "Choice",
        # maxAttempts counts every attempt: after attempt 4 fails, no retry is left
        "Choices": [
            {
                "Variable": "$.attempts.s0.attempt",
                "NumericLessThan": 4,
                "Next": "Report retry render",
            }
        ],
        "Default": ERROR_STATE,
    }
    report = states["Report retry render"]
    assert report["Parameters"] == {
        "FunctionName": HANDLERS.tracking,
        "Payload": {
            "action": "retry",
            "workflowExecutionId.$": "$.workflowExecutionId",
            "pipelineExecutionId.$": "$.pipelineExecutionIds[0]",
            "error.$": "$.error",
        },
    }
    assert report["ResultPath"] is None and report["Next"] == "Next attempt render"
    assert report["Catch"][0]["Next"] == ERROR_STATE
    assert states["Next attempt render"]["Parameters"] == {
        "attempt.$": "States.MathAdd($.attempts.s0.attempt, 1)",
        "delays.$": "$.attempts.s0.delays",
        "seconds.$": "States.ArrayGetItem($.attempts.s0.delays, $.attempts.s0.attempt)",
    }
    assert states["Next attempt render"]["ResultPath"] == "$.attempts.s0"
    assert states["Wait render"] == {
        "Type": "Wait",
        "SecondsPath": "$.attempts.s0.seconds",
        "Next": "Run render",
    }
    # a step with no policy keeps the plain catch-all, and has no loop
    assert states["Run plain"]["Catch"][0]["Next"] == ERROR_STATE
    assert not any(name.endswith(" plain") for name in states if "attempt" in name.lower())
    # the tracking calls retry Lambda's own transient errors only, never a handler's error
    assert "States.ALL" not in states["Start render"]["Retry"][0]["ErrorEquals"]


def test_an_approval_step_waits_on_a_task_token_for_at_most_its_gate_timeout() -> None:
    version = a_version(lambda_step("prepare"), approval_step("sign-off", 86400))
    definition = build_state_machine(version, HANDLERS)
    states = definition["States"]

    assert validate_state_machine(definition) == []
    assert states["Start sign-off"]["Next"] == "Run sign-off"
    gate = states["Run sign-off"]
    assert gate["Resource"] == LAMBDA_INVOKE_CALLBACK
    assert gate["Parameters"] == {
        "FunctionName": HANDLERS.tracking,
        "Payload": {
            "action": "gate",
            "workflowExecutionId.$": "$.workflowExecutionId",
            "pipelineExecutionId.$": "$.pipelineExecutionIds[1]",
            "taskToken.$": "$$.Task.Token",
        },
    }
    assert gate["TimeoutSeconds"] == 86400
    assert gate["ResultPath"] is None
    assert gate["Next"] == "Finish sign-off"  # approved: the step finishes as any other
    assert states["Finish sign-off"]["Parameters"]["Payload"]["status"] == "SUCCEEDED"


def test_an_approval_step_is_never_retried_by_a_loop() -> None:
    states = build_state_machine(a_version(approval_step("sign-off")), HANDLERS)["States"]

    assert not any(
        name.startswith(("Attempt 1", "Retry?", "Wait ", "Next attempt")) for name in states
    )
    # only the invocation's own transient errors are retried (the open is idempotent)
    (transient,) = states["Run sign-off"]["Retry"]
    assert transient["ErrorEquals"] == states["Start sign-off"]["Retry"][0]["ErrorEquals"]
    assert not {"States.ALL", "States.Timeout"} & set(transient["ErrorEquals"])


def test_a_gates_timeout_and_rejection_end_the_step_then_the_run_with_its_status() -> None:
    states = build_state_machine(
        a_version(approval_step("sign-off"), lambda_step("report")), HANDLERS
    )["States"]

    assert states["Run sign-off"]["Catch"] == [
        {
            "ErrorEquals": ["States.Timeout", "wfx.ApprovalTimedOut"],
            "ResultPath": "$.error",
            "Next": "Timed out sign-off",
        },
        {
            "ErrorEquals": ["wfx.ApprovalRejected", "wfx.ApprovalCancelled"],
            "ResultPath": "$.error",
            "Next": "Rejected sign-off",
        },
        *CATCH,
    ]
    for name, status, completion, end in (
        ("Timed out sign-off", "TIMED_OUT", GATE_TIMED_OUT_STATE, GATE_TIMED_OUT_FAILED_STATE),
        ("Rejected sign-off", "FAILED", GATE_REJECTED_STATE, FAILED_STATE),
    ):
        assert states[name]["Parameters"] == {
            "FunctionName": HANDLERS.tracking,
            "Payload": {
                "action": "gate-closed",
                "workflowExecutionId.$": "$.workflowExecutionId",
                "pipelineExecutionId.$": "$.pipelineExecutionIds[0]",
                "status": status,
                "error.$": "$.error",
            },
        }
        assert states[name]["Next"] == completion
        assert states[name]["Catch"] == CATCH
        assert states[completion]["Parameters"] == {
            "FunctionName": HANDLERS.completion,
            "Payload": {"workflowExecutionId.$": "$.workflowExecutionId", "status": status},
        }
        assert states[completion]["Next"] == end
    # the execution itself fails (a Fail state has no TIMED_OUT): rejected, with the caught
    # error; timed out, with the gate's own (a Fail state may not end with States.Timeout)
    assert states[GATE_TIMED_OUT_FAILED_STATE] == {
        "Type": "Fail",
        "Error": "wfx.ApprovalTimedOut",
        "Cause": "no decision before the approval gate's timeout",
    }


def test_a_workflow_without_a_gate_has_no_gate_completions() -> None:
    states = build_state_machine(a_version(lambda_step("a")), HANDLERS)["States"]

    assert not {GATE_REJECTED_STATE, GATE_TIMED_OUT_STATE, GATE_TIMED_OUT_FAILED_STATE} & set(
        states
    )


def test_the_validator_catches_a_timeout_that_is_not_whole_seconds_in_range() -> None:
    definition = build_state_machine(a_version(approval_step("sign-off")), HANDLERS)
    gate = definition["States"]["Run sign-off"]
    gate["TimeoutSeconds"] = 0
    gate["HeartbeatSeconds"] = 1.5

    assert validate_state_machine(definition) == [
        "Run sign-off: TimeoutSeconds must be from 1 to 99999999",
        "Run sign-off: HeartbeatSeconds must be a whole number of seconds",
    ]


def test_a_retry_policy_of_one_attempt_adds_no_loop() -> None:
    once = RetryPolicy(max_attempts=1)
    states = build_state_machine(a_version(lambda_step("once", retry=once)), HANDLERS)["States"]

    assert states["Start once"]["Next"] == "Run once"
    assert states["Run once"]["Catch"][0]["Next"] == ERROR_STATE
    assert "Retry? once" not in states


def test_state_names_stay_unique_and_short_for_repeated_or_long_pipeline_ids() -> None:
    long_id = "p" * 200
    version = a_version(lambda_step("same"), lambda_step("same"), lambda_step(long_id))
    definition = build_state_machine(version, HANDLERS)

    assert validate_state_machine(definition) == []
    names = list(definition["States"])
    assert len(names) == len(set(names))
    assert max(len(name) for name in names) <= 80
    assert "Run same #1" in names and "Run same #2" in names


def test_the_generator_refuses_a_local_only_step() -> None:
    python = StepDefinition(
        pipeline_id="stats",
        pipeline_database_id="demo",
        execution_type=ExecutionType.PYTHON,
        handler="pkg.mod:fn",
    )
    with pytest.raises(ValueError, match="stats"):
        build_state_machine(a_version(lambda_step("a"), python), HANDLERS)


def test_a_state_machine_name_uses_only_the_allowed_characters_and_fits() -> None:
    assert state_machine_name(a_version(lambda_step("a"), number=12)) == "wfx-demo-mesh-v12"
    dotted = state_machine_name(a_version(lambda_step("a"), workflow_id="mesh.v2"))
    assert dotted == "wfx-demo-mesh-v2-v1"
    first = state_machine_name(a_version(lambda_step("a"), workflow_id="w" * 100 + "1"))
    second = state_machine_name(a_version(lambda_step("a"), workflow_id="w" * 100 + "2"))
    assert len(first) <= 80 and first.endswith("-v1")
    assert first != second


# -- the validator catches what a broken definition gets wrong ------------------------------


def _valid() -> dict[str, Any]:
    return build_state_machine(a_version(lambda_step("a"), lambda_step("b")), HANDLERS)


def test_the_validator_catches_a_next_naming_no_state() -> None:
    definition = _valid()
    definition["States"]["Run a"]["Next"] = "Finish nowhere"

    assert "Run a: Next names no state: 'Finish nowhere'" in validate_state_machine(definition)


def test_the_validator_catches_a_catch_naming_no_state() -> None:
    definition = _valid()
    definition["States"]["Run b"]["Catch"][0]["Next"] = "Gone"

    assert "Run b: Next names no state: 'Gone'" in validate_state_machine(definition)


def test_the_validator_catches_an_unreachable_state() -> None:
    definition = _valid()
    definition["States"]["Orphan"] = {"Type": "Pass", "Next": SUCCEEDED_STATE}

    assert validate_state_machine(definition) == ["Orphan: unreachable from StartAt"]


def test_the_validator_catches_two_start_ats_in_json_text() -> None:
    text = json.dumps(_valid())
    twice = text.replace('"StartAt": "Start a"', '"StartAt": "Start a", "StartAt": "Start b"')

    assert validate_state_machine(twice) == ["StartAt: written twice"]
    assert validate_state_machine(text) == []


def test_the_validator_catches_a_start_at_naming_no_state() -> None:
    definition = _valid() | {"StartAt": "Begin"}

    assert "StartAt: no state named 'Begin'" in validate_state_machine(definition)


def test_the_validator_catches_a_dead_end_state() -> None:
    definition = _valid()
    del definition["States"]["Finish b"]["Next"]

    assert validate_state_machine(definition) == [
        "Finish b: needs exactly one of Next and End: true",
        f"{COMPLETE_STATE}: unreachable from StartAt",
        f"{SUCCEEDED_STATE}: unreachable from StartAt",
    ]


def test_the_validator_catches_a_loop_with_no_way_out() -> None:
    definition = {
        "StartAt": "Ping",
        "States": {
            "Ping": {"Type": "Pass", "Next": "Pong"},
            "Pong": {"Type": "Pass", "Next": "Ping"},
        },
    }
    assert validate_state_machine(definition) == [
        "Ping: no path to a terminal state (Succeed, Fail or End)",
        "Pong: no path to a terminal state (Succeed, Fail or End)",
    ]


def test_the_validator_catches_bad_task_and_catch_shapes() -> None:
    definition = _valid()
    states = definition["States"]
    states["Run a"]["Resource"] = "lambda"
    states["Run b"]["Catch"] = [{"ErrorEquals": ["States.ALL", "X"], "Next": ERROR_STATE}]
    states["Start b"]["Retry"] = [{"ErrorEquals": [], "MaxAttempts": -1}]
    states[SUCCEEDED_STATE]["Next"] = COMPLETE_STATE

    assert validate_state_machine(definition) == [
        "Run a: a Task needs a Resource ARN",
        "Start b: Retry[0]: ErrorEquals must be a non-empty list",
        "Start b: Retry[0]: MaxAttempts must be a whole number from 0",
        "Run b: Catch[0]: States.ALL must be alone, in the last Catch entry",
        f"{SUCCEEDED_STATE}: a Succeed state takes neither Next nor End",
    ]


def test_the_validator_catches_a_state_name_over_80_characters() -> None:
    definition = _valid()
    long_name = "S" * 81
    definition["States"][long_name] = definition["States"].pop(SUCCEEDED_STATE)
    definition["States"][COMPLETE_STATE]["Next"] = long_name

    assert validate_state_machine(definition) == [
        f"{long_name}: a state name has at most 80 characters"
    ]


def test_a_stack_s_prefix_starts_every_name_even_a_cut_or_hashed_one() -> None:
    """Two stacks in one account name their machines apart: the prefix is never cut to fit."""
    prefix = "wfx_0a1b2c3d-"
    plain = state_machine_name(a_version(lambda_step("a")), prefix=prefix)
    long = state_machine_name(a_version(lambda_step("a"), workflow_id="w" * 100), prefix=prefix)
    hashed = state_machine_name(a_version(lambda_step("a")), prefix=prefix, hashed=True)
    assert plain == "wfx_0a1b2c3d-demo-mesh-v1"
    assert long.startswith(prefix) and len(long) == 80 and long.endswith("-v1")
    assert hashed.startswith(prefix) and hashed != plain
    # the default prefix names a machine as every wfx before it did
    assert state_machine_name(a_version(lambda_step("a")), prefix="wfx-") == "wfx-demo-mesh-v1"


@pytest.mark.parametrize("prefix", ["", "wfx 1-", "wfx/", "p" * 41, "wfx-é"])
def test_a_prefix_step_functions_would_refuse_or_that_leaves_no_room_is_refused(
    prefix: str,
) -> None:
    with pytest.raises(InvalidInputError, match=r"^WFX_STATE_MACHINE_PREFIX: .*1-40 .*0-9A-Za-z"):
        check_state_machine_prefix(prefix, "WFX_STATE_MACHINE_PREFIX")
