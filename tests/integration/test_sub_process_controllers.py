"""The controllers that stop a step's children, against real parts where they exist.

Step Functions and Batch run on moto (in-process). moto's Batch cannot hold a job RUNNING
(notes/moto.md §15), so on moto only the TerminateJob request is checked; the job states after a
terminate come from botocore's Stubber with DescribeJobs' real response shape. moto has no
Deadline Cloud backend at all (§16): those tests use the Stubber with UpdateJob's and GetJob's
real request and response shapes, errors included. localProcess stops real child processes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws

from adapters.aws.subprocesses import (
    BATCH_REASON,
    BatchSubProcessController,
    DeadlineSubProcessController,
    StepFunctionsSubProcessController,
)
from adapters.local.processes import LocalProcessController, _is_gone
from adapters.local.supervisor import RunFolder, child_process, this_process
from adapters.sub_process_dispatch import DispatchingSubProcessController
from domain.logs import RegisteredSubExecution, parse_deadline_job
from domain.sub_processes import StopAttempt, StopOutcome
from tests.contract.builders import a_step

REGION = "us-east-1"
FARM, QUEUE, JOB = "farm-" + "a" * 32, "queue-" + "b" * 32, "job-" + "c" * 32
DEADLINE_JOB = f"{FARM}/{QUEUE}/{JOB}"
DEADLINE_ARN = f"arn:aws:deadline:{REGION}:123456789012:farm/{FARM}/queue/{QUEUE}/job/{JOB}"


STEP = a_step("e1", 0)  # the step that registered each child


def child(kind: str, resource_id: str) -> RegisteredSubExecution:
    """A child as wfx's former entry named it, converted to its typed locator."""
    return RegisteredSubExecution.of_resource(resource_type=kind, resource_id=resource_id)


# -- Step Functions on moto --------------------------------------------------------------------


@pytest.fixture
def stepfunctions() -> Iterator[Any]:
    with mock_aws():
        yield boto3.client("stepfunctions", region_name=REGION)


def _started(client: Any, name: str) -> str:
    machine = client.create_state_machine(
        name=f"m-{name}",
        definition=json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}),
        roleArn="arn:aws:iam::123456789012:role/wfx-tests",
    )
    started = client.start_execution(stateMachineArn=machine["stateMachineArn"], name=name)
    return str(started["executionArn"])


def test_a_running_state_machine_is_stopped_and_seen_aborted(stepfunctions: Any) -> None:
    arn = _started(stepfunctions, "child-1")
    controller = StepFunctionsSubProcessController(lambda: stepfunctions)

    attempt = controller.stop(child("stepFunctions", arn), STEP)

    assert attempt.outcome is StopOutcome.STOPPED
    assert stepfunctions.describe_execution(executionArn=arn)["status"] == "ABORTED"
    assert controller.confirm(child("stepFunctions", arn), STEP).outcome is StopOutcome.STOPPED


def test_a_state_machine_that_had_ended_is_already_finished(stepfunctions: Any) -> None:
    arn = _started(stepfunctions, "child-2")
    stepfunctions.stop_execution(executionArn=arn)
    calls: list[str] = []
    stepfunctions.meta.events.register(
        "before-call.sfn.*", lambda model, **_: calls.append(model.name), unique_id="count"
    )

    attempt = StepFunctionsSubProcessController(lambda: stepfunctions).stop(
        child("stepFunctions", arn), STEP
    )

    assert attempt.outcome is StopOutcome.ALREADY_FINISHED
    assert calls == ["DescribeExecution"]


def test_an_unknown_execution_is_already_finished_and_a_refusal_could_not_stop(
    stepfunctions: Any,
) -> None:
    controller = StepFunctionsSubProcessController(lambda: stepfunctions)
    missing = "arn:aws:states:us-east-1:123456789012:execution:m-none:nobody"

    assert controller.stop(child("stepFunctions", missing), STEP).outcome is (
        StopOutcome.ALREADY_FINISHED
    )
    refused = controller.stop(child("stepFunctions", "not-an-arn"), STEP)
    assert refused.outcome is StopOutcome.COULD_NOT_STOP
    assert refused.detail.startswith("InvalidArn")


# -- Batch on moto, and Stubber for the states moto cannot produce ------------------------------


