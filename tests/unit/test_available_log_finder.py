"""AvailableLogFinder with the runs' log group ARN: a local run's log files keep their names."""

from __future__ import annotations

from typing import Any

from application.available_logs import LOCAL_READER, AvailableLogFinder, reader_for
from domain.errors import NotFoundError
from domain.logs import LogKind, RegisteredLog
from domain.workflow import ExecutionType
from tests.contract.builders import a_launch

RUN_LOG_GROUP_ARN = "arn:aws:logs:eu-west-1:210987654321:log-group:/aws/vendedlogs/states/wfx"
VAMS_LOGS = "arn:aws:logs:us-east-1:111122223333:log-group:"


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


class _NoVersion:
    """A catalog that holds no version of the run's workflow (VAMS launched the run)."""

    def get_version(self, database_id: str, workflow_id: str, version: int) -> Any:
        raise NotFoundError(f"workflow {database_id}/{workflow_id} has no version {version}")


def test_a_run_vams_launched_lists_its_lambdas_log_and_places_names_in_its_own_log_group() -> None:
    launch = a_launch("e1", steps=1)
    execution = launch.execution.model_copy(
        update={"orchestrator": "stepfunctions", "execution_log_group_arn": f"{VAMS_LOGS}/vams:*"}
    )
    step = launch.steps[0].model_copy(
        update={
            "execution_type": ExecutionType.LAMBDA,
            "pipeline_resource_arn": "arn:aws:lambda:us-east-1:111122223333:function:vams-scan",
            "registered_logs": (RegisteredLog(log_group_name="/tools", log_stream_prefix="p-"),),
        }
    )
    # the deployment's reference names another account: the run's own log group wins
    catalog: Any = _NoVersion()
    finder = AvailableLogFinder(catalog, _Untouched(), RUN_LOG_GROUP_ARN)

    found = finder.find(execution, [step])

    listed = found.by_step[step.pipeline_execution_id]
    assert [(entry.kind, entry.log_group_arn) for entry in listed] == [
        (LogKind.INVOCATION, f"{VAMS_LOGS}/aws/lambda/vams-scan"),
        (LogKind.REGISTERED, f"{VAMS_LOGS}/tools"),
    ]
    assert listed[0].source_type == "lambda"
