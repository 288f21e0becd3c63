"""GetExecutionDetails with include_sub_executions, on the SQLite file store and on DynamoDB, with
the real AwsSubExecutionReader: Step Functions in moto's parser mode (real ASL runs, real
histories), Batch on moto without Docker. The page bounds and the token rule need histories with
nextToken, which moto never returns: those tests use botocore's Stubber with AWS's shapes."""

from __future__ import annotations

import collections
import threading
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws

from adapters.aws.sub_executions import AwsSubExecutionReader
from adapters.concurrent_reads import THREAD_NAME_PREFIX
from adapters.system import SystemClock
from application.ports.executions import ExecutionStore
from application.sub_execution_status import SubExecutionStatus
from application.use_cases.get_execution_details import (
    GetExecutionDetails,
    GetExecutionDetailsQuery,
)
from application.use_cases.register_pipeline_execution import (
    RegisterPipelineExecutionCommand,
)
from domain.execution import ExecutionDetails
from domain.stages import StageState
from tests.contract.builders import a_launch, a_registrar, step_id, write_launch
from tests.moto_state_machines import (
    ACCOUNT,
    PARSER_MODE,
    REGION,
    SUB_PIPELINE_STATUSES,
    create_sub_pipeline,
    finished_batch_job,
    run_to_the_end,
)

STEP = step_id("e1", 0)
MISSING_ARN = f"arn:aws:states:{REGION}:{ACCOUNT}:execution:sub-pipeline:never-ran"


