"""What a row another writer shaped otherwise is said to hold: every parser's failure names the
attribute, what it holds (its kind, cut short) and what wfx expects there, never Python's words
(`invalid literal for int()`, `'str' object has no attribute 'get'`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from adapters import (
    approval_records,
    cost_records,
    event_records,
    output_records,
    run_records,
    step_records,
)
from adapters.tables import ResourceKeys
from domain.errors import UnreadableRowError
from tests import vams_items as vams

RUN = vams.EXECUTION_ID
STEP = vams.STEPS[0]
WHEN = "2026-11-30T10:00:00.000000Z"
_VAMS = vams.vams_run()


def _vams(key: ResourceKeys) -> dict[str, Any]:
    return dict(_VAMS[key][0])


ATTEMPT = {
    "pipelineExecutionId": STEP,
    "attempt": 1,
    "workflowExecutionId": RUN,
    "status": "SUCCEEDED",
    "startDate": WHEN,
    "stopDate": WHEN,
    "trigger": "start",
}
ARTIFACT = {
    "pipelineExecutionId": STEP,
    "attempt:fileType:relativeFilePath": "1:file:a.glb",
    "workflowExecutionId": RUN,
    "attempt": 1,
    "fileType": "file",
    "relativeFilePath": "a.glb",
    "versionId": "v1",
    "size": 10,
    "etag": "e",
    "recordedAt": WHEN,
}
EVENT = {
    "workflowExecutionId": RUN,
    "sequenceNumber": 1,
    "eventType": "ExecutionLaunched",
    "occurredAt": WHEN,
}
COST = {
    "workflowExecutionId": RUN,
    "entryKey": "k1",
    "entryId": "k1",
    "pipelineExecutionId": STEP,
    "attempt": 1,
    "workflowDatabaseId": "vamsdb",
    "workflowId": "wf-vams",
    "kind": "duration",
    "quantity": "1.5",
    "unit": "second",
    "basis": "estimate",
    "source": "runner",
    "recordedAt": WHEN,
}
APPROVAL = {
    "workflowExecutionId": RUN,
    "approvalId": "a1",
    "pipelineExecutionId": STEP,
    "attempt": 1,
    "pipelineId": "mesh-scan",
    "workflowDatabaseId": "vamsdb",
    "workflowId": "wf-vams",
    "approvers": ["alice"],
    "requestedAt": WHEN,
    "expiresAt": WHEN,
    "approvalStatus": "PENDING",
}

Parse = Callable[[dict[str, Any]], object]
MAIN = (run_records.parse_execution_record, _vams(ResourceKeys.WORKFLOW_EXECUTIONS))
STEPS = (step_records.parse_pipeline_execution_record, _vams(ResourceKeys.PIPELINE_EXECUTIONS))
STEP_CONFIGURATION = (
    step_records.parse_step_input_configuration_record,
    _vams(ResourceKeys.PIPELINE_INPUT_CONFIGURATION),
)
STEP_METADATA = (
    step_records.parse_step_input_metadata_record,
    _vams(ResourceKeys.PIPELINE_INPUT_METADATA),
)
INPUTS = (run_records.parse_execution_input_record, _vams(ResourceKeys.WORKFLOW_EXECUTION_INPUTS))
CONFIGURATION = (
    run_records.parse_execution_configuration_record,
    _vams(ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION),
)
OUTPUT_FILES = (output_records.parse_output_file_record, _vams(ResourceKeys.PIPELINE_OUTPUT_FILES))
OUTPUT_METADATA = (
    output_records.parse_output_metadata_record,
    _vams(ResourceKeys.PIPELINE_OUTPUT_METADATA),
)
OUTPUT_RESULTS = (
    output_records.parse_output_result_record,
    _vams(ResourceKeys.PIPELINE_OUTPUT_RESULTS),
)
STEP_LOGS = (output_records.parse_step_log_record, _vams(ResourceKeys.PIPELINE_LOGS))
INPUT_FILE = (
    step_records.parse_pipeline_input_file_record,
    {
        "pipelineExecutionId": STEP,
        "databaseId:assetId:inputAssetFileKey": "vamsdb:asset-a:/a.glb",
        "workflowExecutionId": RUN,
        "databaseId": "vamsdb",
        "assetId": "asset-a",
        "inputAssetFileKey": "/a.glb",
    },
)
ATTEMPTS = (step_records.parse_task_execution_record, ATTEMPT)
ARTIFACTS = (output_records.parse_artifact_record, ARTIFACT)
EVENTS = (event_records.parse_execution_event_record, EVENT)
COSTS = (cost_records.parse_cost_ledger_record, COST)
APPROVALS = (approval_records.parse_approval_record, APPROVAL)

WHOLE = "wfx expects a whole number"
NUMBER = "wfx expects a number"
LIST = "wfx expects a list"
LOGS_AS_TEXT = '[{"logGroupName": "g"}]'

CASES: list[tuple[str, tuple[Parse, dict[str, Any]], str, Any, str]] = [
    ("main/count", MAIN, "redriveCount", "x", f"redriveCount holds the text 'x'; {WHOLE}"),
    ("main/version", MAIN, "workflowVersion", [1], f"workflowVersion holds the list [1]; {WHOLE}"),
    (
        "main/status",
        MAIN,
        "executionStatus",
        "CANCELLED",
        "executionStatus holds the text 'CANCELLED'; wfx expects 'NEW', 'RUNNING', 'SUCCEEDED', "
        "'FAILED', 'ABORTED', 'TIMED_OUT' or 'PENDING_REDRIVE'",
    ),
    (
        "main/trigger",
        MAIN,
        "triggerType",
        "Cron",
        "triggerType holds the text 'Cron'; wfx expects 'Manual' or 'File-Upload'",
    ),
    (
        "step/logs as text",
        STEPS,
        "registeredLogs",
        LOGS_AS_TEXT,
        f"registeredLogs holds the text '{LOGS_AS_TEXT}'; wfx expects a list of maps",
    ),
    (
        "step/scopes",
        STEPS,
        "s3ReadOnlyScopes",
        5,
        "s3ReadOnlyScopes holds the number 5; wfx expects a list",
    ),
    (
        "step/sub-execution entry",
        STEPS,
        "registeredSubExecutions",
        [5],
        "registeredSubExecutions holds the list [5]; wfx expects a list of maps",
    ),
    (
        "step/scope entry",
        STEPS,
        "s3ReadWriteScopes",
        ["a", 5],
        "s3ReadWriteScopes holds the list ['a', 5]; wfx expects a list, each entry a text",
    ),
    ("step/index", STEPS, "stepIndex", "x", f"stepIndex holds the text 'x'; {WHOLE}"),
    (
        "step configuration/command",
        STEP_CONFIGURATION,
        "command",
        7,
        "command holds the number 7; wfx expects a list",
    ),
    (
        "step metadata/metadata",
        STEP_METADATA,
        "metadata",
        "x",
        "metadata holds the text 'x'; wfx expects a map",
    ),
    (
        "step metadata/attributes",
        STEP_METADATA,
        "attributes",
        [1],
        "attributes holds the list [1]; wfx expects a map",
    ),
    (
        "input file/asset",
        INPUT_FILE,
        "assetId",
        5,
        "assetId holds the number 5; wfx expects a text",
    ),
    (
        "inputs/date",
        INPUTS,
        "executionStartDate",
        "soon",
        "executionStartDate is not a date (stored: 'soon')",
    ),
    (
        "configuration/version",
        CONFIGURATION,
        "workflowVersion",
        {"v": 1},
        "workflowVersion holds the map {'v': 1}; " + WHOLE,
    ),
    (
        "configuration/selections",
        CONFIGURATION,
        "inputSelections",
        3,
        "inputSelections holds the number 3; wfx expects a list",
    ),
    (
        "output file/size",
        OUTPUT_FILES,
        "fileSize",
        "big",
        "fileSize holds the text 'big'; " + WHOLE,
    ),
    ("output file/attempt", OUTPUT_FILES, "attempt", "x", f"attempt holds the text 'x'; {WHOLE}"),
    (
        "output metadata/key",
        OUTPUT_METADATA,
        "metadataKey",
        ["k"],
        "metadataKey holds the list ['k']; wfx expects a text",
    ),
    (
        "output result/version",
        OUTPUT_RESULTS,
        "versionId",
        9,
        "versionId holds the number 9; wfx expects a text",
    ),
    (
        "step log/type",
        STEP_LOGS,
        "logType",
        True,
        "logType holds the boolean True; wfx expects a text",
    ),
    ("attempt/number", ATTEMPTS, "attempt", "x", f"attempt holds the text 'x'; {WHOLE}"),
    ("attempt/date", ATTEMPTS, "startDate", "soon", "startDate is not a date (stored: 'soon')"),
    ("artifact/size", ARTIFACTS, "size", "big", f"size holds the text 'big'; {WHOLE}"),
    ("artifact/date", ARTIFACTS, "recordedAt", "soon", "recordedAt is not a date (stored: 'soon')"),
    ("event/number", EVENTS, "sequenceNumber", "x", f"sequenceNumber holds the text 'x'; {WHOLE}"),
    (
        "event/type",
        EVENTS,
        "eventType",
        "ExecutionPaused",
        "eventType holds the text 'ExecutionPaused'; wfx expects 'ExecutionLaunched', ",
    ),
    ("cost/quantity", COSTS, "quantity", "lots", "quantity holds the text 'lots'; " + NUMBER),
    (
        "cost/kind",
        COSTS,
        "kind",
        "memory",
        "kind holds the text 'memory'; wfx expects 'duration' or 'usage'",
    ),
    ("approval/attempt", APPROVALS, "attempt", "x", f"attempt holds the text 'x'; {WHOLE}"),
    ("approval/approvers", APPROVALS, "approvers", 5, "approvers holds the number 5; " + LIST),
    (
        "approval/status",
        APPROVALS,
        "approvalStatus",
        "MAYBE",
        "approvalStatus holds the text 'MAYBE'; wfx expects 'PENDING', 'APPROVED', 'REJECTED', "
        "'TIMED_OUT' or 'CANCELLED'",
    ),
    ("approval/missing", APPROVALS, "approvers", None, "approvers is missing"),
    ("cost/missing quantity", COSTS, "quantity", None, "quantity is missing"),
]


@pytest.mark.parametrize(
    ("parser", "attribute", "value", "problem"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_every_parser_names_the_attribute_what_it_holds_and_what_wfx_expects(
    parser: tuple[Parse, dict[str, Any]], attribute: str, value: Any, problem: str
) -> None:
    parse, item = parser
    parse(item)  # the row as written reads
    bad = dict(item)
    if value is None:
        bad.pop(attribute)
    else:
        bad[attribute] = value

    with pytest.raises(UnreadableRowError) as refused:
        parse(bad)

    assert refused.value.attribute == attribute, refused.value
    assert refused.value.problem.startswith(problem), refused.value.problem
    assert f"cannot be read: {refused.value.problem}; mend or delete" in str(refused.value)


def test_what_a_row_holds_is_cut_short() -> None:
    parse, item = STEPS
    with pytest.raises(UnreadableRowError) as refused:
        parse(dict(item, registeredLogs="[" + "x" * 10_000))
    problem = refused.value.problem
    assert problem.startswith("registeredLogs holds the text '[xxx"), problem
    assert problem.endswith("; wfx expects a list of maps"), problem
    assert len(problem) < 200, problem
