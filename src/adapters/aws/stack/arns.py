"""ARN patterns of this account and region, as CloudFormation `Fn::Sub` expressions."""

from __future__ import annotations

from typing import Any

# wfx's own state machines are `wfx-<db>-<wf>[-<hash>]-v<N>` (state_machine_name).
STATE_MACHINE_NAME_PATTERN = "wfx-*"


_ACCOUNT = "${AWS::Region}:${AWS::AccountId}"


def arn(service: str, resource: str) -> dict[str, Any]:
    return {"Fn::Sub": f"arn:${{AWS::Partition}}:{service}:{_ACCOUNT}:{resource}"}


def bucket_objects(prefix: str) -> dict[str, Any]:
    return {"Fn::Sub": f"${{DataBucket.Arn}}/{prefix}*"}
