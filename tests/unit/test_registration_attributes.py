"""The stored shape of a merged registration, and the no-write answer for a redelivery."""

from __future__ import annotations

from adapters.registration import registration_attributes
from domain.execution import PipelineExecution
from domain.logs import RegisteredLog, RegisteredSubExecution
from tests.contract.builders import a_launch

JOB = RegisteredSubExecution(resource_type="batchJob", job_id="job-1", label="mesh")
LOG = RegisteredLog(log_group_name="/aws/batch/job", log_stream_name="mesh/default/1")


def _step() -> PipelineExecution:
    return a_launch("e1").steps[0]


def test_a_merge_that_adds_an_entry_gives_both_lists_as_vams_stores_them() -> None:
    attributes = registration_attributes(_step(), lambda step: ((JOB,), (LOG,)))

    assert attributes == {
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


def test_a_merge_that_adds_nothing_writes_nothing() -> None:
    step = _step().model_copy(
        update={"registered_sub_executions": (JOB,), "registered_logs": (LOG,)}
    )

    assert registration_attributes(step, lambda stored: ((JOB,), (LOG,))) is None
