"""A body the service cannot read as JSON is a 400 that says why: where the JSON breaks, that the
content type is not JSON's, that it nests too deeply, is not UTF-8, or holds a number too long -
never FastAPI's "There was an error parsing the body" nor a rule about dictionaries."""

from __future__ import annotations

import pytest

from tests.http.conftest import ADMIN, DATABASE, WORKFLOW, Service

pytestmark = pytest.mark.parametrize("inline_container", ["sqlite"], indirect=True)

LAUNCH = f'{{"workflowDatabaseId": "{DATABASE}", "workflowId": "{WORKFLOW["workflowId"]}"}}'
JSON = {"Content-Type": "application/json"}


def _launch(service: Service, body: bytes, headers: dict[str, str]) -> str:
    """The message of a launch refused with a 400, once the run count is seen unchanged."""
    admin = service.as_user(ADMIN, ("admin",))
    runs = "/workflows/executions"
    # the rows only: the echoed default window moves with the clock
    before = service.client.get(runs, headers=admin).json()["message"]["Items"]
    answer = service.client.post("/workflows/executions", content=body, headers=admin | headers)
    assert answer.status_code == 400, answer.text
    assert service.client.get(runs, headers=admin).json()["message"]["Items"] == before
    message: str = answer.json()["message"]
    return message


def test_json_broken_off_says_where_and_why(service: Service) -> None:
    message = _launch(service, b'{"workflowDatabaseId": "http",', JSON)

    assert message.startswith("body: not valid JSON"), message
    assert "Expecting property name enclosed in double quotes" in message
    assert "character 30" in message


@pytest.mark.parametrize(
    "content_type", [None, "text/plain", "application/x-www-form-urlencoded", "application/xml"]
)
def test_json_sent_without_json_s_content_type_says_to_send_it(
    service: Service, content_type: str | None
) -> None:
    headers = {} if content_type is None else {"Content-Type": content_type}

    message = _launch(service, LAUNCH.encode(), headers)

    assert "Content-Type: application/json" in message, message
    assert "dictionary" not in message
    assert content_type is None or repr(content_type) in message


@pytest.mark.parametrize(
    ("body", "rule"),
    [
        (b'{"inputs": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply"),
        (b'{"workflowDatabaseId": "\xe9t\xe9"}', "not UTF-8"),
        (b'{"workflowVersion": 1' + b"0" * 5000 + b"}", "a number too long"),
    ],
)
def test_a_body_json_cannot_hold_says_the_rule(service: Service, body: bytes, rule: str) -> None:
    message = _launch(service, body, JSON)

    assert message.startswith("body: ") and rule in message, message
    assert "There was an error parsing the body" not in message


@pytest.mark.parametrize(
    ("body", "key"),
    [
        (
            '{"databaseId": "http", "workflowId": "one", "workflowId": "two", "steps": '
            '[{"pipelineId": "s", "executionType": "approval", "approvers": ["bob"]}]}',
            "workflowId",
        ),
        (
            '{"databaseId": "http", "workflowId": "one", "steps": [{"pipelineId": "s", '
            '"executionType": "approval", "approvers": ["bob"], "approvers": ["eve"]}]}',
            "approvers",
        ),
    ],
    ids=["top", "in-a-step"],
)
def test_a_workflow_naming_a_key_twice_is_refused_not_the_later_one_kept(
    service: Service, body: str, key: str
) -> None:
    """As its YAML file is (`wfx workflows publish`): which of the two the author meant is
    theirs to say."""
    anonymous = service.client.put("/workflows", content=body.encode(), headers=JSON)
    assert anonymous.status_code == 401, anonymous.text  # who asks comes first, as ever
    admin = service.as_user(ADMIN, ("admin",))
    answer = service.client.put("/workflows", content=body.encode(), headers=admin | JSON)
    assert answer.status_code == 400, answer.text
    message = answer.json()["message"]
    assert message.startswith("body: ") and f"key {key!r} given twice" in message, message
    for workflow_id in ("one", "two"):
        shown = service.client.get(f"/database/{DATABASE}/workflows/{workflow_id}", headers=admin)
        assert shown.status_code == 404, shown.text


def test_a_body_breaking_rules_by_the_thousand_names_the_first_and_counts_the_rest(
    service: Service,
) -> None:
    extra = ", ".join(f'"k{index}": 1' for index in range(3000))
    message = _launch(service, f"{LAUNCH[:-1]}, {extra}}}".encode(), JSON)

    assert message.startswith("body.k0: unknown key; body.k1: unknown key"), message[:200]
    assert message.endswith("and 2990 more") and len(message) < 1000, message[-200:]


def test_a_rule_broken_by_a_field_named_like_a_secret_is_said_whole(service: Service) -> None:
    """`token: unknown key` is a field and its rule, not a token and its value: the rule is
    not redacted as if it were the secret."""
    message = _launch(service, f'{LAUNCH[:-1]}, "token": 1, "password": 2}}'.encode(), JSON)

    assert message == "body.token: unknown key; body.password: unknown key", message
