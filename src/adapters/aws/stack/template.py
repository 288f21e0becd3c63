"""The whole deployable stack, assembled from its parts."""

from __future__ import annotations

from typing import Any

from adapters.aws.stack.access import FUNCTIONS
from adapters.aws.stack.arns import STATE_MACHINE_PREFIX
from adapters.aws.stack.bucket import BUCKET_ID, bucket_resources
from adapters.aws.stack.functions import function_id, function_resources
from adapters.aws.stack.http_api import api_url, http_api_resources
from adapters.aws.stack.parameters import conditions, parameters
from adapters.aws.stack.registration import PUBLISHER_POLICY_ID, registration_resources
from adapters.aws.stack.state_machine import LOG_GROUP_ID, ROLE_ID, state_machine_resources
from adapters.aws.stack.tables import table_outputs, table_resources
from adapters.tables import TableNames
from domain.registration import DEFAULT_EVENT_SOURCE_PREFIX, check_source_prefix

# The WFX_LAMBDA_*_ARN settings of `wfx workflows deploy`, by function name.
_DEPLOY_VARIABLES = {
    "Tracking": "WFX_LAMBDA_TRACKING_ARN",
    "Completion": "WFX_LAMBDA_COMPLETION_ARN",
    "Error": "WFX_LAMBDA_ERROR_ARN",
}


def deployment_template(
    tables: TableNames, event_source_prefix: str = DEFAULT_EVENT_SOURCE_PREFIX
) -> dict[str, Any]:
    """wfx on AWS: the tables (named as `tables` resolves them), the bucket, the functions with
    their roles and log groups, the HTTP API, the registration rule, the state machines' role."""
    check_source_prefix(event_source_prefix)
    resources = (
        table_resources(tables)
        | bucket_resources()
        | function_resources(event_source_prefix)
        | http_api_resources()
        | registration_resources(event_source_prefix)
        | state_machine_resources()
    )
    return {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Description": "wfx: workflow execution records, their HTTP API and step handlers",
        "Parameters": parameters(),
        "Conditions": conditions(),
        "Resources": resources,
        "Outputs": _outputs(),
    }


def _outputs() -> dict[str, Any]:
    outputs: dict[str, Any] = {
        "ApiUrl": {"Description": "The HTTP API's base URL", "Value": api_url()},
        "BucketName": {"Description": "WFX_S3_BUCKET", "Value": {"Ref": BUCKET_ID}},
        "StateMachineRoleArn": {
            "Description": "WFX_SFN_ROLE_ARN",
            "Value": {"Fn::GetAtt": [ROLE_ID, "Arn"]},
        },
        "StateMachineLogGroupArn": {
            "Description": "WFX_SFN_LOG_GROUP_ARN",
            "Value": {"Fn::GetAtt": [LOG_GROUP_ID, "Arn"]},
        },
        "StateMachineNamePrefix": {
            "Description": "WFX_STATE_MACHINE_PREFIX",
            "Value": STATE_MACHINE_PREFIX,
        },
        "RegistrationPublisherPolicyArn": {
            "Description": "Attach to the pipeline steps' roles",
            "Value": {"Ref": PUBLISHER_POLICY_ID},
        },
    }
    for function in FUNCTIONS:
        outputs[f"{function_id(function)}Arn"] = {
            "Description": _DEPLOY_VARIABLES.get(function.name, function.handler),
            "Value": {"Fn::GetAtt": [function_id(function), "Arn"]},
        }
    return outputs | table_outputs()