class Calls:
    """AWS API calls made through one client, counted on botocore's before-call event, and the
    threads that made the DescribeExecution calls (the read threads when sent at once)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.counts: collections.Counter[str] = collections.Counter()
        self.describing_threads: list[str] = []
        self._lock = threading.Lock()
        self.history_tokens: list[str | None] = []
        events = client.meta.events
        events.register("before-call.*.*", self._count, unique_id="sub-exec-calls")
        events.register("before-parameter-build.*.*", self._token, unique_id="sub-exec-tokens")

    def _count(self, model: Any, **_: Any) -> None:
        with self._lock:  # counted from the read threads too
            self.counts[model.name] += 1
            if model.name == "DescribeExecution":
                self.describing_threads.append(threading.current_thread().name)

    def _token(self, model: Any, params: dict[str, Any], **_: Any) -> None:
        if model.name == "GetExecutionHistory":  # the caller's parameters, as it passed them
            self.history_tokens.append(params.get("nextToken"))


@pytest.fixture(params=["sqlite_file", "dynamodb"])
def store(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": REGION,
    }.items():
        monkeypatch.setenv(name, value)
    store: ExecutionStore = request.getfixturevalue(f"{request.param}_execution_store")
    write_launch(store, a_launch("e1"))
    with mock_aws(config=PARSER_MODE):  # inside the DynamoDB store's mock when there is one
        yield store


@pytest.fixture
def sfn() -> Calls:
    return Calls(boto3.client("stepfunctions", region_name=REGION))


@pytest.fixture
def batch() -> Calls:
    return Calls(boto3.client("batch", region_name=REGION))


def _register(store: ExecutionStore, *subs: dict[str, str]) -> None:
    a_registrar(store).execute(
        RegisterPipelineExecutionCommand.model_validate(
            {
                "source": f"wfx.execution.e1.pipeline.{STEP}",
                "detail-type": "pipeline.execution.register",
                "detail": {"pipelineExecutionId": STEP, "subExecutions": list(subs)},
            }
        )
    )


def _details(
    store: ExecutionStore, sfn: Calls, batch: Calls, include: bool = True, at_once: bool = True
) -> ExecutionDetails:
    reader = AwsSubExecutionReader(lambda: sfn.client, lambda: batch.client, at_once)
    use_case = GetExecutionDetails(store, None, SubExecutionStatus(reader), clock=SystemClock())
    query = GetExecutionDetailsQuery(workflow_execution_id="e1", include_sub_executions=include)
    return use_case.execute(query)


def _flat(states: tuple[StageState, ...]) -> dict[str, str]:
    found: dict[str, str] = {}
    pending = list(states)
    while pending:
        state = pending.pop()
        found[state.name] = state.status.value
        pending.extend(state.children)
    return found


def test_a_registered_sub_state_machine_that_ran_shows_its_stages_with_statuses(
    store: ExecutionStore, sfn: Calls, batch: Calls
) -> None:
    run = run_to_the_end(sfn.client, create_sub_pipeline(sfn.client), "run-1")
    _register(
        store, {"resourceType": "stepFunctionsExecution", "executionArn": run, "label": "mesh"}
    )

    details = _details(store, sfn, batch)

    (sub,) = details.steps[0].sub_executions
    assert (sub.resource_type, sub.resource_id, sub.label, sub.status) == (
        "stepFunctionsExecution",
        run,
        "mesh",
        "FAILED",
    )
    assert [stage.name for stage in sub.stages][:3] == ["Prepare", "Route", "FanOut"]
    assert _flat(sub.stages) == SUB_PIPELINE_STATUSES
    assert details.sub_execution_warnings == ()
    assert details.steps[1].sub_executions == ()


def test_a_sub_execution_step_functions_does_not_know_is_unknown_with_a_warning(
    store: ExecutionStore, sfn: Calls, batch: Calls
) -> None:
    _register(store, {"resourceType": "stepFunctionsExecution", "executionArn": MISSING_ARN})

    details = _details(store, sfn, batch)

    (sub,) = details.steps[0].sub_executions
    assert (sub.status, sub.stages) == ("UNKNOWN", ())
    (warning,) = details.sub_execution_warnings
    assert (warning.pipeline_execution_id, warning.resource_id) == (STEP, MISSING_ARN)
    assert "ExecutionDoesNotExist" in warning.message
    assert details.execution.workflow_execution_id == "e1"  # the request itself succeeded


def test_two_sub_executions_of_one_state_machine_describe_it_once(
    store: ExecutionStore, sfn: Calls, batch: Calls
) -> None:
    machine = create_sub_pipeline(sfn.client)
    first, second = (run_to_the_end(sfn.client, machine, name) for name in ("run-1", "run-2"))
    _register(
        store,
        {"resourceType": "stepFunctionsExecution", "executionArn": first},
        {"resourceType": "stepFunctionsExecution", "executionArn": second},
    )
    sfn.counts.clear()

    details = _details(store, sfn, batch)

    assert [s.status for s in details.steps[0].sub_executions] == ["FAILED", "FAILED"]
    assert sfn.counts == {
        "DescribeExecution": 2,
        "DescribeStateMachine": 1,
        "GetExecutionHistory": 2,
    }
    assert sfn.history_tokens == [None, None]


def test_sub_executions_described_at_once_answer_as_described_one_after_another(
    store: ExecutionStore, sfn: Calls, batch: Calls
) -> None:
    machine = create_sub_pipeline(sfn.client)
    runs = [run_to_the_end(sfn.client, machine, f"run-{n}") for n in range(1, 4)]
    _register(
        store,
        {"resourceType": "stepFunctionsExecution", "executionArn": runs[0], "label": "first"},
        {"resourceType": "stepFunctionsExecution", "executionArn": MISSING_ARN},
        {"resourceType": "batchJob", "jobId": "job-never-submitted"},
        {"resourceType": "stepFunctionsExecution", "executionArn": MISSING_ARN + "-too"},
        {"resourceType": "stepFunctionsExecution", "executionArn": runs[1]},
        {"resourceType": "stepFunctionsExecution", "executionArn": runs[2]},
    )
    sfn.counts.clear()
    sfn.describing_threads.clear()  # the runs' own, waited to their end

    at_once = _details(store, sfn, batch)
    threads, sfn.describing_threads = sfn.describing_threads, []
    counts = dict(sfn.counts)
    sfn.counts.clear()
    one_after_another = _details(store, sfn, batch, at_once=False)

    assert at_once.steps == one_after_another.steps
    assert at_once.sub_execution_warnings == one_after_another.sub_execution_warnings
    assert [w.resource_id for w in at_once.sub_execution_warnings] == [
        MISSING_ARN,
        "job-never-submitted",
        MISSING_ARN + "-too",
    ]
    # each in its place (the order asymmetric: answers given to the wrong one would show)
    assert [(s.resource_id, s.status) for s in at_once.steps[0].sub_executions] == [
        (runs[0], "FAILED"),
        (MISSING_ARN, "UNKNOWN"),
        ("job-never-submitted", "UNKNOWN"),
        (MISSING_ARN + "-too", "UNKNOWN"),
        (runs[1], "FAILED"),
        (runs[2], "FAILED"),
    ]
    assert all(s.stages for s in at_once.steps[0].sub_executions if s.status == "FAILED")
    assert (
        counts
        == sfn.counts
        == {
            "DescribeExecution": 5,
            "DescribeStateMachine": 1,
            "GetExecutionHistory": 3,
        }
    )
    assert len(threads) == 5 and all(t.startswith(THREAD_NAME_PREFIX) for t in threads), threads
    assert set(sfn.describing_threads) == {threading.current_thread().name}


def test_without_the_flag_no_aws_call_is_made(
    store: ExecutionStore, sfn: Calls, batch: Calls
) -> None:
    run = run_to_the_end(sfn.client, create_sub_pipeline(sfn.client), "run-1")
    _register(
        store,
        {"resourceType": "stepFunctionsExecution", "executionArn": run},
        {"resourceType": "batchJob", "jobId": "job-1"},
    )
    sfn.counts.clear()

    details = _details(store, sfn, batch, include=False)

    assert sfn.counts + batch.counts == collections.Counter()
    assert details.steps[0].sub_executions == ()
    assert details.steps[0].step.registered_sub_executions  # still listed as locators


def test_batch_jobs_get_their_status_and_an_unknown_job_a_warning(
    store: ExecutionStore, sfn: Calls, batch: Calls
) -> None:
    job = finished_batch_job(
        boto3.client("iam", region_name=REGION),
        boto3.client("ec2", region_name=REGION),
        batch.client,
    )
    _register(
        store,
        {"resourceType": "batchJob", "jobId": job},
        {"resourceType": "batchJob", "jobId": "no-such-job"},
    )
    batch.counts.clear()

    details = _details(store, sfn, batch)

    assert [(s.resource_id, s.status) for s in details.steps[0].sub_executions] == [
        (job, "SUCCEEDED"),
        ("no-such-job", "UNKNOWN"),
    ]
    assert batch.counts == {"DescribeJobs": 1}  # every job of the request in one call
    (warning,) = details.sub_execution_warnings
    assert warning.resource_id == "no-such-job"


def test_a_type_wfx_cannot_read_is_unknown_with_a_note_and_no_warning(
    store: ExecutionStore, sfn: Calls, batch: Calls
) -> None:
    _register(store, {"resourceType": "deadline", "resourceId": "farm-1/queue-1/job-1"})

    details = _details(store, sfn, batch)

    (sub,) = details.steps[0].sub_executions
    assert sub.status == "UNKNOWN"
    assert "deadline" in sub.note
    assert details.sub_execution_warnings == ()
    assert sfn.counts + batch.counts == collections.Counter()


# -- page bounds and tokens (Stubber: moto returns no nextToken) -------------------------------

MACHINE = f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:paged"
DEFINITION = '{"StartAt": "Only", "States": {"Only": {"Type": "Pass", "End": true}}}'


def _run_arn(n: int) -> str:
    return f"arn:aws:states:{REGION}:{ACCOUNT}:execution:paged:run-{n}"


def _event(n: int) -> dict[str, Any]:
    return {
        "timestamp": "2025-03-01T09:00:00Z",
        "type": "ExecutionStarted" if n == 1 else "PassStateEntered",
        "id": n,
        "previousEventId": n - 1,
        **(
            {"executionStartedEventDetails": {"input": "{}", "roleArn": "arn:aws:iam::1:role/r"}}
            if n == 1
            else {"stateEnteredEventDetails": {"name": "Only", "input": "{}"}}
        ),
    }


def test_history_reads_stop_at_5_pages_a_sub_execution_and_20_a_request(
    store: ExecutionStore, batch: Calls
) -> None:
    """Stubber, AWS shapes: five runs of one machine whose histories always have a next page.

    Each run's first page is asked with no token, each later page with the token the page
    before returned; four runs use the request's 20 pages and the fifth gets none. The runs are
    all described first, in one batch (here one after another: a Stubber answers in order).
    """
    client = boto3.client("stepfunctions", region_name=REGION)
    sfn = Calls(client)
    runs = [_run_arn(n) for n in range(1, 6)]
    _register(
        store, *({"resourceType": "stepFunctionsExecution", "executionArn": arn} for arn in runs)
    )
    with Stubber(client) as stub:
        for arn in runs:
            stub.add_response(
                "describe_execution",
                {
                    "executionArn": arn,
                    "stateMachineArn": MACHINE,
                    "status": "RUNNING",
                    "startDate": "2025-03-01T09:00:00Z",
                },
                {"executionArn": arn},
            )
        for index, arn in enumerate(runs):
            if index == 0:
                stub.add_response(
                    "describe_state_machine",
                    {
                        "stateMachineArn": MACHINE,
                        "name": "paged",
                        "definition": DEFINITION,
                        "roleArn": "arn:aws:iam::1:role/r",
                        "type": "STANDARD",
                        "creationDate": "2025-03-01T08:00:00Z",
                    },
                    {"stateMachineArn": MACHINE},
                )
            if index == 4:
                continue  # the request's 20 pages are spent: not one page is asked
            for page in range(5):
                request = {
                    "executionArn": arn,
                    "maxResults": 1000,
                    "reverseOrder": False,
                    "includeExecutionData": False,
                }
                if page:
                    request["nextToken"] = f"{arn}#page{page}"
                stub.add_response(
                    "get_execution_history",
                    {"events": [_event(page + 1)], "nextToken": f"{arn}#page{page + 1}"},
                    request,
                )
        details = _details(store, sfn, batch, at_once=False)
        stub.assert_no_pending_responses()

    assert sfn.counts["GetExecutionHistory"] == 20
    assert sfn.counts["DescribeStateMachine"] == 1
    expected_tokens = [None if p == 0 else f"{arn}#page{p}" for arn in runs[:4] for p in range(5)]
    assert sfn.history_tokens == expected_tokens
    messages = [(w.resource_id, w.message) for w in details.sub_execution_warnings]
    assert [arn for arn, _ in messages] == runs
    assert all("not read past 5 pages" in text for _, text in messages[:4])
    assert "not read past 20 pages in this request" in messages[4][1]
    fifth = details.steps[0].sub_executions[4]
    assert [(s.name, s.status.value) for s in fifth.stages] == [("Only", "UNKNOWN")]
    first = details.steps[0].sub_executions[0]
    assert [(s.name, s.status.value) for s in first.stages] == [("Only", "UNKNOWN")]
