"""The items a migrated V1 run becomes, built by the run-time record builders, shared by both
storage adapters of MigratedRuns (so both store exactly these items)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adapters.item_budget import Item
from adapters.run_records import (
    build_execution_configuration_record,
    build_execution_record,
    build_input_selection_record,
)
from adapters.step_records import (
    build_pipeline_execution_record,
    build_pipeline_input_file_record,
    build_step_input_configuration_record,
)
from adapters.tables import ResourceKeys
from domain.execution import ExecutionInput, InputSelection
from domain.migration import MigratedRun


def _whole(record: Mapping[str, Any]) -> Item:
    # a migrated run has no log, message or long list: no builder has a body to move out of it
    if getattr(record, "offloads", ()):
        raise ValueError("a migrated row outgrew its item budget")
    return dict(record)


def _selection(row: ExecutionInput) -> InputSelection:
    """The V1 run's one input, a selection as VAMS writes it (its key "/"-led); that release
    pinned no version, so there is no resolved file to keep in wfx's own table."""
    return InputSelection.of(row, row.input_asset_file_key, row.version_id)


def supporting_rows(run: MigratedRun) -> list[tuple[ResourceKeys, Item]]:
    """The rows written before the main row, by table."""
    return [
        *(
            (ResourceKeys.WORKFLOW_EXECUTION_INPUTS, build_input_selection_record(_selection(row)))
            for row in run.inputs
        ),
        *(
            (ResourceKeys.PIPELINE_EXECUTIONS, _whole(build_pipeline_execution_record(step)))
            for step in run.steps
        ),
        *(
            (ResourceKeys.PIPELINE_INPUT_FILES, build_pipeline_input_file_record(row))
            for row in run.input_files
        ),
        (
            ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION,
            _whole(build_execution_configuration_record(run.configuration)),
        ),
        *(
            (
                ResourceKeys.PIPELINE_INPUT_CONFIGURATION,
                _whole(build_step_input_configuration_record(config)),
            )
            for config in run.step_configurations
        ),
    ]


def main_row(run: MigratedRun) -> Item:
    return _whole(build_execution_record(run.execution))
