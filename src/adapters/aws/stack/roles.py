"""One IAM role per function, holding only what `access.FunctionAccess` declares: its tables
(and their indexes), the bucket's prefixes, the AWS calls of its capabilities, its own log group."""

from __future__ import annotations

from typing import Any

from adapters.aws.stack.access import (
    ASSET_PREFIX,
    OBJECT_PREFIXES,
    RUN_PREFIX,
    STORE_TABLES,
    Capability,
    FunctionAccess,
    Store,
)
from adapters.aws.stack.arns import (
    STATE_MACHINE_LOG_GROUP_ID,
    SUB_PROCESS_BATCH_JOBS_ALLOWED,
    SUB_PROCESS_FARMS_NAMED,
    SUB_PROCESS_LOG_GROUPS,
    SUB_PROCESS_LOG_GROUPS_NAMED,
    SUB_PROCESS_STATE_MACHINES_NAMED,
    arn,
    arn_text,
    bucket_objects,
    log_group,
    own_state_machines,
)
from adapters.aws.stack.bucket import BUCKET_ID
from adapters.aws.stack.tables import table_arn
from adapters.tables import ResourceKeys
from domain.sub_process_reach import DEADLINE_FARMS_PARAMETER, STATE_MACHINES_PARAMETER

# TransactWriteItems and TransactGetItems are authorized per item by these same actions.
TABLE_READS = ("dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query")
TABLE_WRITES = (
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:BatchWriteItem",
    "dynamodb:ConditionCheckItem",
)
# The authorization store reads the whole small table when the policy changes, and removes a
# role or an assignment with DeleteItem; no other store scans. A permanent delete removes a
# run's main row with DeleteItem too (its capability's statement).
STORE_EXTRA_ACTIONS = {Store.AUTHORIZATION: ("dynamodb:Scan", "dynamodb:DeleteItem")}


def role_id(function: FunctionAccess) -> str:
    return f"{function.name}Role"


def log_group_id(function: FunctionAccess) -> str:
    return f"{function.name}LogGroup"


def role_resource(function: FunctionAccess) -> dict[str, Any]:
    return {
        "Type": "AWS::IAM::Role",
        "Properties": {
            "Description": f"{function.description}: only what its handler uses",
            "AssumeRolePolicyDocument": {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Principal": {"Service": "lambda.amazonaws.com"},
                        "Action": "sts:AssumeRole",
                    }
                ],
            },
            "Policies": [
                {
                    "PolicyName": f"wfx-{function.name}",
                    "PolicyDocument": {
                        "Version": "2012-10-17",
                        "Statement": policy_statements(function),
                    },
                }
            ],
        },
    }


def policy_statements(function: FunctionAccess) -> list[dict[str, Any]]:
    statements = [_log_statement(function), *_table_statements(function)]
    for capability in sorted(function.capabilities):
        statements.extend(CAPABILITY_STATEMENTS[capability]())
    return statements


def _log_statement(function: FunctionAccess) -> dict[str, Any]:
    # the group is the stack's (with its retention), so the role needs no logs:CreateLogGroup
    return {
        "Sid": "OwnLogGroup",
        "Effect": "Allow",
        "Action": ["logs:CreateLogStream", "logs:PutLogEvents"],
        "Resource": {"Fn::GetAtt": [log_group_id(function), "Arn"]},
    }


def _table_statements(function: FunctionAccess) -> list[dict[str, Any]]:
    statements = []
    for store in sorted(function.stores):
        if store in function.reads_only:
            actions = list(TABLE_READS)
        else:
            actions = [*TABLE_READS, *TABLE_WRITES, *STORE_EXTRA_ACTIONS.get(store, ())]
        resources: list[Any] = []
        for key in STORE_TABLES[store]:
            resources.append(table_arn(key))
            resources.append({"Fn::Sub": ["${Table}/index/*", {"Table": table_arn(key)}]})
        statements.append(
            {
                "Sid": f"{store.value.capitalize()}Tables",
                "Effect": "Allow",
                "Action": actions,
                "Resource": resources,
            }
        )
    return statements


