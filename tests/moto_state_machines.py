"""Runs real ASL on moto's Step Functions parser mode and sets up moto Batch (no Docker).

Shared by the adapter's integration tests, the use case's tests and the sub-execution feature:
each needs a sub-state-machine that really ran, with the history moto recorded for it.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from moto.core.config import DefaultConfig

REGION = "us-east-1"
ACCOUNT = "123456789012"
ROLE_ARN = f"arn:aws:iam::{ACCOUNT}:role/wfx-sub-state-machine"
PARSER_MODE: DefaultConfig = {
    "stepfunctions": {"execute_state_machine": True},
    "batch": {"use_docker": False},
}

# Pass, Choice, Parallel (with a Wait), a Map over two items, then a Fail: every stage kind the
# frame walks, and an execution that ends FAILED on its last stage.
SUB_PIPELINE: dict[str, Any] = {
    "Comment": "A sub-pipeline a step starts for itself",
    "StartAt": "Prepare",
    "States": {
        "Prepare": {
            "Type": "Pass",
            "Result": {"mode": "fan"},
            "ResultPath": "$.prep",
            "Next": "Route",
        },
        "Route": {
            "Type": "Choice",
            "Choices": [{"Variable": "$.prep.mode", "StringEquals": "fan", "Next": "FanOut"}],
            "Default": "Skip",
        },
        "Skip": {"Type": "Succeed"},
        "FanOut": {
            "Type": "Parallel",
            "ResultPath": None,
            "Next": "EachItem",
            "Branches": [
                {
                    "StartAt": "Left",
                    "States": {
                        "Left": {"Type": "Wait", "Seconds": 0, "Next": "LeftDone"},
                        "LeftDone": {"Type": "Pass", "End": True},
                    },
                },
                {"StartAt": "Right", "States": {"Right": {"Type": "Pass", "End": True}}},
            ],
        },
        "EachItem": {
            "Type": "Map",
            "ItemsPath": "$.items",
            "ResultPath": None,
            "ItemProcessor": {
                "ProcessorConfig": {"Mode": "INLINE"},
                "StartAt": "Handle",
                "States": {"Handle": {"Type": "Pass", "End": True}},
            },
            "Next": "Explode",
        },
        "Explode": {"Type": "Fail", "Error": "Pipeline.Broken", "Cause": "on purpose"},
    },
}
SUB_PIPELINE_STATUSES = {
    "Prepare": "SUCCEEDED",
    "Route": "SUCCEEDED",
    "FanOut": "SUCCEEDED",
    "Left": "SUCCEEDED",
    "LeftDone": "SUCCEEDED",
    "Right": "SUCCEEDED",
    "Skip": "NOT_STARTED",
    "EachItem": "SUCCEEDED",
    "Handle": "SUCCEEDED",
    "Explode": "FAILED",
}


def create_sub_pipeline(client: Any, name: str = "sub-pipeline") -> str:
    created = client.create_state_machine(
        name=name, definition=json.dumps(SUB_PIPELINE), roleArn=ROLE_ARN, type="STANDARD"
    )
    return str(created["stateMachineArn"])


def run_to_the_end(client: Any, state_machine_arn: str, name: str) -> str:
    """Start an execution and wait (moto runs it on a thread) until it has finished."""
    arn = str(
        client.start_execution(
            stateMachineArn=state_machine_arn, name=name, input=json.dumps({"items": [1, 2]})
        )["executionArn"]
    )
    for _ in range(100):
        if client.describe_execution(executionArn=arn)["status"] != "RUNNING":
            return arn
        time.sleep(0.05)
    raise AssertionError(f"{arn} still RUNNING after 5 s")


def finished_batch_job(iam: Any, ec2: Any, batch: Any) -> str:
    """A job moto's Batch (use_docker False) has run to SUCCEEDED; its id."""
    role = iam.create_role(RoleName="wfx-batch", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
    profile = iam.create_instance_profile(InstanceProfileName="wfx-batch")["InstanceProfile"]
    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    subnet = ec2.create_subnet(VpcId=vpc, CidrBlock="10.0.0.0/24")["Subnet"]["SubnetId"]
    group = ec2.create_security_group(GroupName="wfx", Description="wfx", VpcId=vpc)["GroupId"]
    environment = batch.create_compute_environment(
        computeEnvironmentName="wfx-env",
        type="MANAGED",
        state="ENABLED",
        computeResources={
            "type": "EC2",
            "minvCpus": 0,
            "maxvCpus": 2,
            "desiredvCpus": 0,
            "instanceTypes": ["optimal"],
            "subnets": [subnet],
            "securityGroupIds": [group],
            "instanceRole": profile["Arn"],
        },
        serviceRole=role,
    )["computeEnvironmentArn"]
    queue = batch.create_job_queue(
        jobQueueName="wfx-queue",
        state="ENABLED",
        priority=1,
        computeEnvironmentOrder=[{"order": 1, "computeEnvironment": environment}],
    )["jobQueueArn"]
    definition = batch.register_job_definition(
        jobDefinitionName="convert",
        type="container",
        containerProperties={"image": "busybox", "vcpus": 1, "memory": 128, "command": ["true"]},
    )["jobDefinitionArn"]
    job = batch.submit_job(jobName="convert", jobQueue=queue, jobDefinition=definition)
    return str(job["jobId"])
