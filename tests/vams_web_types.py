"""The documents VAMS 2.6's web client reads, as its own types declare them (types.ts:
`Execution`, `ExecutionDetail`, `ExecuteResponse`) and as its pages read them (the details page,
the log viewer): for each, the keys it reads and the JSON type of each. Written from those
facts for the replay of the client's calls (tests/integration/test_vams_web_client_replay.py).

`REQUIRED` keys must be there; `OPTIONAL` ones, when there, must have that type.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

# ExecutionStatus in types.ts (COMPLETE: a migrated row's success)
STATUSES = {"NEW", "RUNNING", "SUCCEEDED", "FAILED", "ABORTED", "TIMED_OUT", "COMPLETE"}
NON_TERMINAL = {"NEW", "RUNNING"}

JsonType = type | tuple[type, ...]
NUMBER: tuple[type, ...] = (int, float)


@dataclass(frozen=True)
class Document:
    name: str
    required: Mapping[str, JsonType]
    optional: Mapping[str, JsonType] = field(default_factory=dict)

    def mismatches(self, document: Any, where: str = "$") -> Iterator[str]:
        """Each way `document` is not what the client reads."""
        if not isinstance(document, dict):
            yield f"{where}: {self.name} is not an object but {type(document).__name__}"
            return
        for key in self.required:
            if key not in document:
                yield f"{where}.{key}: missing from {self.name}"
        for key, expected in {**self.required, **self.optional}.items():
            if key in document and not _is(document[key], expected):
                got = type(document[key]).__name__
                yield f"{where}.{key}: {self.name} declares {_named(expected)}, got {got}"


def _is(value: Any, expected: JsonType) -> bool:
    # JSON has no bool among its numbers: True is no count of bytes
    if isinstance(value, bool) and bool not in (
        expected if isinstance(expected, tuple) else (expected,)
    ):
        return False
    return isinstance(value, expected)


def _named(expected: JsonType) -> str:
    kinds = expected if isinstance(expected, tuple) else (expected,)
    return " | ".join(kind.__name__ for kind in kinds)


# `Execution`: a row of the board and of an asset's list
EXECUTION = Document(
    "Execution",
    required={
        "workflowExecutionId": str,
        "workflowId": str,
        "workflowDatabaseId": str,
        "executionStatus": str,
    },
    optional={
        "triggeredByUserId": str,
        "triggerType": str,
        "executionStartDate": str,
        "executionStopDate": str,
        "executionGroupId": str,
        "executionError": str,
        "outputLocationType": str,
        "outputAssetId": str,
        "outputDatabaseId": str,
    },
)

# a page of a list, once `{"message": ...}` is unwrapped (client.ts); the client pages while
# NextToken is truthy, so a null one ends the list as an absent one does
LIST_PAGE = Document(
    "list page", required={"Items": list}, optional={"NextToken": (str, type(None))}
)

# `ExecutionDetail` extends `Execution`
EXECUTION_DETAIL = Document(
    "ExecutionDetail",
    required=EXECUTION.required,
    optional={
        **EXECUTION.optional,
        "workflowSystemConfig": dict,
        "workflowName": str,
        "workflowDescription": str,
        "pipelines": list,
        "inputFiles": list,
        "inputMetadata": list,
        "outputs": dict,
        "truncatedCollections": list,
        "outputFileBaseExecutionPathExtension": str,
    },
)

# what the details page reads of each step (header progress, Pipelines and Settings tabs,
# the log viewer's scope list)
DETAIL_PIPELINE = Document(
    "details pipeline",
    required={"pipelineId": str, "executionStatus": str, "pipelineExecutionId": str},
    optional={
        "name": str,
        "pipelineName": str,
        "pipelineType": str,
        "endStatePipeline": bool,
        "executionStartDate": str,
        "executionStopDate": str,
        "templateId": str,
        "templateTags": list,
        "customTemplateOverrideUsed": bool,
        "renderedConfig": str,
        "renderedConfigTruncated": bool,
        "configFormat": str,
        "effectiveSystemConfig": dict,
        "templateOverrides": dict,
    },
)

DETAIL_INPUT_FILE = Document(
    "details input file",
    required={"databaseId": str, "assetId": str, "inputAssetFileKey": str},
    optional={"versionId": str},
)

DETAIL_INPUT_METADATA = Document(
    "details input metadata",
    required={},
    optional={"assetId": str, "filePath": str, "metadata": dict},
)

DETAIL_OUTPUTS = Document(
    "details outputs", required={}, optional={"files": list, "metadata": list, "results": list}
)

DETAIL_OUTPUT_FILE = Document(
    "details output file",
    required={"relativeFilePath": str},
    optional={
        "pipelineId": str,
        "assetFileVersionId": str,
        "fileSize": NUMBER,
        "assetId": str,
        "databaseId": str,
    },
)

DETAIL_OUTPUT_METADATA = Document(
    "details output metadata",
    required={"metadataKey": str},
    optional={"targetFilePath": str},
)

DETAIL_OUTPUT_RESULT = Document(
    "details output result",
    required={},
    optional={"resultsContent": str, "resultsContentTruncated": bool},
)

# `ExecuteResponse`: launch's answer (and what a rerun gives the board back); VAMS's execute
# handler says both optional keys, null when there is none, and the client reads them with `?.`
EXECUTE_RESPONSE = Document(
    "ExecuteResponse",
    required={"executionId": str},
    optional={"executionGroupId": (str, type(None)), "warnings": (list, type(None))},
)

# the log viewer, mode=full: events rendered with their timestamp; the extra lists when there
LOGS_FULL = Document(
    "logs (full)",
    required={"events": list},
    optional={
        "sfnHistoryEvents": list,
        "subProcessEvents": list,
        "warnings": list,
        "logsSource": str,
    },
)
LOG_EVENT = Document(
    "log event", required={"message": str}, optional={"timestamp": (str, int, float)}
)

# mode=truncated: the run's stored log, or with pipelineExecutionId that step's
LOGS_TRUNCATED_RUN = Document(
    "logs (truncated, whole run)",
    required={},
    optional={"executionLog": str, "executionError": str, "logsSource": str},
)
LOGS_TRUNCATED_STEP = Document(
    "logs (truncated, one step)",
    required={},
    optional={"resultLog": str, "errorLog": str, "logsSource": str},
)