@pytest.fixture
def batch() -> Iterator[Any]:
    with mock_aws(config={"batch": {"use_docker": False}}):
        yield boto3.client("batch", region_name=REGION)


def _submitted_job(batch: Any) -> str:
    role = boto3.client("iam", region_name=REGION).create_role(
        RoleName="batch", AssumeRolePolicyDocument="{}"
    )["Role"]["Arn"]
    environment = batch.create_compute_environment(
        computeEnvironmentName="env", type="UNMANAGED", state="ENABLED", serviceRole=role
    )
    queue = batch.create_job_queue(
        jobQueueName="queue",
        state="ENABLED",
        priority=1,
        computeEnvironmentOrder=[
            {"order": 1, "computeEnvironment": environment["computeEnvironmentArn"]}
        ],
    )
    definition = batch.register_job_definition(
        jobDefinitionName="mesh",
        type="container",
        containerProperties={"image": "busybox", "vcpus": 1, "memory": 128, "command": ["true"]},
    )
    job = batch.submit_job(
        jobName="mesh-1",
        jobQueue=queue["jobQueueArn"],
        jobDefinition=definition["jobDefinitionArn"],
    )
    return str(job["jobId"])


def test_a_vams_batch_locator_with_only_its_job_arn_is_terminated_by_it(batch: Any) -> None:
    job_id = _submitted_job(batch)
    job_arn = batch.describe_jobs(jobs=[job_id])["jobs"][0]["jobArn"]
    sent: list[dict[str, Any]] = []
    batch.meta.events.register(
        "provide-client-params.batch.TerminateJob",
        lambda params, **_: sent.append(dict(params)),
        unique_id="t",
    )
    located = RegisteredSubExecution(resource_type="batchJob", job_arn=job_arn)

    attempt = BatchSubProcessController(lambda: batch).stop(located, STEP)

    assert sent == [{"jobId": job_arn, "reason": BATCH_REASON}]
    assert attempt.outcome is StopOutcome.ALREADY_FINISHED


def test_a_batch_job_is_terminated_with_its_id_and_the_wfx_reason(batch: Any) -> None:
    job_id = _submitted_job(batch)
    sent: list[dict[str, Any]] = []
    batch.meta.events.register(
        "provide-client-params.batch.TerminateJob",
        lambda params, **_: sent.append(dict(params)),
        unique_id="t",
    )

    attempt = BatchSubProcessController(lambda: batch).stop(child("batch", job_id), STEP)

    assert sent == [{"jobId": job_id, "reason": BATCH_REASON}]
    # moto finishes a job at once without Docker, and a terminate leaves it SUCCEEDED
    assert attempt.outcome is StopOutcome.ALREADY_FINISHED


def test_an_unknown_batch_job_is_already_finished(batch: Any) -> None:
    attempt = BatchSubProcessController(lambda: batch).stop(child("batch", "no-such-job"), STEP)
    assert attempt.outcome is StopOutcome.ALREADY_FINISHED


def _job_detail(status: str, reason: str = "") -> dict[str, Any]:
    detail = {
        "jobName": "mesh-1",
        "jobId": "job-7",
        "jobQueue": "arn:aws:batch:us-east-1:123456789012:job-queue/queue",
        "status": status,
        "startedAt": 1764410400000,
        "jobDefinition": "arn:aws:batch:us-east-1:123456789012:job-definition/mesh:1",
    }
    return detail | ({"statusReason": reason} if reason else {})


def test_a_terminated_batch_job_is_requested_until_it_fails_with_the_wfx_reason() -> None:
    """Stubber: moto cannot keep a job RUNNING nor fail it on terminate (moto.md §15)."""
    client = boto3.client(
        "batch", region_name=REGION, aws_access_key_id="k", aws_secret_access_key="s"
    )
    controller = BatchSubProcessController(lambda: client)
    with Stubber(client) as stub:
        stub.add_response("terminate_job", {}, {"jobId": "job-7", "reason": BATCH_REASON})
        stub.add_response("describe_jobs", {"jobs": [_job_detail("RUNNING")]}, {"jobs": ["job-7"]})
        stub.add_response(
            "describe_jobs", {"jobs": [_job_detail("FAILED", BATCH_REASON)]}, {"jobs": ["job-7"]}
        )
        stub.add_client_error("terminate_job", "ClientException", "job queue is disabled", 400)

        requested = controller.stop(child("batch", "job-7"), STEP)
        confirmed = controller.confirm(child("batch", "job-7"), STEP)
        refused = controller.stop(child("batch", "job-7"), STEP)

        stub.assert_no_pending_responses()
    assert requested == StopAttempt(outcome=StopOutcome.STOP_REQUESTED, detail="still RUNNING")
    assert confirmed.outcome is StopOutcome.STOPPED
    assert refused == StopAttempt(
        outcome=StopOutcome.COULD_NOT_STOP, detail="ClientException: job queue is disabled"
    )


