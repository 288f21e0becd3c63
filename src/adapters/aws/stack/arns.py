"""ARN patterns of this account and region, as CloudFormation `Fn::Sub` expressions."""

from __future__ import annotations

from typing import Any

# wfx's own state machines are `wfx-<db>-<wf>[-<hash>]-v<N>` (state_machine_name).
STATE_MACHINE_NAME_PATTERN = "wfx-*"
# The group they log to: `wfx workflows deploy` sets it from the stack's output
# (WFX_SFN_LOG_GROUP_ARN), so it is the one a run's log is read from.
STATE_MACHINE_LOG_GROUP_ID = "StateMachineLogGroup"


_ACCOUNT = "${AWS::Region}:${AWS::AccountId}"


def arn(service: str, resource: str) -> dict[str, Any]:
    return {"Fn::Sub": f"arn:${{AWS::Partition}}:{service}:{_ACCOUNT}:{resource}"}


def bucket_objects(prefix: str) -> dict[str, Any]:
    return {"Fn::Sub": f"${{DataBucket.Arn}}/{prefix}*"}


def log_group(group_id: str) -> list[dict[str, Any]]:
    """A stack log group, as the group and as its streams (IAM matches either, by the call)."""
    group = f"arn:${{AWS::Partition}}:logs:{_ACCOUNT}:log-group:${{{group_id}}}"
    return [{"Fn::Sub": group}, {"Fn::Sub": f"{group}:*"}]
