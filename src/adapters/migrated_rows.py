"""The items a migrated V1 run becomes, built by the run-time record builders, shared by both
storage adapters of MigratedRuns (so both store exactly these items)."""

from __future__ import annotations

from adapters.item_budget import Item
from adapters.records import (
    build_execution_input_record,
    build_execution_record,
    build_pipeline_input_file_record,
)
from adapters.tables import ResourceKeys
from domain.migration import MigratedRun


def supporting_rows(run: MigratedRun) -> list[tuple[ResourceKeys, Item]]:
    """The rows written before the main row, by table."""
    return [
        *(
            (ResourceKeys.WORKFLOW_EXECUTION_INPUTS, build_execution_input_record(row))
            for row in run.inputs
        ),
        *(
            (ResourceKeys.PIPELINE_INPUT_FILES, build_pipeline_input_file_record(row))
            for row in run.input_files
        ),
    ]


def main_row(run: MigratedRun) -> Item:
    # no run-time field of a migrated run outgrows its budget (no log, a status as its error)
    return dict(build_execution_record(run.execution))
