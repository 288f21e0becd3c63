"""`wfx pipelines register` with WFX_EVENT_BUS=eventbridge, against moto's server over real
HTTP: the event goes out through PutEvents, and the rule the infrastructure template emits
routes it (to SQS: moto cannot deliver to a Lambda target)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

from adapters.dynamodb.template import infrastructure_template
from adapters.tables import TableNames
from tests.e2e.cli import FAKE_AWS, Wfx
from tests.integration.moto_server import moto_server

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("cli-register-on-eventbridge")]


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with moto_server() as url:
        yield url


def _client(service: str, endpoint: str) -> Any:
    factory: Any = boto3.client  # one helper for two services: past the typed overloads
    return factory(
        service,
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def test_a_registration_published_on_eventbridge_is_routed_by_the_template_rule(
    endpoint: str, tmp_path: Path
) -> None:
    # one test, every step inside it: another module's mock_aws() may reset moto's backends
    events, sqs = _client("events", endpoint), _client("sqs", endpoint)
    queue_url = sqs.create_queue(QueueName="acme-registrations")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])[
        "Attributes"
    ]["QueueArn"]
    rule = infrastructure_template(TableNames(), event_source_prefix="acme")["Resources"][
        "RegistrationRule"
    ]
    events.put_rule(
        Name="acme-registration", EventPattern=json.dumps(rule["Properties"]["EventPattern"])
    )
    events.put_targets(Rule="acme-registration", Targets=[{"Id": "q", "Arn": queue_arn}])
    wfx = Wfx(
        tmp_path / "home",
        **FAKE_AWS,
        AWS_ENDPOINT_URL=endpoint,
        WFX_EVENT_BUS="eventbridge",
        WFX_EVENT_SOURCE_PREFIX="acme",
        WFX_EXECUTION_ID="run-1",
        WFX_PIPELINE_EXECUTION_ID="step-1",
    )

    outcome = wfx("pipelines", "register", "--log-group-name", "/acme/inner", "--json")

    assert outcome.code == 0, str(outcome)
    printed = outcome.json()
    assert printed["bus"] == "eventbridge"
    assert printed["accepted"] is None  # EventBridge delivers later; the Lambda decides
    assert printed["eventId"]
    messages = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10)["Messages"]
    (envelope,) = [json.loads(message["Body"]) for message in messages]
    assert envelope["source"] == "acme.execution.run-1.pipeline.step-1"
    assert envelope["detail-type"] == "pipeline.execution.register"
    assert envelope["detail"]["pipelineExecutionId"] == "step-1"
    assert envelope["detail"]["logs"][0]["logGroupName"] == "/acme/inner"

    missing_bus = wfx.with_environment(WFX_EVENT_BUS_NAME="no-such-bus")(
        "pipelines", "register", "--log-group-name", "/acme/inner"
    )

    assert missing_bus.code == 3, str(missing_bus)
    assert missing_bus.stderr_lines == [
        "error: EventBridge bus no-such-bus did not take the event: ResourceNotFoundException: "
        "Event bus no-such-bus does not exist."
    ]
