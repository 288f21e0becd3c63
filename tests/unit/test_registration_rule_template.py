"""The infrastructure template's registration rule: the seed's pattern, the handler as target,
EventBridge allowed to invoke it, and nothing of it when no function ARN is given."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.dynamodb.template import infrastructure_template
from adapters.tables import TableNames
from domain.errors import InvalidInputError


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return infrastructure_template(TableNames(), event_source_prefix="acme")


def test_the_rule_routes_the_prefixed_registration_events_to_the_function(
    template: dict[str, Any],
) -> None:
    rule = template["Resources"]["RegistrationRule"]

    assert rule["Type"] == "AWS::Events::Rule"
    properties = rule["Properties"]
    assert properties["EventPattern"] == {
        "source": [{"prefix": "acme.execution."}],
        "detail-type": ["pipeline.execution.register"],
    }
    assert properties["EventBusName"] == {"Ref": "EventBusName"}
    assert properties["State"] == "ENABLED"
    (target,) = properties["Targets"]
    assert target["Arn"] == {"Ref": "RegistrationFunctionArn"}


def test_eventbridge_may_invoke_the_function_for_that_rule_only(
    template: dict[str, Any],
) -> None:
    permission = template["Resources"]["RegistrationInvokePermission"]

    assert permission["Type"] == "AWS::Lambda::Permission"
    assert permission["Properties"] == {
        "Action": "lambda:InvokeFunction",
        "FunctionName": {"Ref": "RegistrationFunctionArn"},
        "Principal": "events.amazonaws.com",
        "SourceArn": {"Fn::GetAtt": ["RegistrationRule", "Arn"]},
    }


def test_without_a_function_arn_the_stack_has_the_tables_and_no_rule(
    template: dict[str, Any],
) -> None:
    parameters = template["Parameters"]
    assert parameters["RegistrationFunctionArn"]["Default"] == ""
    assert parameters["EventBusName"]["Default"] == "default"
    condition = template["Conditions"]["HasRegistrationFunction"]
    assert condition == {"Fn::Not": [{"Fn::Equals": [{"Ref": "RegistrationFunctionArn"}, ""]}]}
    for logical_id in ("RegistrationRule", "RegistrationInvokePermission"):
        assert template["Resources"][logical_id]["Condition"] == "HasRegistrationFunction"
    assert all(
        "Condition" not in resource
        for resource in template["Resources"].values()
        if resource["Type"] == "AWS::DynamoDB::Table"
    )


def test_the_bus_denies_a_registration_source_to_every_principal_but_the_publishers(
    template: dict[str, Any],
) -> None:
    policy = template["Resources"]["RegistrationPublishersOnlyPolicy"]

    assert policy["Type"] == "AWS::Events::EventBusPolicy"
    assert policy["Condition"] == "HasRegistrationPublishers"
    properties = policy["Properties"]
    assert properties["EventBusName"] == {"Ref": "EventBusName"}
    statement = properties["Statement"]
    assert (statement["Effect"], statement["Principal"], statement["Action"]) == (
        "Deny",
        "*",
        "events:PutEvents",
    )
    assert statement["Resource"] == {
        "Fn::Sub": "arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}"
        ":event-bus/${EventBusName}"
    }
    assert statement["Condition"] == {
        "StringLike": {"events:source": ["acme.execution.*"]},
        "ArnNotLike": {"aws:PrincipalArn": {"Ref": "RegistrationPublisherArns"}},
    }


def test_without_publishers_the_bus_gets_no_policy(template: dict[str, Any]) -> None:
    parameter = template["Parameters"]["RegistrationPublisherArns"]
    assert (parameter["Type"], parameter["Default"]) == ("CommaDelimitedList", "")
    assert template["Conditions"]["HasRegistrationPublishers"] == {
        "Fn::And": [
            {"Condition": "HasRegistrationFunction"},
            {
                "Fn::Not": [
                    {"Fn::Equals": [{"Fn::Join": ["", {"Ref": "RegistrationPublisherArns"}]}, ""]}
                ]
            },
        ]
    }


def test_the_default_prefix_is_wfx() -> None:
    rule = infrastructure_template(TableNames())["Resources"]["RegistrationRule"]
    assert rule["Properties"]["EventPattern"]["source"] == [{"prefix": "wfx.execution."}]


def test_a_prefix_eventbridge_would_refuse_is_refused_before_a_template_is_emitted() -> None:
    with pytest.raises(InvalidInputError, match="eventSourcePrefix"):
        infrastructure_template(TableNames(), event_source_prefix="aws.events")