def _objects() -> list[dict[str, Any]]:
    return [
        {
            "Sid": "BucketObjects",
            "Effect": "Allow",
            "Action": ["s3:GetObject", "s3:GetObjectVersion"],
            "Resource": [bucket_objects(prefix) for prefix in OBJECT_PREFIXES],
        },
        {
            "Sid": "RunObjectWrites",
            "Effect": "Allow",
            "Action": ["s3:PutObject"],
            "Resource": [bucket_objects(RUN_PREFIX)],
        },
        {
            "Sid": "BucketListings",
            "Effect": "Allow",
            "Action": ["s3:ListBucket", "s3:ListBucketVersions"],
            "Resource": {"Fn::GetAtt": [BUCKET_ID, "Arn"]},
            "Condition": {"StringLike": {"s3:prefix": [f"{p}*" for p in OBJECT_PREFIXES]}},
        },
        {
            # the store refuses a bucket without versioning before its first write
            "Sid": "BucketVersioning",
            "Effect": "Allow",
            "Action": ["s3:GetBucketVersioning"],
            "Resource": {"Fn::GetAtt": [BUCKET_ID, "Arn"]},
        },
    ]


def _write_asset_files() -> list[dict[str, Any]]:
    return [
        {
            "Sid": "AssetFileWrites",
            "Effect": "Allow",
            "Action": ["s3:PutObject"],
            "Resource": [bucket_objects(ASSET_PREFIX)],
        }
    ]


def _delete_objects() -> list[dict[str, Any]]:
    return [
        {
            # a run's objects, never an asset file's versions
            "Sid": "BucketDeletes",
            "Effect": "Allow",
            "Action": ["s3:DeleteObject", "s3:DeleteObjectVersion"],
            "Resource": [bucket_objects(RUN_PREFIX)],
        },
        {
            # the run's main row goes on condition it is still ended (a redrive from elsewhere
            # since the delete read it keeps it), and BatchWriteItem takes no condition
            "Sid": "RunMainRowDeletes",
            "Effect": "Allow",
            "Action": ["dynamodb:DeleteItem"],
            "Resource": [table_arn(ResourceKeys.WORKFLOW_EXECUTIONS)],
        },
    ]


def _orchestrate() -> list[dict[str, Any]]:
    return [
        {
            "Sid": "OwnStateMachines",
            "Effect": "Allow",
            "Action": ["states:StartExecution", "states:DescribeStateMachine"],
            "Resource": own_state_machines("stateMachine:{name}"),
        },
        {
            "Sid": "OwnExecutions",
            "Effect": "Allow",
            "Action": [
                "states:DescribeExecution",
                "states:StopExecution",
                "states:RedriveExecution",
                "states:GetExecutionHistory",
            ],
            "Resource": own_state_machines("execution:{name}:*"),
        },
    ]


def _answer_tasks() -> list[dict[str, Any]]:
    # A task token names no resource itself; IAM authorizes SendTask* against the state machine
    # whose task waits (its executions named too, for the narrower reading of that rule).
    return [
        {
            "Sid": "AnswerOwnGates",
            "Effect": "Allow",
            "Action": ["states:SendTaskSuccess", "states:SendTaskFailure"],
            "Resource": [
                *own_state_machines("stateMachine:{name}"),
                *own_state_machines("execution:{name}:*"),
            ],
        }
    ]


def _registered_state_machines(resource: str) -> list[Any]:
    """`stateMachine:{name}` or `execution:{name}:*` of the machines whose runs the pipelines may
    register: the stack's own, and those SubProcessStateMachinePattern names when given."""
    named = {
        "Fn::Sub": arn_text("states", resource.format(name=f"${{{STATE_MACHINES_PARAMETER}}}"))
    }
    return [
        *own_state_machines(resource),
        {"Fn::If": [SUB_PROCESS_STATE_MACHINES_NAMED, named, {"Ref": "AWS::NoValue"}]},
    ]