# -- Deadline Cloud: Stubber only, moto has no backend (moto.md §16) ----------------------------


@pytest.fixture
def deadline() -> Any:
    return boto3.client(
        "deadline", region_name=REGION, aws_access_key_id="k", aws_secret_access_key="s"
    )


def _get_job(status: str) -> dict[str, Any]:
    return {
        "jobId": JOB,
        "name": "render",
        "lifecycleStatus": "CREATE_COMPLETE",
        "lifecycleStatusMessage": "",
        "priority": 50,
        "createdAt": datetime(2026, 11, 29, 9, 0, tzinfo=UTC),
        "createdBy": "arn:aws:sts::123456789012:assumed-role/pipeline/x",
        "taskRunStatus": status,
    }


IDS = {"farmId": FARM, "queueId": QUEUE, "jobId": JOB}


def test_a_deadline_job_is_canceled_and_confirmed_with_get_job(deadline: Any) -> None:
    """Stubber: moto has no Deadline Cloud backend."""
    controller = DeadlineSubProcessController(lambda: deadline)
    with Stubber(deadline) as stub:
        stub.add_response("get_job", _get_job("RUNNING"), IDS)
        # botocore fills the idempotency clientToken after the Stubber has checked the params
        stub.add_response("update_job", {}, IDS | {"targetTaskRunStatus": "CANCELED"})
        stub.add_response("get_job", _get_job("INTERRUPTING"), IDS)
        stub.add_response("get_job", _get_job("CANCELED"), IDS)

        # as VAMS registers it: the three ids; as wfx's former entry did: the job ARN
        located = RegisteredSubExecution(
            resource_type="deadlineCloudJob", farm_id=FARM, queue_id=QUEUE, job_id=JOB
        )
        requested = controller.stop(located, STEP)
        confirmed = controller.confirm(child("deadline", DEADLINE_ARN), STEP)

        stub.assert_no_pending_responses()
    assert requested == StopAttempt(outcome=StopOutcome.STOP_REQUESTED, detail="still INTERRUPTING")
    assert confirmed == StopAttempt(outcome=StopOutcome.STOPPED, detail="CANCELED")


def test_a_finished_deadline_job_is_not_updated(deadline: Any) -> None:
    """Stubber: moto has no Deadline Cloud backend; no UpdateJob is queued, so none may be sent."""
    with Stubber(deadline) as stub:
        stub.add_response("get_job", _get_job("SUCCEEDED"), IDS)
        attempt = DeadlineSubProcessController(lambda: deadline).stop(
            child("deadline", DEADLINE_ARN), STEP
        )
        stub.assert_no_pending_responses()
    assert attempt.outcome is StopOutcome.ALREADY_FINISHED


def test_deadline_errors_are_outcomes_never_exceptions(deadline: Any) -> None:
    """Stubber with the modeled error codes of GetJob and UpdateJob."""
    controller = DeadlineSubProcessController(lambda: deadline)
    with Stubber(deadline) as stub:
        stub.add_response("get_job", _get_job("RUNNING"), IDS)
        stub.add_client_error(
            "update_job", "AccessDeniedException", "not allowed for AKIAABCDEFGHIJKLMNOP", 403
        )
        stub.add_client_error("get_job", "ResourceNotFoundException", "no job", 404)

        denied = controller.stop(child("deadline", DEADLINE_JOB), STEP)
        missing = controller.stop(child("deadline", DEADLINE_JOB), STEP)

    assert denied.outcome is StopOutcome.COULD_NOT_STOP
    assert denied.detail.startswith("AccessDeniedException: not allowed for")
    assert "AKIAABCDEFGHIJKLMNOP" not in denied.detail
    assert missing.outcome is StopOutcome.ALREADY_FINISHED


