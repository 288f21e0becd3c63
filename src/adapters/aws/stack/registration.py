"""Registration on AWS: the standing rule to the stack's registration function, and what lets a
pipeline publish for itself only.

A step's role attaches `PublisherPolicyId`: it may put a registration event only when the event's
source names the execution and the step its session is tagged with (`wfxExecutionId`,
`wfxPipelineExecutionId`, set when the step assumes the role), the `events:source` condition.
The handler then accepts only a detail naming that same step, so a pipeline cannot attach
resources to another's row. The bus's Deny (publishers named) keeps every other principal out."""

from __future__ import annotations

from typing import Any

from adapters.aws.registration_rule import (
    BUS_PARAMETER,
    PUBLISHERS_CONDITION,
    publishers_only_policy,
    rule_resources,
)
from adapters.aws.stack.access import REGISTRATION
from adapters.aws.stack.arns import arn
from adapters.aws.stack.functions import function_id
from domain.registration import REGISTRATION_DETAIL_TYPE, compose_source

PUBLISHER_POLICY_ID = "RegistrationPublisherPolicy"
EXECUTION_TAG = "wfxExecutionId"
PIPELINE_TAG = "wfxPipelineExecutionId"


def own_source_pattern(event_source_prefix: str) -> str:
    """The one source a tagged session may publish: IAM fills in its own tags' values."""
    return compose_source(
        event_source_prefix,
        f"${{aws:PrincipalTag/{EXECUTION_TAG}}}",
        f"${{aws:PrincipalTag/{PIPELINE_TAG}}}",
    )


def registration_resources(event_source_prefix: str) -> dict[str, Any]:
    function_arn = {"Fn::GetAtt": [function_id(REGISTRATION), "Arn"]}
    return {
        **rule_resources(event_source_prefix, function_arn),
        "RegistrationPublishersOnlyPolicy": publishers_only_policy(
            event_source_prefix, PUBLISHERS_CONDITION
        ),
        PUBLISHER_POLICY_ID: {
            "Type": "AWS::IAM::ManagedPolicy",
            "Properties": {
                "Description": "wfx: a pipeline step may register resources for itself only "
                "(attach to the steps' roles; tag the session with its ids)",
                "PolicyDocument": {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Sid": "RegisterOwnStepOnly",
                            "Effect": "Allow",
                            "Action": "events:PutEvents",
                            "Resource": arn("events", f"event-bus/${{{BUS_PARAMETER}}}"),
                            "Condition": {
                                "StringLike": {
                                    "events:source": own_source_pattern(event_source_prefix)
                                },
                                "StringEquals": {"events:detail-type": REGISTRATION_DETAIL_TYPE},
                                # a session without the tags would match "" and publish nothing
                                "Null": {
                                    f"aws:PrincipalTag/{EXECUTION_TAG}": "false",
                                    f"aws:PrincipalTag/{PIPELINE_TAG}": "false",
                                },
                            },
                        }
                    ],
                },
            },
        },
    }
