"""`GET /workflows/executions/{id}/details` answers VAMS 2.6's details document, as its web
client's details page reads it (ExecutionDetail, ExecutionDetailPipeline in VAMS's web types;
the keys and types of VAMS's details builder), on both stores."""

from __future__ import annotations

import re
from typing import Any

from application.use_cases.launch_execution import LaunchExecutionCommand
from tests.http.conftest import ADMIN, DATABASE, INPUTS, RESULTS, WORKFLOW, Service

VAMS_DATE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")

# VAMS's top-level keys and the type of each
RUN_KEYS: dict[str, type | tuple[type, ...]] = {
    "workflowExecutionId": str,
    "workflowId": str,
    "workflowDatabaseId": str,
    "workflowName": str,
    "workflowDescription": str,
    "workflowSystemConfig": dict,
    "executionStatus": str,
    "executionStartDate": str,
    "executionStopDate": str,
    "triggerType": str,
    "triggeredByUserId": str,
    "executionError": str,
    "outputLocationType": str,
    "outputDatabaseId": str,
    "outputAssetId": str,
    "outputFileBaseExecutionPathExtension": str,
    "metadataSourceDatabaseId": str,
    "metadataSourceDatabases": list,
    "metadataSourceAssets": list,
    "pipelines": list,
    "inputFiles": list,
    "inputMetadata": list,
    "inputDatabaseMetadata": list,
    "inputConfigurations": list,
    "outputs": dict,
    "truncatedCollections": list,
}
PIPELINE_KEYS: dict[str, type | tuple[type, ...]] = {
    "pipelineId": str,
    "pipelineDatabaseId": str,
    "pipelineExecutionId": str,
    "name": str,
    "description": str,
    "pipelineType": str,
    "pipelineExecutionType": str,
    "endStatePipeline": bool,
    "executionStatus": str,
    "executionStartDate": str,
    "executionStopDate": str,
    "renderedConfig": str,
    "renderedConfigTruncated": bool,
    "templateId": str,
    "templateTags": list,
    "customTemplateOverrideUsed": bool,
    "configFormat": str,
    "effectiveSystemConfig": dict,
    "templateOverrides": dict,
    "availableLogs": list,
}


def _details(service: Service, execution_id: str, **params: str) -> dict[str, Any]:
    answer = service.client.get(
        f"/workflows/executions/{execution_id}/details",
        params=params,
        headers=service.as_user(ADMIN, ("admin",)),
    )
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    assert set(body) == {"message"}  # VAMS's envelope
    details: dict[str, Any] = body["message"]
    return details


def _typed(document: dict[str, Any], keys: dict[str, type | tuple[type, ...]]) -> list[str]:
    """Each of VAMS's keys missing or of another type, by name."""
    return [
        name
        for name, kind in keys.items()
        if name not in document or not isinstance(document[name], kind)
    ]


def test_the_run_is_flat_with_vams_s_keys_types_and_dates(service: Service) -> None:
    details = _details(service, service.execution_id)

    assert _typed(details, RUN_KEYS) == []
    assert details["workflowExecutionId"] == service.execution_id
    assert (details["workflowDatabaseId"], details["workflowId"]) == (
        DATABASE,
        WORKFLOW["workflowId"],
    )
    assert details["executionStatus"] == "SUCCEEDED"
    assert VAMS_DATE.match(details["executionStartDate"])
    assert VAMS_DATE.match(details["executionStopDate"])
    assert (details["triggerType"], details["triggeredByUserId"]) == ("Manual", ADMIN)
    assert details["executionError"] == ""
    # looked up from the workflow's definition, as VAMS looks up its workflow's
    assert (details["workflowName"], details["workflowDescription"]) == (
        WORKFLOW["workflowId"],
        WORKFLOW["description"],
    )
    assert details["outputLocationType"] == "asset"
    assert (details["outputDatabaseId"], details["outputAssetId"]) == (DATABASE, RESULTS)
    assert details["truncatedCollections"] == []
    assert not {"execution", "pipelineExecutions", "inputs"} & set(details)