def test_a_deadline_id_must_name_farm_queue_and_job(deadline: Any) -> None:
    assert parse_deadline_job(DEADLINE_JOB) == (FARM, QUEUE, JOB)
    assert parse_deadline_job(DEADLINE_ARN) == (FARM, QUEUE, JOB)
    assert parse_deadline_job(JOB) is None
    attempt = DeadlineSubProcessController(lambda: deadline).stop(child("deadline", JOB), STEP)
    assert attempt.outcome is StopOutcome.COULD_NOT_STOP
    assert attempt.detail == "the locator needs farmId, queueId and jobId (or the job ARN)"


# -- localProcess: real processes ---------------------------------------------------------------


def _wait_gone(pid: int, seconds: float = 3.0) -> bool:
    deadline = time.monotonic() + seconds
    while not _is_gone(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    """A run folder whose runner record names this test process: its children are the step's."""
    RunFolder(tmp_path / "runs" / STEP.workflow_execution_id).write_runner(this_process("inline"))
    return tmp_path / "runs"


def local(runs: Path, grace_seconds: float = 2.0) -> LocalProcessController:
    return LocalProcessController(runs, grace_seconds=grace_seconds)


def test_a_local_process_is_sent_sigterm_and_seen_gone(runs: Path) -> None:
    process = subprocess.Popen(["sleep", "60"])
    try:
        attempt = local(runs).stop(child("localProcess", str(process.pid)), STEP)
        assert attempt.outcome is StopOutcome.STOPPED
        assert process.wait(timeout=5) == -signal.SIGTERM
    finally:
        process.kill()


def test_a_process_group_leader_is_stopped_with_its_children(runs: Path) -> None:
    process = subprocess.Popen(
        ["sh", "-c", "sleep 60 & echo $!; wait"], stdout=subprocess.PIPE, start_new_session=True
    )
    try:
        assert process.stdout is not None
        grandchild = int(process.stdout.readline())
        attempt = local(runs).stop(child("localProcess", str(process.pid)), STEP)
        assert attempt.outcome is StopOutcome.STOPPED
        assert _wait_gone(grandchild)
    finally:
        process.kill()
        process.wait()


def test_a_process_that_ignores_sigterm_is_killed_after_the_grace_period(runs: Path) -> None:
    ignoring = (
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN);"
        "print('ready', flush=True); time.sleep(60)"
    )
    process = subprocess.Popen([sys.executable, "-c", ignoring], stdout=subprocess.PIPE)
    controller = local(runs, grace_seconds=0.2)
    sub = child("localProcess", str(process.pid))
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == b"ready"
        started = time.monotonic()
        stopped = controller.stop(sub, STEP)
        took = time.monotonic() - started
        returncode = process.wait(timeout=5)
        confirmed = controller.confirm(sub, STEP)
    finally:
        process.kill()
    assert stopped == StopAttempt(outcome=StopOutcome.STOPPED, detail="ended after SIGKILL")
    assert returncode == -signal.SIGKILL and took >= 0.2
    assert confirmed.outcome is StopOutcome.STOPPED


def test_a_process_that_is_not_the_steps_is_refused_and_left_alone(runs: Path) -> None:
    """Its parent exits at once, so it is nobody's child: not in the step's session either."""
    started = subprocess.run(
        ["sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!"],
        capture_output=True,
        text=True,
        check=True,
        start_new_session=True,
    )
    stranger = int(started.stdout)
    try:
        attempt = local(runs).stop(child("localProcess", str(stranger)), STEP)
        assert attempt.outcome is StopOutcome.COULD_NOT_STOP
        assert attempt.detail.startswith(f"refused: pid {stranger} is not a process of step")
        assert not _is_gone(stranger)
    finally:
        os.kill(stranger, signal.SIGKILL)


