"""The CloudFormation for the standing registration rule (seed 000): registration events on the
orchestration bus go to the registerPipelineExecution Lambda function, which trusts what the rule
delivers. So who may put an event with a `{prefix}.execution.` source is all that authenticates a
registration on AWS: the bus policy denies it to every principal but the publishers named."""

from __future__ import annotations

from typing import Any

from domain.registration import registration_event_pattern

RULE_ID = "RegistrationRule"
PERMISSION_ID = "RegistrationInvokePermission"
FUNCTION_PARAMETER = "RegistrationFunctionArn"
BUS_PARAMETER = "EventBusName"
CONDITION = "HasRegistrationFunction"
PUBLISHERS_PARAMETER = "RegistrationPublisherArns"
PUBLISHERS_CONDITION = "HasRegistrationPublishers"
PUBLISHERS_POLICY_ID = "RegistrationPublishersOnlyPolicy"
TARGET_ID = "registerPipelineExecution"
# EventBridge retries a failed invocation (a store error) for up to this long (its maximum).
_RETRY_SECONDS = 86400


def registration_parameters() -> dict[str, Any]:
    return {
        FUNCTION_PARAMETER: {
            "Type": "String",
            "Default": "",
            "Description": "ARN of the registerPipelineExecution Lambda function; leave empty "
            "to deploy the tables without the registration rule.",
        },
        BUS_PARAMETER: {
            "Type": "String",
            "Default": "default",
            "Description": "The orchestration event bus the pipelines publish registrations on.",
        },
        PUBLISHERS_PARAMETER: {
            "Type": "CommaDelimitedList",
            "Default": "",
            "Description": "ARNs of the IAM roles the pipeline steps run as, the only principals "
            "that may put registration events on the bus; leave empty for no bus policy.",
        },
    }


def registration_conditions() -> dict[str, Any]:
    publishers = {"Fn::Join": ["", {"Ref": PUBLISHERS_PARAMETER}]}
    return {
        CONDITION: {"Fn::Not": [{"Fn::Equals": [{"Ref": FUNCTION_PARAMETER}, ""]}]},
        PUBLISHERS_CONDITION: {
            "Fn::And": [{"Condition": CONDITION}, {"Fn::Not": [{"Fn::Equals": [publishers, ""]}]}]
        },
    }


def registration_resources(event_source_prefix: str) -> dict[str, Any]:
    """The rule (pattern: source prefix `{prefix}.execution.`, the registration detail type)
    and the permission that lets EventBridge invoke the function."""
    resources = rule_resources(event_source_prefix, {"Ref": FUNCTION_PARAMETER})
    for resource in resources.values():
        resource["Condition"] = CONDITION
    return resources | {PUBLISHERS_POLICY_ID: _publishers_only_policy(event_source_prefix)}


def rule_resources(event_source_prefix: str, function_arn: object) -> dict[str, Any]:
    """The rule and the invoke permission for the function `function_arn` names (a parameter's
    Ref, or the ARN of a function in the same stack)."""
    return {
        RULE_ID: {
            "Type": "AWS::Events::Rule",
            "Properties": {
                "Description": "wfx: pipeline registration events to registerPipelineExecution",
                "EventBusName": {"Ref": BUS_PARAMETER},
                "EventPattern": registration_event_pattern(event_source_prefix),
                "State": "ENABLED",
                "Targets": [
                    {
                        "Id": TARGET_ID,
                        "Arn": function_arn,
                        "RetryPolicy": {"MaximumEventAgeInSeconds": _RETRY_SECONDS},
                    }
                ],
            },
        },
        PERMISSION_ID: {
            "Type": "AWS::Lambda::Permission",
            "Properties": {
                "Action": "lambda:InvokeFunction",
                "FunctionName": function_arn,
                "Principal": "events.amazonaws.com",
                "SourceArn": {"Fn::GetAtt": [RULE_ID, "Arn"]},
            },
        },
    }


def publishers_only_policy(event_source_prefix: str, condition: str) -> dict[str, Any]:
    """The bus policy below, deployed only under `condition` (publishers were named)."""
    return _publishers_only_policy(event_source_prefix) | {"Condition": condition}


def _publishers_only_policy(event_source_prefix: str) -> dict[str, Any]:
    """A Deny on the bus: an explicit deny wins over any Allow the caller's own policies hold,
    so even a principal allowed `events:PutEvents` on `*` cannot forge a step's registration."""
    (source,) = registration_event_pattern(event_source_prefix)["source"]
    assert isinstance(source, dict)
    return {
        "Type": "AWS::Events::EventBusPolicy",
        "Condition": PUBLISHERS_CONDITION,
        "Properties": {
            "EventBusName": {"Ref": BUS_PARAMETER},
            "StatementId": "wfx-registration-publishers-only",
            "Statement": {
                "Effect": "Deny",
                "Principal": "*",
                "Action": "events:PutEvents",
                "Resource": {
                    "Fn::Sub": "arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}"
                    f":event-bus/${{{BUS_PARAMETER}}}"
                },
                "Condition": {
                    "StringLike": {"events:source": [f"{source['prefix']}*"]},
                    "ArnNotLike": {"aws:PrincipalArn": {"Ref": PUBLISHERS_PARAMETER}},
                },
            },
        },
    }