def test_each_pipeline_has_vams_s_keys_in_chain_order(service: Service) -> None:
    details = _details(service, service.execution_id)

    pipelines = details["pipelines"]
    assert [p["pipelineId"] for p in pipelines] == ["prepare", "transform", "report"]
    assert [_typed(p, PIPELINE_KEYS) for p in pipelines] == [[], [], []]
    assert [p["endStatePipeline"] for p in pipelines] == [False, False, True]
    assert {p["executionStatus"] for p in pipelines} == {"SUCCEEDED"}
    assert all(VAMS_DATE.match(p["executionStopDate"]) for p in pipelines)
    assert {p["pipelineExecutionType"] for p in pipelines} == {"python"}
    assert [c["pipelineId"] for c in details["inputConfigurations"]] == [
        "prepare",
        "transform",
        "report",
    ]
    # no sub-executions unless asked for
    assert not any("subExecutions" in p for p in pipelines)
    asked = _details(service, service.execution_id, includeSubExecutions="true")
    assert [p["subExecutions"] for p in asked["pipelines"]] == [[], [], []]


def test_inputs_and_outputs_are_the_run_s_collections_tagged_with_their_step(
    service: Service,
) -> None:
    details = _details(service, service.execution_id)

    # VAMS lists the selection the launch made (here a whole asset: its root, "/"-led, no
    # version); the files it resolved to, each at the version read, are wfx's own key
    [selection] = details["inputFiles"]
    assert (selection["databaseId"], selection["assetId"], selection["versionId"]) == (
        DATABASE,
        INPUTS,
        "",
    )
    assert selection["inputAssetFileKey"].startswith("/")
    assert selection["inputAssetFileKey"].endswith("/")
    resolved = details["resolvedInputFiles"]
    assert sorted((f["assetId"], f["inputAssetFileKey"]) for f in resolved) == [
        (INPUTS, "a.obj"),
        (INPUTS, "b.obj"),
    ]
    assert all(f["versionId"] for f in resolved)
    steps = {p["pipelineExecutionId"]: p["pipelineId"] for p in details["pipelines"]}
    outputs = details["outputs"]
    assert set(outputs) == {"files", "metadata", "results"}
    for collection in outputs.values():
        assert all(steps[row["pipelineExecutionId"]] == row["pipelineId"] for row in collection)
    report = [f for f in outputs["files"] if f["relativeFilePath"] == "report.txt"]
    assert [(f["fileType"], f["assetId"], f["databaseId"]) for f in report] == [
        ("file", RESULTS, DATABASE)
    ]
    assert isinstance(report[0]["fileSize"], int)
    assert {(m["targetFilePath"], m["metadataKey"]) for m in outputs["metadata"]} >= {
        ("/report.txt", "lines")
    }


def test_a_results_file_s_text_is_inlined(service: Service) -> None:
    details = _details(service, service.execution_id)

    results = {r["relativeFilePath"]: r for r in details["outputs"]["results"]}
    report = results["report.txt"]
    assert report["resultsContent"] == f"report of {service.execution_id}\nall good\n"
    assert report["resultsContentTruncated"] is False
    assert report["pipelineId"] == "report"


def test_a_single_file_selection_is_listed_with_the_version_read(service: Service) -> None:
    command = LaunchExecutionCommand(
        workflow_database_id=DATABASE,
        workflow_id=WORKFLOW["workflowId"],
        inputs=(f"{DATABASE}/{INPUTS}/b.obj", f"{DATABASE}/{INPUTS}"),
        output=f"{DATABASE}/{RESULTS}",
        user_id=ADMIN,
    )
    launched = service.container.launch_execution().execute(command)
    details = _details(service, str(launched.execution.workflow_execution_id))

    by_key = {f["inputAssetFileKey"]: f for f in details["inputFiles"]}
    assert len(by_key) == 2 == len(details["inputFiles"])
    [file_key] = [key for key in by_key if key.endswith("/b.obj")]
    [root] = [key for key in by_key if key.endswith("/")]
    assert file_key.startswith("/") and file_key == root + "b.obj"
    assert by_key[root]["versionId"] == ""
    read = {f["inputAssetFileKey"]: f["versionId"] for f in details["resolvedInputFiles"]}
    assert by_key[file_key]["versionId"] == read["b.obj"] != ""
