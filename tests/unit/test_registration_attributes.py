"""The stored shape of a registration's lists, and the no-write answer for a redelivery."""

from __future__ import annotations

from adapters.registration import step_lists_attributes
from domain.execution import PipelineExecution
from domain.logs import RegisteredLog, RegisteredSubExecution
from domain.run_write import RunWrite, VersionedStep
from tests.contract.builders import MONDAY, a_launch

JOB = RegisteredSubExecution(resource_type="batchJob", job_id="job-1", label="mesh")
LOG = RegisteredLog(log_group_name="/aws/batch/job", log_stream_name="mesh/default/1")


def _step() -> PipelineExecution:
    return a_launch("e1").steps[0]


def test_a_registration_that_adds_an_entry_writes_both_lists_as_vams_stores_them() -> None:
    write = RunWrite.registering(VersionedStep(_step(), 3), (JOB,), (LOG,), MONDAY)

    assert write is not None and write.step_lists is not None
    assert write.step_lists.version == 3
    values, _ = step_lists_attributes(write.step_lists)
    assert values == {
        "registeredSubExecutions": [
            {"resourceType": "batchJob", "jobId": "job-1", "label": "mesh"}
        ],
        "registeredLogs": [
            {
                "logGroupArn": "",
                "logGroupName": "/aws/batch/job",
                "logStreamName": "mesh/default/1",
                "logStreamPrefix": "",
                "stageName": "",
                "label": "",
                "sourceType": "",
            }
        ],
    }


def test_a_registration_that_adds_nothing_writes_nothing() -> None:
    step = _step().model_copy(
        update={"registered_sub_executions": (JOB,), "registered_logs": (LOG,)}
    )

    assert RunWrite.registering(VersionedStep(step, 1), (JOB,), (LOG,), MONDAY) is None
