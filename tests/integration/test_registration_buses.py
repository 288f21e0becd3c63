"""Publishing registration events: the local runner's in-process bus on both stores, and the
EventBridge bus on moto with the rule pattern the infrastructure template emits."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws
from pydantic import SecretStr

from adapters.aws.eventbridge import EventBridgeBus
from adapters.dynamodb.template import infrastructure_template
from adapters.tables import TableNames
from application.ports.event_bus import EventNotPublishedError
from application.use_cases.publish_registration import (
    PublishRegistration,
    PublishRegistrationCommand,
)
from application.use_cases.register_pipeline_execution import (
    RegisterPipelineExecutionCommand,
)
from domain.logs import RegisteredLog, RegisteredSubExecution
from domain.registration import REGISTRATION_DETAIL_TYPE, compose_source
from tests.contract.builders import a_launch, step_id, write_launch

STEP = step_id("e1", 0)
OTHER_STEP = step_id("e1", 1)
INNER_RUN = "arn:aws:states:us-east-1:123456789012:execution:inner:run-1"
GROUP_ARN = "arn:aws:logs:us-east-1:123456789012:log-group:/wfx/inner:*"


def a_registration(
    pipeline_execution_id: str = STEP, token: str | None = None
) -> PublishRegistrationCommand:
    return PublishRegistrationCommand(
        workflow_execution_id="e1",
        pipeline_execution_id=pipeline_execution_id,
        registration_token=None if token is None else SecretStr(token),
        sub_executions=(
            RegisteredSubExecution(
                resource_type="stepFunctionsExecution", execution_arn=INNER_RUN, label="inner"
            ),
        ),
        logs=(RegisteredLog(log_group_arn=GROUP_ARN, log_stream_prefix="states/"),),
    )


# -- the local bus -------------------------------------------------------------------------------


@pytest.fixture
def container(inline_container: Any) -> Any:
    write_launch(inline_container.execution_store(), a_launch("e1", steps=2))
    return inline_container


def token_of(container: Any, pipeline_execution_id: str) -> str:
    """The registration token the local runner gives the step of e1 (as its step would hold)."""
    return str(container.registration_credentials().issue("e1", pipeline_execution_id))


def test_the_local_bus_registers_on_the_step_before_publish_returns(container: Any) -> None:
    registration = a_registration(token=token_of(container, STEP))

    published = container.publish_registration().execute(registration)

    assert (published.bus, published.accepted, published.reason) == ("local", True, None)
    assert published.source == f"wfx.execution.e1.pipeline.{STEP}"
    step = container.execution_store().get_step(STEP)
    assert step.registered_sub_executions == (
        RegisteredSubExecution(
            resource_type="stepFunctionsExecution", execution_arn=INNER_RUN, label="inner"
        ),
    )
    assert step.registered_logs == (
        RegisteredLog(log_group_arn=GROUP_ARN, log_stream_prefix="states/"),
    )


def test_a_spoofed_source_on_the_local_bus_comes_back_refused_and_writes_nothing(
    container: Any,
) -> None:
    """The other step, with its own token, names STEP in the detail: the source must match."""
    detail = {"pipelineExecutionId": STEP, "logs": [{"logGroupName": "/wfx/a"}]}

    delivery = container.event_bus().publish(
        compose_source("wfx", "e1", OTHER_STEP),
        REGISTRATION_DETAIL_TYPE,
        detail,
        credential=token_of(container, OTHER_STEP),
    )

    assert delivery.accepted is False
    assert f"does not end in .pipeline.{STEP}" in (delivery.reason or "")
    store = container.execution_store()
    assert all(not step.registered_logs for step in store.list_steps("e1"))


@pytest.mark.parametrize(
    ("token", "refusal"),
    [
        pytest.param(lambda _: None, "no registration token", id="none"),
        pytest.param(lambda _: "", "no registration token", id="empty"),
        pytest.param(lambda _: "0" * 64, "is not this step's", id="garbage"),
        pytest.param(lambda _: "é\x00" * 3, "is not this step's", id="not ascii"),
        pytest.param(lambda c: token_of(c, OTHER_STEP), "is not this step's", id="another step's"),
        pytest.param(
            lambda c: c.registration_credentials().issue("e2", STEP),
            "is not this step's",
            id="another run's",
        ),
    ],
)
def test_a_registration_without_the_steps_own_token_is_refused_and_writes_nothing(
    container: Any, token: Any, refusal: str
) -> None:
    given = token(container)

    published = container.publish_registration().execute(a_registration(token=given))

    reason = published.reason or ""
    assert published.accepted is False
    assert reason.startswith(f"step {STEP} of execution e1: "), reason
    assert refusal in reason, reason
    assert not given or given not in reason
    step = container.execution_store().get_step(STEP)
    assert (step.registered_sub_executions, step.registered_logs) == ((), ())


def test_the_token_is_kept_out_of_the_commands_repr_and_dump(container: Any) -> None:
    token = token_of(container, STEP)
    registration = a_registration(token=token)

    assert token not in repr(registration)
    assert token not in registration.model_dump_json()


def test_a_malformed_field_is_dropped_naming_it_and_the_rest_is_kept(container: Any) -> None:
    detail = {
        "pipelineExecutionId": STEP,
        "subExecution": {"resourceType": "batchJob", "jobId": "bad id!"},
        "logs": [{"logGroupName": "/wfx/a"}],
    }

    delivery = container.event_bus().publish(
        compose_source("wfx", "e1", STEP),
        REGISTRATION_DETAIL_TYPE,
        detail,
        credential=token_of(container, STEP),
    )

    assert delivery.accepted is True
    assert "subExecution.jobId: must be 3 to 63 letters" in (delivery.reason or "")
    step = container.execution_store().get_step(STEP)
    assert step.registered_sub_executions == ()
    assert step.registered_logs == (RegisteredLog(log_group_name="/wfx/a"),)


@pytest.mark.parametrize(
    ("source", "detail_type"),
    [
        pytest.param(f"other.execution.e1.pipeline.{STEP}", REGISTRATION_DETAIL_TYPE, id="prefix"),
        pytest.param(compose_source("wfx", "e1", STEP), "pipeline.execution.other", id="type"),
    ],
)
def test_an_event_no_subscription_matches_is_not_delivered_and_says_so(
    container: Any, source: str, detail_type: str
) -> None:
    delivery = container.event_bus().publish(source, detail_type, {"pipelineExecutionId": STEP})

    assert delivery.accepted is False
    assert "no subscription on the local bus" in (delivery.reason or "")


# -- EventBridge on moto ---------------------------------------------------------------------------


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, Any, str]]:
    """An events client, an SQS client and a queue the template's rule delivers to (moto
    cannot deliver to a Lambda target, so SQS stands in for the handler)."""
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        events = boto3.client("events", region_name="us-east-1")
        sqs = boto3.client("sqs", region_name="us-east-1")
        queue_url = sqs.create_queue(QueueName="registrations")["QueueUrl"]
        queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])[
            "Attributes"
        ]["QueueArn"]
        rule = infrastructure_template(TableNames())["Resources"]["RegistrationRule"]
        events.put_rule(
            Name="wfx-registration",
            EventPattern=json.dumps(rule["Properties"]["EventPattern"]),
            State="ENABLED",
        )
        events.put_targets(Rule="wfx-registration", Targets=[{"Id": "queue", "Arn": queue_arn}])
        yield events, sqs, queue_url


def _delivered(sqs: Any, queue_url: str) -> list[dict[str, Any]]:
    messages = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10).get("Messages", [])
    return [json.loads(message["Body"]) for message in messages]


def test_eventbridge_delivers_the_published_event_through_the_template_rule(
    aws: tuple[Any, Any, str],
) -> None:
    events, sqs, queue_url = aws
    publish = PublishRegistration(EventBridgeBus(lambda: events), source_prefix="wfx")

    published = publish.execute(a_registration())

    assert (published.bus, published.accepted) == ("eventbridge", None)
    assert published.event_id
    (envelope,) = _delivered(sqs, queue_url)
    assert envelope["source"] == f"wfx.execution.e1.pipeline.{STEP}"
    assert envelope["detail-type"] == REGISTRATION_DETAIL_TYPE
    assert envelope["detail"] == {
        "pipelineExecutionId": STEP,
        "workflowExecutionId": "e1",
        "subExecution": {
            "resourceType": "stepFunctionsExecution",
            "executionArn": INNER_RUN,
            "label": "inner",
        },
        "logs": [
            {
                "logGroupArn": GROUP_ARN,
                "logGroupName": "",
                "logStreamName": "",
                "logStreamPrefix": "states/",
                "stageName": "",
                "label": "",
                "sourceType": "",
            }
        ],
    }
    # what the rule delivers is what the handler parses
    command = RegisterPipelineExecutionCommand.model_validate(envelope)
    assert command.detail.pipeline_execution_id == STEP


def test_eventbridge_is_never_sent_a_registration_token(aws: tuple[Any, Any, str]) -> None:
    """IAM on PutEvents decides who may publish there (docs/aws.md); a token is dropped."""
    events, sqs, queue_url = aws
    publish = PublishRegistration(EventBridgeBus(lambda: events), source_prefix="wfx")
    token = "f" * 64

    publish.execute(a_registration(token=token))

    (envelope,) = _delivered(sqs, queue_url)
    assert token not in json.dumps(envelope)


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(f"acme.execution.e1.pipeline.{STEP}", id="another prefix"),
        pytest.param(f"evil.wfx.execution.e1.pipeline.{STEP}", id="the prefix not at the start"),
        pytest.param(f"wfx.executions.e1.pipeline.{STEP}", id="not .execution."),
    ],
)
def test_eventbridge_does_not_route_a_source_outside_the_prefix(
    aws: tuple[Any, Any, str], source: str
) -> None:
    events, sqs, queue_url = aws

    EventBridgeBus(lambda: events).publish(source, REGISTRATION_DETAIL_TYPE, {"x": 1})

    assert _delivered(sqs, queue_url) == []


def test_eventbridge_does_not_route_another_detail_type(aws: tuple[Any, Any, str]) -> None:
    events, sqs, queue_url = aws

    EventBridgeBus(lambda: events).publish(
        compose_source("wfx", "e1", STEP), "pipeline.execution.other", {"x": 1}
    )

    assert _delivered(sqs, queue_url) == []


def test_a_missing_bus_is_a_clear_error(aws: tuple[Any, Any, str]) -> None:
    events, _, _ = aws

    with pytest.raises(EventNotPublishedError, match=r"bus nope .*ResourceNotFoundException"):
        EventBridgeBus(lambda: events, bus_name="nope").publish("wfx.x", "t", {})


def test_a_failed_entry_is_a_clear_error_naming_its_code_and_message() -> None:
    """Stubber: moto never fails a single entry of a PutEvents that it accepts, so the real
    response shape (HTTP 200, FailedEntryCount 1, the entry's ErrorCode/ErrorMessage) is stubbed.
    """
    client = boto3.client(
        "events",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    stubber = Stubber(client)
    stubber.add_response(
        "put_events",
        {
            "FailedEntryCount": 1,
            "Entries": [
                {"ErrorCode": "InternalFailure", "ErrorMessage": "token=AKIAABCDEFGHIJKLMNOP"}
            ],
        },
        {
            "Entries": [
                {
                    "Source": "wfx.execution.e1.pipeline.p1",
                    "DetailType": REGISTRATION_DETAIL_TYPE,
                    "Detail": json.dumps({"pipelineExecutionId": "p1"}),
                    "EventBusName": "default",
                }
            ]
        },
    )
    with stubber, pytest.raises(EventNotPublishedError) as failed:
        EventBridgeBus(lambda: client).publish(
            "wfx.execution.e1.pipeline.p1", REGISTRATION_DETAIL_TYPE, {"pipelineExecutionId": "p1"}
        )

    assert "InternalFailure" in str(failed.value)
    assert "AKIAABCDEFGHIJKLMNOP" not in str(failed.value)  # redacted before it leaves
    stubber.assert_no_pending_responses()
