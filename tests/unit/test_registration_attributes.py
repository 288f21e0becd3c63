"""The stored shape of a registration's lists, and the no-write answer for a redelivery."""

from __future__ import annotations

from adapters.registration import step_lists_attributes
from domain.events import EventType
from domain.execution import PipelineExecution
from domain.logs import RegisteredLog, RegisteredSubExecution
from domain.run_write import RunWrite, StepListsKind, VersionedStep
from domain.sub_processes import StopAttempt, StopOutcome, SubExecutionStop
from tests.contract.builders import MONDAY, a_launch

JOB = RegisteredSubExecution(resource_type="batchJob", job_id="job-1", label="mesh")
LOG = RegisteredLog(log_group_name="/aws/batch/job", log_stream_name="mesh/default/1")
OTHER_LOG = RegisteredLog(log_group_name="/aws/batch/job", log_stream_name="mesh/default/2")


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


def test_a_registration_s_event_is_stamped_with_the_decision_s_moment_and_counts() -> None:
    later = MONDAY.replace(hour=11)
    write = RunWrite.registering(VersionedStep(_step(), 0), (JOB,), (LOG, OTHER_LOG), later)

    assert write is not None
    (event,) = write.events
    assert event.event_type is EventType.SUB_PROCESS_REGISTERED
    assert (event.occurred_at, event.sub_executions, event.logs) == (later, 1, 2)
    assert event.pipeline_execution_id == _step().pipeline_execution_id


def test_a_stop_record_has_no_event_and_writes_nothing_when_unchanged() -> None:
    stop = SubExecutionStop.of(
        JOB, StopAttempt(outcome=StopOutcome.STOPPED, detail=""), at=MONDAY, tries=1
    )
    write = RunWrite.recording_stops(VersionedStep(_step(), 2), (stop,))

    assert write is not None and write.step_lists is not None
    assert write.events == ()
    assert (write.step_lists.kind, write.step_lists.version) == (StepListsKind.STOPS, 2)
    assert write.step_lists.step.sub_execution_stops == (stop,)
    stopped = _step().model_copy(update={"sub_execution_stops": (stop,)})
    assert RunWrite.recording_stops(VersionedStep(stopped, 3), (stop,)) is None
