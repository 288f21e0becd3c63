"""AvailableLogFinder with the runs' log group ARN: a local run's log files keep their names."""

from __future__ import annotations

from typing import Any

from application.available_logs import LOCAL_READER, AvailableLogFinder, reader_for
from domain.logs import LogKind, RegisteredLog
from tests.contract.builders import a_launch

RUN_LOG_GROUP_ARN = "arn:aws:logs:eu-west-1:210987654321:log-group:/aws/vendedlogs/states/wfx"


class _Untouched:
    """A catalog or reader a local run must not need."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"{name} called for a local run")


def test_a_local_runs_logs_are_its_files_whatever_the_deployments_log_group() -> None:
    launch = a_launch("e1")
    assert launch.execution.orchestrator == "local"
    step = launch.steps[0].model_copy(
        update={"registered_logs": (RegisteredLog(log_group_name="tools", log_stream_name="a"),)}
    )
    finder = AvailableLogFinder(_Untouched(), _Untouched(), RUN_LOG_GROUP_ARN)

    found = finder.find(launch.execution, [step])

    listed = found.by_step[step.pipeline_execution_id]
    assert [(entry.kind, entry.group, entry.log_group_arn) for entry in listed] == [
        (LogKind.INVOCATION, "e1", ""),
        (LogKind.REGISTERED, "tools", ""),
    ]
    assert {reader_for(entry, "local") for entry in listed} == {LOCAL_READER}
