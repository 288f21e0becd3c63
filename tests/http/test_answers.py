"""What a caller gets back: the shared response models, full lists of what it may read, and one
error shape - `{"message"}` naming the field and the rule, never a trace or an internal name."""

from __future__ import annotations

import pytest

from domain.authorization import Action
from domain.constraints import Operator
from tests.http.conftest import ADMIN, DATABASE, INPUTS, RESULTS, WORKFLOW, Service, allow

ADMIN_ROLE = ("admin",)

# What a caller gets back is the HTTP layer's to say, whatever the store: these run on SQLite;
# the route x permission matrix, the fuzzing, the templates and delete run on both stores.
pytestmark = pytest.mark.parametrize("inline_container", ["sqlite"], indirect=True)


def _admin(service: Service) -> dict[str, str]:
    return service.as_user(ADMIN, ADMIN_ROLE)


def test_no_token_is_a_401_that_says_how_to_get_one(service: Service) -> None:
    answer = service.client.get("/workflows/executions")
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == "Bearer"
    assert "wfx auth token" in answer.json()["message"]


@pytest.mark.parametrize(
    "header",
    ["Bearer not-a-token", "Basic cm9vdDpyb290", "Bearer ", "bearer a.b.c"],
)
def test_a_bad_token_is_a_401_that_does_not_echo_it(service: Service, header: str) -> None:
    answer = service.client.get("/workflows/executions", headers={"Authorization": header})
    assert answer.status_code == 401
    assert set(answer.json()) == {"message"}
    token = header.partition(" ")[2]
    assert not token or token not in answer.json()["message"]


def test_the_admin_reads_a_run_in_vams_s_envelope(service: Service) -> None:
    answer = service.client.get(
        f"/workflows/executions/{service.execution_id}", headers=_admin(service)
    )
    assert answer.status_code == 200
    body = answer.json()["message"]
    assert body["workflowExecutionId"] == service.execution_id
    assert body["executionStatus"] == "SUCCEEDED"
    assert not {"allListPartition", "requestDigest", "workflowDatabaseId:workflowId"} & set(body)


def test_the_details_name_each_output_files_attempt_and_list_the_attempts_artifacts(
    service: Service,
) -> None:
    answer = service.client.get(
        f"/workflows/executions/{service.execution_id}/details", headers=_admin(service)
    )
    assert answer.status_code == 200
    details = answer.json()["message"]
    steps, files = details["pipelines"], details["outputs"]["files"]
    assert files and all(f["attempt"] == 1 for f in files)
    for step in steps:
        # each step ran once: its one attempt's artifacts are its output files
        latest = {
            (f["relativeFilePath"], f["s3VersionId"])
            for f in files
            if f["pipelineExecutionId"] == step["pipelineExecutionId"]
        }
        kept = {(a["relativeFilePath"], a["versionId"]) for a in step["artifacts"]}
        assert kept == latest
        assert {a["attempt"] for a in step["artifacts"]} <= {1}
    assert any(step["artifacts"] for step in steps)


def test_a_list_pages_newest_first_and_says_next_token(service: Service) -> None:
    second = service.launch()
    headers = _admin(service)
    first = service.client.get("/workflows/executions", params={"maxItems": 1}, headers=headers)
    assert first.status_code == 200
    page = first.json()["message"]
    assert [item["workflowExecutionId"] for item in page["Items"]] == [second]
    rest = service.client.get(
        "/workflows/executions",
        params={"maxItems": 1, "startingToken": page["NextToken"]},
        headers=headers,
    ).json()["message"]
    assert [item["workflowExecutionId"] for item in rest["Items"]] == [service.execution_id]


def test_a_caller_with_no_role_sees_an_empty_list(service: Service) -> None:
    listed = service.client.get("/workflows/executions", headers=service.as_user("nobody"))
    assert listed.status_code == 403  # tier 1: no role lets it reach the route at all


def test_a_caller_let_through_every_route_still_reads_no_run(service: Service) -> None:
    nobody = service.as_user("nobody")
    routes = [
        allow(
            "routes-only",
            f"routes-{action.value}",
            "api",
            action,
            Operator.STARTS_WITH,
            route__path="/",
        )
        for action in Action
    ]
    service.grant("nobody", "routes-only", routes)
    listed = service.client.get("/workflows/executions", headers=nobody)
    assert listed.status_code == 200
    assert listed.json()["message"]["Items"] == [] and "NextToken" not in listed.json()["message"]
    one = service.client.get(f"/workflows/executions/{service.execution_id}", headers=nobody)
    assert one.status_code == 403


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"maxItems": "0"}, "maxItems"),
        ({"maxItems": "abc"}, "maxItems"),
        ({"pageSize": "0"}, "pageSize"),
        ({"filterStartDate": "yesterday"}, "filterStartDate"),
        ({"triggerType": "cron"}, "triggerType"),
        ({"direction": "sideways"}, "direction"),
        ({"databaseId": DATABASE}, "assetId"),
        ({"startingToken": "not-a-token"}, "startingToken"),
    ],
)
def test_a_bad_list_parameter_is_a_400_naming_it(
    service: Service, params: dict[str, str], named: str
) -> None:
    answer = service.client.get("/workflows/executions", params=params, headers=_admin(service))
    assert answer.status_code == 400, answer.text
    assert named in answer.json()["message"]


