"""availableLogs entries in the seed's camelCase names (details and logs responses)."""

from __future__ import annotations

from typing import Any

from domain.available_logs import AvailableLog


def build_available_log_record(entry: AvailableLog) -> dict[str, Any]:
    return {
        "logId": entry.log_id,
        "kind": entry.kind.value,
        "pipelineExecutionId": entry.pipeline_execution_id,
        "logGroupArn": entry.log_group_arn,
        "logGroupName": entry.log_group_name,
        "logStreamName": entry.log_stream_name,
        "logStreamPrefix": entry.log_stream_prefix,
        "stageName": entry.stage_name,
        "label": entry.label,
        "sourceType": entry.source_type,
    }
