"""What `wfx workflows deploy` needs from the stack (its WFX_SFN_* settings): the role the state
machines run as, allowed to invoke the three step functions and a Batch `.sync` task, and the
log group they log to, with the stack's retention."""

from __future__ import annotations

from typing import Any

from adapters.aws.stack.access import STATE_MACHINE_FUNCTIONS
from adapters.aws.stack.arns import STATE_MACHINE_LOG_GROUP_ID, arn
from adapters.aws.stack.functions import function_id
from adapters.aws.stack.parameters import (
    LOG_RETENTION,
    PIPELINE_FUNCTIONS,
    PIPELINE_FUNCTIONS_NAMED,
)

ROLE_ID = "StateMachineRole"
LOG_GROUP_ID = STATE_MACHINE_LOG_GROUP_ID
# The rule Step Functions manages for `batch:submitJob.sync` (AWS's documented name).
_BATCH_SYNC_RULE = "rule/StepFunctionsGetEventsForBatchJobsRule"
# Log delivery is configured through these account-wide calls (Step Functions' documentation):
# they take no resource-level permission.
_LOG_DELIVERY = (
    "logs:CreateLogDelivery",
    "logs:GetLogDelivery",
    "logs:UpdateLogDelivery",
    "logs:DeleteLogDelivery",
    "logs:ListLogDeliveries",
    "logs:PutResourcePolicy",
    "logs:DescribeResourcePolicies",
    "logs:DescribeLogGroups",
)


def state_machine_resources() -> dict[str, Any]:
    return {
        ROLE_ID: {
            "Type": "AWS::IAM::Role",
            "Properties": {
                "Description": "wfx state machines: invoke the step functions, run Batch jobs",
                "AssumeRolePolicyDocument": {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Effect": "Allow",
                            "Principal": {"Service": "states.amazonaws.com"},
                            "Action": "sts:AssumeRole",
                        }
                    ],
                },
                "Policies": [
                    {
                        "PolicyName": "wfx-state-machines",
                        "PolicyDocument": {
                            "Version": "2012-10-17",
                            "Statement": _role_statements(),
                        },
                    }
                ],
            },
        },
        LOG_GROUP_ID: {
            "Type": "AWS::Logs::LogGroup",
            "DeletionPolicy": "Delete",
            "UpdateReplacePolicy": "Delete",
            "Properties": {
                "LogGroupName": {"Fn::Sub": "/aws/vendedlogs/states/${AWS::StackName}"},
                "RetentionInDays": {"Ref": LOG_RETENTION},
            },
        },
    }


def _role_statements() -> list[dict[str, Any]]:
    """What the state machines' role may do: invoke the step functions and the functions the
    lambda steps name, deliver its logs, run Batch jobs synchronously."""
    invoked = [{"Fn::GetAtt": [function_id(f), "Arn"]} for f in STATE_MACHINE_FUNCTIONS]
    pipeline_functions = {
        "Sid": "InvokePipelineFunctions",
        "Effect": "Allow",
        "Action": "lambda:InvokeFunction",
        "Resource": {"Ref": PIPELINE_FUNCTIONS},
    }
    return [
        {
            "Sid": "InvokeStepFunctions",
            "Effect": "Allow",
            "Action": "lambda:InvokeFunction",
            "Resource": invoked,
        },
        # the deployer's own functions, named; none when the list is empty
        {"Fn::If": [PIPELINE_FUNCTIONS_NAMED, pipeline_functions, {"Ref": "AWS::NoValue"}]},
        {"Sid": "LogDelivery", "Effect": "Allow", "Action": list(_LOG_DELIVERY), "Resource": "*"},
        {
            "Sid": "BatchSyncJobs",
            "Effect": "Allow",
            "Action": ["batch:SubmitJob", "batch:TerminateJob"],
            "Resource": [
                arn("batch", "job/*"),
                arn("batch", "job-queue/*"),
                arn("batch", "job-definition/*"),
            ],
        },
        {
            "Sid": "BatchSyncDescribe",
            "Effect": "Allow",
            "Action": "batch:DescribeJobs",
            "Resource": "*",
        },
        {
            "Sid": "BatchSyncRule",
            "Effect": "Allow",
            "Action": ["events:PutTargets", "events:PutRule", "events:DescribeRule"],
            "Resource": arn("events", _BATCH_SYNC_RULE),
        },
    ]
