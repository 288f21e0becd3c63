"""Items an earlier wfx wrote, in the shapes VAMS 2.6 writes (records.py).

One pure function, applied item by item: SQLite runs it when it first opens an older file,
DynamoDB through `wfx migrate items`. An item is rebuilt from what its reader takes of it (the
readers accept the earlier names); attributes the builders do not write (versions, cut-field
flags and keys, what later writes added) are kept as stored, and the names the new ones replace
are dropped. An item already in the current shape rebuilds to itself: the upgrade writes nothing
the second time, and a run cut short is resumed by running it again.

A run's input rows are regrouped, run by run, not rebuilt item by item: input_regroup.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from adapters.item_budget import Item
from adapters.output_records import (
    build_output_file_record,
    build_output_metadata_record,
    build_output_result_record,
    build_step_log_record,
    parse_output_file_record,
    parse_output_metadata_record,
    parse_output_result_record,
    parse_step_log_record,
)
from adapters.run_records import (
    build_execution_configuration_record,
    build_execution_record,
    parse_execution_configuration_record,
    parse_execution_record,
)
from adapters.step_records import (
    EARLIER_STEP_NAMES,
    build_pipeline_execution_record,
    build_pipeline_input_file_record,
    build_step_input_configuration_record,
    build_step_input_metadata_record,
    parse_pipeline_execution_record,
    parse_pipeline_input_file_record,
    parse_step_input_configuration_record,
    parse_step_input_metadata_record,
)
from adapters.tables import ResourceKeys

_Rebuild = Callable[[Item], Mapping[str, Any]]

# Per table: how an item is rebuilt, and the earlier names its new attributes replace.
_REBUILT: dict[ResourceKeys, tuple[_Rebuild, tuple[str, ...]]] = {
    ResourceKeys.WORKFLOW_EXECUTIONS: (
        lambda item: build_execution_record(parse_execution_record(item)),
        ("stateMachineArn", "executionArn"),
    ),
    ResourceKeys.PIPELINE_EXECUTIONS: (
        lambda item: build_pipeline_execution_record(parse_pipeline_execution_record(item)),
        (
            *EARLIER_STEP_NAMES.values(),
            "outputS3AssetFilesPath",
            "outputS3AssetPreviewPath",
            "outputS3AssetMetadataPath",
            "inputOutputS3AssetAuxiliaryFilesPath",
        ),
    ),
    ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION: (
        lambda item: build_execution_configuration_record(
            parse_execution_configuration_record(item)
        ),
        (),
    ),
    ResourceKeys.PIPELINE_INPUT_CONFIGURATION: (
        lambda item: build_step_input_configuration_record(
            parse_step_input_configuration_record(item)
        ),
        (),
    ),
    ResourceKeys.PIPELINE_INPUT_METADATA: (
        lambda item: build_step_input_metadata_record(parse_step_input_metadata_record(item)),
        (),
    ),
    ResourceKeys.PIPELINE_INPUT_FILES: (
        lambda item: build_pipeline_input_file_record(parse_pipeline_input_file_record(item)),
        (),
    ),
    ResourceKeys.PIPELINE_OUTPUT_FILES: (
        lambda item: build_output_file_record(parse_output_file_record(item)),
        ("versionId", "size"),
    ),
    ResourceKeys.PIPELINE_OUTPUT_METADATA: (
        lambda item: build_output_metadata_record(parse_output_metadata_record(item)),
        (),
    ),
    ResourceKeys.PIPELINE_OUTPUT_RESULTS: (
        lambda item: build_output_result_record(parse_output_result_record(item)),
        (),
    ),
    ResourceKeys.PIPELINE_LOGS: (
        lambda item: build_step_log_record(parse_step_log_record(item)),
        ("message",),
    ),
}
# An attribute only wfx writes in each table: an item without it is VAMS's own, never rewritten
# (wfx's builders would fill in what only wfx knows, and VAMS's row would lose nothing but gain
# wfx's guesses).
_WRITTEN_BY_WFX = {
    ResourceKeys.WORKFLOW_EXECUTIONS: "orchestrator",
    ResourceKeys.PIPELINE_EXECUTIONS: "stepIndex",
    ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION: "workflowVersion",
    ResourceKeys.PIPELINE_INPUT_CONFIGURATION: "executionType",
    ResourceKeys.PIPELINE_INPUT_METADATA: "workflowExecutionId",
    # the migration's rows carry nothing of wfx's own: their upgrade only leads the key with the
    # "/" VAMS's own upgrade writes, which leaves a row VAMS wrote as it is
    ResourceKeys.PIPELINE_INPUT_FILES: "inputAssetFileKey",
    ResourceKeys.PIPELINE_OUTPUT_FILES: "workflowExecutionId",
    ResourceKeys.PIPELINE_OUTPUT_METADATA: "workflowExecutionId",
    ResourceKeys.PIPELINE_OUTPUT_RESULTS: "workflowExecutionId",
    ResourceKeys.PIPELINE_LOGS: "workflowExecutionId",
}
UPGRADED_TABLES = tuple(_REBUILT)


def _kept_as_stored(name: str) -> bool:
    """A cut field's flag and body key say where its whole body is: the rebuilt item, made from
    the kept part, would say nothing was cut."""
    return name.endswith(("Truncated", "ObjectKey"))


def upgraded_item(table: ResourceKeys, item: Item) -> Item | None:
    """`item` in the current shape, or None when it is in it already (or its table has none, or
    VAMS wrote it)."""
    entry = _REBUILT.get(table)
    if entry is None or _WRITTEN_BY_WFX[table] not in item:
        return None
    rebuild, replaced = entry
    upgraded = {name: value for name, value in item.items() if name not in replaced}
    for name, value in rebuild(item).items():
        if not (_kept_as_stored(name) and name in item):
            upgraded[name] = value
    return None if upgraded == item else upgraded
