"""A run log too big for a DynamoDB item: the row keeps the tail, the object store the whole log."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.run_records import build_execution_record
from application.run_log import MAX_STORED_LOG_BYTES
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from entrypoints.container import Container

LOUD_WORKFLOW: dict[str, Any] = {
    "databaseId": "db",
    "workflowId": "loud",
    "steps": [
        {
            "pipelineId": "chatty",
            "executionType": "command",
            # 300,000 characters, then a last line that must survive in the row's tail
            "command": ["{python}", "-c", "print('x' * 300_000); print('the end')"],
            "inputFileArity": "none",
        }
    ],
}


@pytest.fixture
def container(inline_container: Container) -> Container:
    return inline_container


def test_the_row_keeps_the_tail_and_the_object_store_the_whole_log(container: Container) -> None:
    document = parse_workflow_document(LOUD_WORKFLOW)
    container.publish_workflow_version().execute(PublishWorkflowVersionCommand(document=document))
    command = LaunchExecutionCommand(workflow_database_id="db", workflow_id="loud", user_id="alice")
    execution_id = container.launch_execution().execute(command).execution.workflow_execution_id

    stored = container.execution_store().get_execution(execution_id)
    assert stored.status == "SUCCEEDED"
    assert stored.execution_log is not None
    assert len(stored.execution_log.encode()) <= MAX_STORED_LOG_BYTES
    assert stored.execution_log.rstrip().endswith("the end")
    assert build_execution_record(stored)["executionLogTruncated"] is True

    key = stored.execution_log_object_key
    assert key is not None and not key.startswith(f"executions/{execution_id}/output/")
    objects = container.object_store()
    (latest,) = objects.list_latest(key)
    whole = objects.local_path(key, latest.version_id).read_text()
    assert whole.count("x") >= 300_000 and whole.endswith(stored.execution_log)


def test_a_small_log_is_kept_whole_on_the_row(container: Container) -> None:
    step = {**LOUD_WORKFLOW["steps"][0], "command": ["{python}", "-c", "print('hi')"]}
    quiet = {**LOUD_WORKFLOW, "workflowId": "quiet", "steps": [step]}
    document = parse_workflow_document(quiet)
    container.publish_workflow_version().execute(PublishWorkflowVersionCommand(document=document))
    command = LaunchExecutionCommand(
        workflow_database_id="db", workflow_id="quiet", user_id="alice"
    )
    execution_id = container.launch_execution().execute(command).execution.workflow_execution_id

    stored = container.execution_store().get_execution(execution_id)
    assert stored.execution_log is not None and "hi" in stored.execution_log
    assert stored.execution_log_object_key is None
    assert "executionLogTruncated" not in build_execution_record(stored)


def test_the_logs_summary_reads_the_whole_logs_tail_from_the_object_store(
    container: Container,
) -> None:
    from application.use_cases.get_execution_logs import GetExecutionLogsQuery
    from entrypoints.responses import ExecutionLogsResponse

    document = parse_workflow_document(LOUD_WORKFLOW)
    container.publish_workflow_version().execute(PublishWorkflowVersionCommand(document=document))
    command = LaunchExecutionCommand(workflow_database_id="db", workflow_id="loud", user_id="alice")
    execution_id = container.launch_execution().execute(command).execution.workflow_execution_id

    logs = container.get_execution_logs().execute(
        GetExecutionLogsQuery(workflow_execution_id=execution_id, limit=1)
    )

    # the whole copy's last lines within 1 MiB: all three here (the header, the x's, the end)
    assert logs.run_log is not None and logs.run_log.endswith("x\nthe end\n")
    assert logs.run_log.count("x") >= 300_000 and logs.run_log_earlier == 0
    (attempt,) = logs.attempts
    assert attempt.lines == ("the end",) and attempt.earlier == 1 and attempt.log_id
    # said in JSON: how many lines came before, and the source that reads them
    (said,) = ExecutionLogsResponse.of(logs).dump()["attempts"]
    assert said["earlierLines"] == 1 and said["logId"] == attempt.log_id
    assert "executionLogEarlierLines" not in ExecutionLogsResponse.of(logs).dump()


def test_the_logs_summary_says_a_run_logs_last_mebibyte_and_counts_the_lines_before(
    container: Container,
) -> None:
    from application.use_cases.get_execution_logs import RUN_LOG_CHARACTERS, GetExecutionLogsQuery
    from entrypoints.responses import ExecutionLogsResponse

    code = "for n in range(30_000): print(f'{n:07d} ' + 'y' * 40)"  # 1.44 MB
    step = {**LOUD_WORKFLOW["steps"][0], "command": ["{python}", "-c", code]}
    document = parse_workflow_document({**LOUD_WORKFLOW, "workflowId": "long", "steps": [step]})
    container.publish_workflow_version().execute(PublishWorkflowVersionCommand(document=document))
    command = LaunchExecutionCommand(workflow_database_id="db", workflow_id="long", user_id="alice")
    execution_id = container.launch_execution().execute(command).execution.workflow_execution_id

    logs = container.get_execution_logs().execute(
        GetExecutionLogsQuery(workflow_execution_id=execution_id)
    )

    assert logs.run_log is not None and len(logs.run_log) <= RUN_LOG_CHARACTERS
    assert logs.run_log.endswith(f"0029999 {'y' * 40}\n")
    shown = len(logs.run_log.splitlines())
    assert shown + logs.run_log_earlier == 30_001  # its header, then the step's lines
    assert logs.run_log_earlier > 0
    said = ExecutionLogsResponse.of(logs).dump()
    assert said["executionLogEarlierLines"] == logs.run_log_earlier
