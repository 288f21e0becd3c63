"""The CloudFormation for the standing registration rule (seed 000): registration events on the
orchestration bus go to the registerPipelineExecution Lambda function."""

from __future__ import annotations

from typing import Any

from domain.registration import registration_event_pattern

RULE_ID = "RegistrationRule"
PERMISSION_ID = "RegistrationInvokePermission"
FUNCTION_PARAMETER = "RegistrationFunctionArn"
BUS_PARAMETER = "EventBusName"
CONDITION = "HasRegistrationFunction"
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
    }


def registration_conditions() -> dict[str, Any]:
    return {CONDITION: {"Fn::Not": [{"Fn::Equals": [{"Ref": FUNCTION_PARAMETER}, ""]}]}}


def registration_resources(event_source_prefix: str) -> dict[str, Any]:
    """The rule (pattern: source prefix `{prefix}.execution.`, the registration detail type)
    and the permission that lets EventBridge invoke the function."""
    return {
        RULE_ID: {
            "Type": "AWS::Events::Rule",
            "Condition": CONDITION,
            "Properties": {
                "Description": "wfx: pipeline registration events to registerPipelineExecution",
                "EventBusName": {"Ref": BUS_PARAMETER},
                "EventPattern": registration_event_pattern(event_source_prefix),
                "State": "ENABLED",
                "Targets": [
                    {
                        "Id": TARGET_ID,
                        "Arn": {"Ref": FUNCTION_PARAMETER},
                        "RetryPolicy": {"MaximumEventAgeInSeconds": _RETRY_SECONDS},
                    }
                ],
            },
        },
        PERMISSION_ID: {
            "Type": "AWS::Lambda::Permission",
            "Condition": CONDITION,
            "Properties": {
                "Action": "lambda:InvokeFunction",
                "FunctionName": {"Ref": FUNCTION_PARAMETER},
                "Principal": "events.amazonaws.com",
                "SourceArn": {"Fn::GetAtt": [RULE_ID, "Arn"]},
            },
        },
    }