def _only_if(condition: str, statement: dict[str, Any]) -> dict[str, Any]:
    return {"Fn::If": [condition, statement, {"Ref": "AWS::NoValue"}]}


def _stop_sub_processes() -> list[dict[str, Any]]:
    # Only where the deployer says the pipelines start them (the SubProcess* parameters);
    # registration drops any other, so an abort never holds a child it would be denied stopping.
    return [
        {
            "Sid": "StopRegisteredSubProcesses",
            "Effect": "Allow",
            "Action": ["states:StopExecution", "states:DescribeExecution"],
            "Resource": _registered_state_machines("execution:{name}:*"),
        },
        _only_if(
            SUB_PROCESS_BATCH_JOBS_ALLOWED,
            {
                # a job's ARN names no queue: any job of the account, or none
                "Sid": "StopRegisteredBatchJobs",
                "Effect": "Allow",
                "Action": ["batch:TerminateJob"],
                "Resource": arn("batch", "job/*"),
            },
        ),
        _only_if(
            SUB_PROCESS_BATCH_JOBS_ALLOWED,
            {
                # DescribeJobs takes no resource-level permission
                "Sid": "DescribeBatchJobs",
                "Effect": "Allow",
                "Action": ["batch:DescribeJobs"],
                "Resource": "*",
            },
        ),
        _only_if(
            SUB_PROCESS_FARMS_NAMED,
            {
                "Sid": "StopRegisteredDeadlineJobs",
                "Effect": "Allow",
                "Action": ["deadline:UpdateJob", "deadline:GetJob"],
                "Resource": arn("deadline", f"farm/${{{DEADLINE_FARMS_PARAMETER}}}/*"),
            },
        ),
    ]


def _read_sub_executions() -> list[dict[str, Any]]:
    return [
        {
            "Sid": "ReadRegisteredSubExecutions",
            "Effect": "Allow",
            "Action": ["states:DescribeExecution", "states:GetExecutionHistory"],
            "Resource": _registered_state_machines("execution:{name}:*"),
        },
        {
            "Sid": "ReadRegisteredStateMachines",
            "Effect": "Allow",
            "Action": ["states:DescribeStateMachine"],
            "Resource": _registered_state_machines("stateMachine:{name}"),
        },
    ]


def _read_logs() -> list[dict[str, Any]]:
    group = f"log-group:${{{SUB_PROCESS_LOG_GROUPS}}}"
    return [
        _only_if(
            SUB_PROCESS_LOG_GROUPS_NAMED,
            {
                "Sid": "ReadRegisteredLogs",
                "Effect": "Allow",
                "Action": [
                    "logs:GetLogEvents",
                    "logs:FilterLogEvents",
                    "logs:DescribeLogStreams",
                ],
                "Resource": [arn("logs", group), arn("logs", f"{group}:*")],
            },
        )
    ]


def _read_run_logs() -> list[dict[str, Any]]:
    return [
        {
            "Sid": "OwnStateMachineLogging",
            "Effect": "Allow",
            "Action": ["states:DescribeStateMachine"],
            "Resource": own_state_machines("stateMachine:{name}"),
        },
        {
            # the stack's group, which `wfx workflows deploy` gives the state machines; a
            # machine logging elsewhere gets a run log saying access to that group was denied
            "Sid": "RunLogEvents",
            "Effect": "Allow",
            "Action": ["logs:FilterLogEvents"],
            "Resource": log_group(STATE_MACHINE_LOG_GROUP_ID),
        },
    ]


CAPABILITY_STATEMENTS = {
    Capability.OBJECTS: _objects,
    Capability.WRITE_ASSET_FILES: _write_asset_files,
    Capability.DELETE_OBJECTS: _delete_objects,
    Capability.ORCHESTRATE: _orchestrate,
    Capability.ANSWER_TASKS: _answer_tasks,
    Capability.STOP_SUB_PROCESSES: _stop_sub_processes,
    Capability.READ_SUB_EXECUTIONS: _read_sub_executions,
    Capability.READ_LOGS: _read_logs,
    Capability.READ_RUN_LOGS: _read_run_logs,
}
