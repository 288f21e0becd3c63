"""The Lambda functions of every handler, each with its log group (kept for the retention the
stack names) and its environment: the same variables `Settings` and `TableNames` read."""

from __future__ import annotations

from typing import Any

from adapters.aws.registration_rule import BUS_PARAMETER
from adapters.aws.stack.access import FUNCTIONS, FunctionAccess
from adapters.aws.stack.arns import EARLIER_STATE_MACHINES, STATE_MACHINE_PREFIX
from adapters.aws.stack.bucket import BUCKET_ID
from adapters.aws.stack.parameters import CODE_BUCKET, CODE_KEY, LOG_RETENTION
from adapters.aws.stack.roles import log_group_id, role_id, role_resource
from adapters.aws.stack.tables import table_name
from adapters.tables import TABLE_OVERRIDE_PREFIX, TABLES
from domain.sub_process_reach import (
    BATCH_JOBS_PARAMETER,
    DEADLINE_FARMS_PARAMETER,
    STATE_MACHINES_PARAMETER,
)

# What the roles may stop (domain.sub_process_reach): registration drops any other sub-process.
# The earlier machines are the stack's own too; every resource the roles name is of the stack's
# region and account.
SUB_PROCESSES = {
    "Fn::Sub": f"stateMachines=${{{STATE_MACHINES_PARAMETER}}},${{{EARLIER_STATE_MACHINES}}};"
    f"batchJobs=${{{BATCH_JOBS_PARAMETER}}};deadlineFarms=${{{DEADLINE_FARMS_PARAMETER}}};"
    "region=${AWS::Region};account=${AWS::AccountId}"
}
RUNTIME = "python3.11"
ARCHITECTURE = "x86_64"  # what `wfx infra package` builds the binary wheels for
# Lambda's only writable folder: the local fallbacks under WFX_HOME (audit, step logs) go there.
LAMBDA_HOME = "/tmp/wfx"


def function_id(function: FunctionAccess) -> str:
    return f"{function.name}Function"


def environment(function: FunctionAccess, event_source_prefix: str) -> dict[str, Any]:
    """Every table by its per-table variable (whatever the role may touch: a name is no access),
    the DynamoDB store, Step Functions as runner, EventBridge as bus, the S3 object store."""
    variables: dict[str, Any] = {
        "WFX_STORE": "dynamodb",
        "WFX_RUNNER": "stepfunctions",
        "WFX_HOME": LAMBDA_HOME,
        "WFX_AUDIT_LOG": "logging",
        "WFX_EVENT_BUS": "eventbridge",
        "WFX_EVENT_BUS_NAME": {"Ref": BUS_PARAMETER},
        "WFX_EVENT_SOURCE_PREFIX": event_source_prefix,
        "WFX_OBJECT_STORE": "s3",
        "WFX_S3_BUCKET": {"Ref": BUCKET_ID},
        "WFX_STATE_MACHINE_PREFIX": STATE_MACHINE_PREFIX,
        "WFX_SUB_PROCESSES": SUB_PROCESSES,
    }
    for spec in TABLES:
        variables[f"{TABLE_OVERRIDE_PREFIX}{spec.key.value}"] = table_name(spec.key)
    return variables


def function_resources(event_source_prefix: str) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    for function in FUNCTIONS:
        resources[log_group_id(function)] = {
            "Type": "AWS::Logs::LogGroup",
            "DeletionPolicy": "Delete",
            "UpdateReplacePolicy": "Delete",
            "Properties": {
                # the name Lambda writes to, made here so that it has a retention
                "LogGroupName": {"Fn::Sub": f"/aws/lambda/${{AWS::StackName}}-{function.name}"},
                "RetentionInDays": {"Ref": LOG_RETENTION},
            },
        }
        resources[role_id(function)] = role_resource(function)
        resources[function_id(function)] = {
            "Type": "AWS::Lambda::Function",
            "Properties": {
                "FunctionName": {"Fn::Sub": f"${{AWS::StackName}}-{function.name}"},
                "Description": function.description,
                "Runtime": RUNTIME,
                "Architectures": [ARCHITECTURE],
                "Handler": function.handler,
                "Code": {"S3Bucket": {"Ref": CODE_BUCKET}, "S3Key": {"Ref": CODE_KEY}},
                "Role": {"Fn::GetAtt": [role_id(function), "Arn"]},
                "Timeout": function.timeout_seconds,
                "MemorySize": function.memory_mb,
                "Environment": {"Variables": environment(function, event_source_prefix)},
                "LoggingConfig": {"LogGroup": {"Ref": log_group_id(function)}},
            },
        }
    return resources
