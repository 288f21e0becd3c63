"""Version items as the release before workflow definitions wrote them, for the upgrade tests:
the steps inside the item, and the workflow list's keys on version 1."""

from __future__ import annotations

from typing import Any

from adapters.records import (
    WORKFLOW_LIST_PARTITION,
    build_step_definition_records,
    build_workflow_version_record,
    workflow_list_sort_key,
)
from domain.workflow import WorkflowVersion
from tests.contract.builders import a_version

EARLIER = (
    a_version(1, workflow="demo:a"),
    a_version(2, workflow="demo:a"),
    a_version(1, workflow="demo:b"),
)
# What a step definition item adds to the step entry an earlier version item held.
_STEP_KEYS = (
    "workflowDatabaseId:workflowId:workflowVersion",
    "stepIndex",
    "stepDefinitionId",
    "workflowDatabaseId",
    "workflowId",
    "workflowVersion",
)


def earlier_item(version: WorkflowVersion) -> dict[str, Any]:
    item: dict[str, Any] = build_workflow_version_record(version)
    del item["stepCount"]
    item["steps"] = [
        {k: v for k, v in step.items() if k not in _STEP_KEYS}
        for step in build_step_definition_records(version)
    ]
    if version.version == 1:
        item["workflowListPartition"] = WORKFLOW_LIST_PARTITION
        item["workflowListSortKey"] = workflow_list_sort_key(
            version.database_id, version.workflow_id
        )
    return item