def test_a_bad_launch_body_is_a_400_naming_the_field(service: Service) -> None:
    answer = service.client.post(
        "/workflows/executions",
        json={"workflowDatabaseId": DATABASE, "workflowId": "x", "inputs": [{"assetId": "a"}]},
        headers=_admin(service),
    )
    assert answer.status_code == 400
    assert "body.inputs[0].databaseId: required" in answer.json()["message"]


def test_unknown_runs_routes_and_methods_answer_in_the_one_shape(service: Service) -> None:
    headers = _admin(service)
    missing = service.client.get("/workflows/executions/no-such-run", headers=headers)
    assert (missing.status_code, set(missing.json())) == (404, {"message"})
    nowhere = service.client.get("/nowhere", headers=headers)
    assert (nowhere.status_code, set(nowhere.json())) == (404, {"message"})
    wrong = service.client.patch("/workflows/executions", headers=headers)
    assert (wrong.status_code, set(wrong.json())) == (405, {"message"})


def test_a_redrive_the_seed_refuses_is_a_409_with_its_reason(service: Service) -> None:
    answer = service.client.post(
        f"/workflows/executions/{service.execution_id}/redrive", headers=_admin(service)
    )
    assert answer.status_code == 409
    assert "SUCCEEDED" in answer.json()["message"]


def test_a_launch_answers_the_run_and_a_retry_with_its_token_the_same(service: Service) -> None:
    body = {
        "workflowDatabaseId": DATABASE,
        "workflowId": WORKFLOW["workflowId"],
        "inputs": [{"databaseId": DATABASE, "assetId": INPUTS}],
        "outputAsset": {"databaseId": DATABASE, "assetId": RESULTS},
        "clientToken": "once",
    }
    first = service.client.post("/workflows/executions", json=body, headers=_admin(service))
    again = service.client.post("/workflows/executions", json=body, headers=_admin(service))
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json()["workflowExecutionId"] == again.json()["workflowExecutionId"]
    assert first.json()["triggeredByUserId"] == ADMIN


def test_a_file_upload_launch_belongs_to_system_user(service: Service) -> None:
    body = {
        "workflowDatabaseId": DATABASE,
        "workflowId": WORKFLOW["workflowId"],
        "inputs": [{"databaseId": DATABASE, "assetId": INPUTS, "fileKey": "a.obj"}],
        "triggerType": "fileUpload",
    }
    answer = service.client.post("/workflows/executions", json=body, headers=_admin(service))
    assert answer.status_code == 201, answer.text
    assert (answer.json()["triggerType"], answer.json()["triggeredByUserId"]) == (
        "File-Upload",
        "SYSTEM_USER",
    )


def test_a_workflow_and_a_group_filter_one_list_together(service: Service) -> None:
    params = {"executionGroupId": "g", "workflowDatabaseId": DATABASE, "workflowId": "w"}
    answer = service.client.get("/workflows/executions", params=params, headers=_admin(service))
    assert answer.status_code == 200, answer.text
    assert answer.json()["message"]["Items"] == []


def test_an_output_asset_id_no_folder_holds_is_a_400_naming_it(service: Service) -> None:
    """256 characters pass the body's bound, but the id is a folder of the local object store
    (at most 255 bytes): the run retried ~7 s and ended FAILED at its last step."""
    body = {
        "workflowDatabaseId": DATABASE,
        "workflowId": WORKFLOW["workflowId"],
        "inputs": [{"databaseId": DATABASE, "assetId": INPUTS}],
        "outputAsset": {"databaseId": DATABASE, "assetId": "r" * 256},
    }
    answer = service.client.post("/workflows/executions", json=body, headers=_admin(service))
    assert answer.status_code == 400, answer.text
    assert answer.json()["message"].startswith("output: asset id") and "at most 255" in answer.text
    listed = service.client.get("/workflows/executions", headers=_admin(service)).json()
    assert len(listed["message"]["Items"]) == 1  # the fixture's run only
