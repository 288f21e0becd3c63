"""The stack's parameters and conditions: where the code is, who issues the tokens, how long logs
are kept, and the name of the earlier table where the previous release left one."""

from __future__ import annotations

from typing import Any

from adapters.aws.registration_rule import (
    BUS_PARAMETER,
    PUBLISHERS_CONDITION,
    PUBLISHERS_PARAMETER,
)
from adapters.aws.stack.arns import (
    EARLIER_STATE_MACHINES,
    EARLIER_STATE_MACHINES_NAMED,
    SUB_PROCESS_BATCH_JOBS_ALLOWED,
    SUB_PROCESS_FARMS_NAMED,
    SUB_PROCESS_LOG_GROUPS,
    SUB_PROCESS_LOG_GROUPS_NAMED,
    SUB_PROCESS_STATE_MACHINES_NAMED,
)
from domain.sub_process_reach import (
    BATCH_ANY,
    BATCH_JOBS_PARAMETER,
    BATCH_NONE,
    DEADLINE_FARM_PATTERN,
    DEADLINE_FARMS_PARAMETER,
    STATE_MACHINE_PATTERN,
    STATE_MACHINES_PARAMETER,
)

CODE_BUCKET = "CodeBucket"
CODE_KEY = "CodeKey"
JWT_ISSUER = "JwtIssuer"
JWT_AUDIENCE = "JwtAudience"
LOG_RETENTION = "LogRetentionDays"
EXISTING_EARLIER_TABLE = "ExistingEarlierTableName"
EARLIER_TABLE_NAMED = "EarlierTableNamed"
PIPELINE_FUNCTIONS = "PipelineFunctionArns"
PIPELINE_FUNCTIONS_NAMED = "PipelineFunctionsNamed"
# The values CloudWatch Logs accepts for RetentionInDays.
RETENTION_DAYS = (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 3653)


def parameters() -> dict[str, Any]:
    return _package_and_identity() | _what_the_stack_reaches() | _sub_processes_reached()


def _package_and_identity() -> dict[str, Any]:
    """The code the functions run, who may call the API, how long logs stay, what a migration
    reads."""
    return {
        CODE_BUCKET: {
            "Type": "String",
            "Description": "S3 bucket holding the Lambda package (`wfx infra package`).",
        },
        CODE_KEY: {
            "Type": "String",
            "Default": "wfx-lambda.zip",
            "Description": "Key of the Lambda package in the code bucket.",
        },
        JWT_ISSUER: {
            "Type": "String",
            "Description": "The identity provider's issuer URL (the tokens' iss claim), such as "
            "https://cognito-idp.REGION.amazonaws.com/POOL_ID.",
        },
        JWT_AUDIENCE: {
            "Type": "CommaDelimitedList",
            "Description": "The audiences (aud claim; for Cognito the app client ids) the API "
            "accepts.",
        },
        LOG_RETENTION: {
            "Type": "Number",
            "Default": 30,
            "AllowedValues": list(RETENTION_DAYS),
            "Description": "Days the functions' and the state machines' logs are kept.",
        },
        EXISTING_EARLIER_TABLE: {
            "Type": "String",
            "Default": "",
            "Description": "Name of the previous release's WorkflowExecutionsStorageTable, read "
            "only by `wfx migrate v1`; empty when there is none (the stack never creates it).",
        },
    }


def _what_the_stack_reaches() -> dict[str, Any]:
    """What lies outside the stack that its parts may use: the bus, the steps' functions, the
    machines of an earlier release, the roles that may register."""
    return {
        BUS_PARAMETER: {
            "Type": "String",
            "Default": "default",
            "Description": "The event bus the pipelines publish registrations on.",
        },
        PIPELINE_FUNCTIONS: {
            "Type": "CommaDelimitedList",
            "Default": "",
            "Description": "ARNs of the Lambda functions the workflows' lambda steps invoke "
            "(their functionName), which the state machines may invoke; empty for none.",
        },
        EARLIER_STATE_MACHINES: {
            "Type": "String",
            "Default": "",
            # a state machine name's alphabet and IAM's wildcard, after at least one character
            # of a name: `*` alone would reach every machine of the account
            "AllowedPattern": "^$|^[0-9A-Za-z_-][0-9A-Za-z_*-]{0,79}$",
            "ConstraintDescription": "empty, or up to 80 characters of 0-9A-Za-z _ - and the "
            "wildcard *, starting with a name's character (such as wfx-*)",
            "Description": "Upgrading a stack whose workflows were deployed before machine names "
            "had the stack's prefix: the names of those machines (IAM wildcards, such as "
            "wfx-demo-*, or wfx-* for every one of the account), whose runs its functions may "
            "still describe, abort, redrive and answer; empty for none.",
        },
        PUBLISHERS_PARAMETER: {
            "Type": "CommaDelimitedList",
            "Default": "",
            "Description": "ARNs of the IAM roles the pipeline steps run as, the only principals "
            "that may put registration events on the bus; empty for no bus policy.",
        },
    }


