"""Where each RowCollection lives and how its items read back: shared by both stores."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from adapters.output_records import (
    parse_artifact_record,
    parse_output_file_record,
    parse_output_metadata_record,
    parse_output_result_record,
    parse_step_log_record,
)
from adapters.records import Item
from adapters.run_records import parse_execution_input_record
from adapters.step_records import parse_step_input_metadata_record
from adapters.tables import ResourceKeys
from application.ports.executions import Row, RowCollection

ROW_TABLES: Mapping[RowCollection, ResourceKeys] = {
    RowCollection.INPUTS: ResourceKeys.RESOLVED_INPUT_FILES,
    RowCollection.SELECTIONS: ResourceKeys.WORKFLOW_EXECUTION_INPUTS,
    RowCollection.INPUT_METADATA: ResourceKeys.PIPELINE_INPUT_METADATA,
    RowCollection.OUTPUT_FILES: ResourceKeys.PIPELINE_OUTPUT_FILES,
    RowCollection.OUTPUT_METADATA: ResourceKeys.PIPELINE_OUTPUT_METADATA,
    RowCollection.OUTPUT_RESULTS: ResourceKeys.PIPELINE_OUTPUT_RESULTS,
    RowCollection.LOGS: ResourceKeys.PIPELINE_LOGS,
    RowCollection.ARTIFACTS: ResourceKeys.ARTIFACTS,
}

# Where a collection is read when its own table holds nothing of the partition: a run VAMS
# launched has no resolved files in wfx's table, so its inputs are its selection rows.
ROW_FALLBACKS: Mapping[RowCollection, ResourceKeys] = {
    RowCollection.INPUTS: ResourceKeys.WORKFLOW_EXECUTION_INPUTS,
}

ROW_PARSERS: Mapping[RowCollection, Callable[[Item], Row]] = {
    RowCollection.INPUTS: parse_execution_input_record,
    RowCollection.SELECTIONS: parse_execution_input_record,
    RowCollection.INPUT_METADATA: parse_step_input_metadata_record,
    RowCollection.OUTPUT_FILES: parse_output_file_record,
    RowCollection.OUTPUT_METADATA: parse_output_metadata_record,
    RowCollection.OUTPUT_RESULTS: parse_output_result_record,
    RowCollection.LOGS: parse_step_log_record,
    RowCollection.ARTIFACTS: parse_artifact_record,
}