def test_a_process_in_the_recorded_session_of_a_command_step_is_the_steps(tmp_path: Path) -> None:
    session = subprocess.Popen(
        ["sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!; wait"],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert session.stdout is not None
        grandchild = int(session.stdout.readline())
        folder = RunFolder(tmp_path / "runs" / STEP.workflow_execution_id)
        folder.write_step(STEP.pipeline_execution_id, child_process(session.pid, "command", 1))
        attempt = LocalProcessController(tmp_path / "runs", 1.0).stop(
            child("localProcess", str(grandchild)), STEP
        )
        assert attempt.outcome is StopOutcome.STOPPED
        assert _wait_gone(grandchild)
    finally:
        session.kill()
        session.wait()


def test_a_pid_that_does_not_exist_is_already_finished(runs: Path) -> None:
    process = subprocess.Popen(["true"])
    process.wait()
    attempt = local(runs).stop(child("localProcess", str(process.pid)), STEP)
    assert attempt.outcome is StopOutcome.ALREADY_FINISHED


@pytest.mark.parametrize(
    ("resource_id", "reason"),
    [
        ("1", "refused to signal pid 1"),
        ("0", "refused to signal pid 0"),
        ("-5", "refused to signal pid -5"),
        ("own", "refused to signal wfx itself"),  # the pid is known only when the test runs
        ("pid-12", "localProcessId must be a process id"),
    ],
)
def test_init_wfx_itself_and_a_non_pid_are_refused(
    runs: Path, resource_id: str, reason: str
) -> None:
    resource_id = str(os.getpid()) if resource_id == "own" else resource_id
    attempt = local(runs).stop(child("localProcess", resource_id), STEP)
    assert attempt == StopAttempt(outcome=StopOutcome.COULD_NOT_STOP, detail=reason)


# -- the dispatcher -----------------------------------------------------------------------------


class _Broken:
    def stop(self, sub_execution: RegisteredSubExecution, step: object) -> StopAttempt:
        raise RuntimeError("token=abc123 exploded")

    confirm = stop


def test_an_unknown_type_is_unsupported_and_a_broken_controller_could_not_stop() -> None:
    """_Broken stands in for a controller with a bug: no real part raises like this on purpose."""
    built: list[str] = []

    def local_controller() -> LocalProcessController:
        built.append("localProcess")
        return LocalProcessController(Path("runs"))

    controller = DispatchingSubProcessController(
        {"localProcess": local_controller, "batchJob": _Broken}
    )

    unsupported = controller.stop(child("kubernetesJob", "pod-1"), STEP)
    broken = controller.confirm(child("batch", "job-1"), STEP)

    assert unsupported == StopAttempt(
        outcome=StopOutcome.UNSUPPORTED, detail="wfx cannot stop kubernetesJob"
    )
    assert broken.outcome is StopOutcome.COULD_NOT_STOP
    assert "exploded" in broken.detail and "abc123" not in broken.detail
    assert built == []  # a controller is built only for a child of its type


class _MeetingController:
    """Stops a child once `parties` stops have all begun (10 s at most: a broken barrier is a
    couldNotStop), saying which child it stopped; counts how often it was built."""

    built = 0

    def __init__(self, parties: int) -> None:
        type(self).built += 1
        self._all_begun = threading.Barrier(parties, timeout=10)

    def stop(self, sub_execution: RegisteredSubExecution, step: object) -> StopAttempt:
        self._all_begun.wait()
        return StopAttempt(outcome=StopOutcome.STOPPED, detail=sub_execution.resource_id)

    confirm = stop


def test_a_steps_children_are_stopped_at_once_each_attempt_in_the_registrations_order() -> None:
    """Each of the three batch jobs' stops waits until all three have begun: one after another,
    the first would wait for ever (10 s, then couldNotStop)."""
    _MeetingController.built = 0
    controller = DispatchingSubProcessController(
        {"batchJob": lambda: _MeetingController(3), "localProcess": _Broken}
    )
    jobs = [child("batch", f"job-{n}") for n in range(3)]
    odd = [child("kubernetesJob", "pod-1"), child("localProcess", "4242")]

    attempts = controller.stop_each([jobs[0], odd[0], jobs[1], odd[1], jobs[2]], STEP)

    assert [(a.outcome, a.detail) for a in attempts] == [
        (StopOutcome.STOPPED, "job-0"),
        (StopOutcome.UNSUPPORTED, "wfx cannot stop kubernetesJob"),
        (StopOutcome.STOPPED, "job-1"),
        (StopOutcome.COULD_NOT_STOP, "RuntimeError: token=[REDACTED] exploded"),
        (StopOutcome.STOPPED, "job-2"),
    ]
    assert _MeetingController.built == 1  # built once, before the threads
    assert controller.stop_each([], STEP) == []