def _sub_processes_reached() -> dict[str, Any]:
    """Where the pipelines start the sub-processes they register, which the HTTP, error and
    registration functions may stop and read: nothing beyond the stack's own machines unless
    named (a registration naming anything else is dropped)."""
    return {
        STATE_MACHINES_PARAMETER: {
            "Type": "String",
            "Default": "",
            "AllowedPattern": f"^$|^(?:{STATE_MACHINE_PATTERN})$",
            "ConstraintDescription": "empty, * or up to 80 characters of 0-9A-Za-z _ - and the "
            "wildcard *, starting with a name's character (such as render-*)",
            "Description": "Names (IAM wildcards) of the state machines whose runs the pipelines "
            "register as sub-processes, which the functions may stop and read beside the stack's "
            "own; * for every machine of the account; empty for the stack's own only.",
        },
        BATCH_JOBS_PARAMETER: {
            "Type": "String",
            "Default": BATCH_NONE,
            "AllowedValues": [BATCH_NONE, BATCH_ANY],
            "Description": "Whether the pipelines register Batch jobs, which the functions may "
            "then terminate: any job of the account (IAM cannot tell one queue's jobs apart).",
        },
        DEADLINE_FARMS_PARAMETER: {
            "Type": "String",
            "Default": "",
            "AllowedPattern": f"^$|^(?:{DEADLINE_FARM_PATTERN})$",
            "ConstraintDescription": "empty, * or a farm id (IAM wildcards, such as farm-0123*)",
            "Description": "The Deadline Cloud farm (id, IAM wildcards) whose jobs the pipelines "
            "register, which the functions may cancel; * for every farm; empty for none.",
        },
        SUB_PROCESS_LOG_GROUPS: {
            "Type": "String",
            "Default": "",
            "AllowedPattern": r"^$|^[-._/#A-Za-z0-9*]{1,512}$",
            "ConstraintDescription": "empty, or a log group name (IAM wildcards, such as "
            "/aws/lambda/render-*)",
            "Description": "The log groups (name, IAM wildcards) of the logs the pipelines "
            "register, which the functions may read; * for every group; empty for none.",
        },
    }


def conditions() -> dict[str, Any]:
    publishers = {"Fn::Join": ["", {"Ref": PUBLISHERS_PARAMETER}]}
    pipeline_functions = {"Fn::Join": ["", {"Ref": PIPELINE_FUNCTIONS}]}
    return {
        PIPELINE_FUNCTIONS_NAMED: {"Fn::Not": [{"Fn::Equals": [pipeline_functions, ""]}]},
        EARLIER_TABLE_NAMED: {"Fn::Not": [{"Fn::Equals": [{"Ref": EXISTING_EARLIER_TABLE}, ""]}]},
        PUBLISHERS_CONDITION: {"Fn::Not": [{"Fn::Equals": [publishers, ""]}]},
        EARLIER_STATE_MACHINES_NAMED: _named(EARLIER_STATE_MACHINES),
        SUB_PROCESS_STATE_MACHINES_NAMED: _named(STATE_MACHINES_PARAMETER),
        SUB_PROCESS_BATCH_JOBS_ALLOWED: {"Fn::Equals": [{"Ref": BATCH_JOBS_PARAMETER}, BATCH_ANY]},
        SUB_PROCESS_FARMS_NAMED: _named(DEADLINE_FARMS_PARAMETER),
        SUB_PROCESS_LOG_GROUPS_NAMED: _named(SUB_PROCESS_LOG_GROUPS),
    }


def _named(parameter: str) -> dict[str, Any]:
    return {"Fn::Not": [{"Fn::Equals": [{"Ref": parameter}, ""]}]}
