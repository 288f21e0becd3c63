"""Which registered sub-processes a deployment may stop (WFX_SUB_PROCESSES): read by Settings,
each refusal naming the entry's field and the stack parameter that would allow it."""

from __future__ import annotations

import pytest

from domain.errors import InvalidInputError
from domain.logs import RegisteredSubExecution
from domain.sub_process_reach import SubProcessReach, parse_sub_process_reach
from entrypoints.settings import Settings

OWN = "wfx_0a1b2c3d-"
RUNS = "arn:aws:states:us-east-1:123456789012:execution:"


def _run(machine: str) -> RegisteredSubExecution:
    return RegisteredSubExecution(
        resource_type="stepFunctionsExecution", execution_arn=f"{RUNS}{machine}:run-1"
    )


def test_unset_reaches_anything_as_wfx_did_and_as_it_does_locally() -> None:
    assert Settings.from_environment({}).sub_process_reach is None


def test_the_stack_s_value_is_read_and_empty_parts_allow_nothing() -> None:
    value = (
        "stateMachines=render-*,,wfx-demo-*;batchJobs=any;deadlineFarms=farm-0a*;"
        "region=us-east-1;account=123456789012"
    )
    settings = Settings.from_environment({"WFX_SUB_PROCESSES": value})
    assert settings.sub_process_reach == SubProcessReach(
        state_machines=("render-*", "wfx-demo-*"),
        batch_jobs=True,
        deadline_farms=("farm-0a*",),
        region="us-east-1",
        account="123456789012",
    )
    nothing = parse_sub_process_reach("stateMachines=,;batchJobs=none;deadlineFarms=", "V")
    assert nothing == SubProcessReach()


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ("stateMachines=render v1", "WFX_SUB_PROCESSES: 'render v1' is not a name pattern"),
        ("stateMachines=*-v1", "WFX_SUB_PROCESSES: '*-v1' is not a name pattern"),
        ("batchJobs=some", "WFX_SUB_PROCESSES: batchJobs must be none or any, got 'some'"),
        ("machines=x", "WFX_SUB_PROCESSES: 'machines=x' is not one of stateMachines="),
        ("region=mars", "WFX_SUB_PROCESSES: region 'mars' is not an AWS region"),
        ("account=12", "WFX_SUB_PROCESSES: account '12' is not an AWS account"),
    ],
)
def test_a_value_breaking_its_rule_is_refused_naming_the_variable(value: str, named: str) -> None:
    with pytest.raises(InvalidInputError) as refused:
        Settings.from_environment({"WFX_SUB_PROCESSES": value})
    assert str(refused.value).startswith(named)


def test_a_run_is_allowed_of_the_stack_s_own_machines_and_of_the_pattern_only() -> None:
    reach = SubProcessReach(state_machines=("render-*",))
    assert reach.refusal(_run(f"{OWN}demo-mesh-v1"), "subExecution", OWN) is None
    assert reach.refusal(_run("render-v2"), "subExecution", OWN) is None
    assert reach.refusal(_run("rendering"), "subExecution", OWN) == (
        "subExecution.executionArn: a run of state machine rendering, which this deployment's "
        f"roles may not stop (they stop runs of {OWN}* and of SubProcessStateMachinePattern: "
        "render-*); entry dropped"
    )
    everything = SubProcessReach(state_machines=("*",))
    assert everything.refusal(_run("anything-at-all"), "subExecution", OWN) is None


def test_batch_and_deadline_jobs_are_refused_unless_the_deployment_stops_them() -> None:
    batch = RegisteredSubExecution(resource_type="batchJob", job_id="job-1")
    job = RegisteredSubExecution(
        resource_type="deadlineCloudJob", farm_id="farm-0a1", queue_id="queue-1", job_id="job-1"
    )
    by_arn = RegisteredSubExecution(
        resource_type="deadlineCloudJob",
        job_arn="arn:aws:deadline:us-east-1:123456789012:farm/farm-9f/queue/queue-1/job/job-2",
    )
    none = SubProcessReach()
    assert none.refusal(batch, "subExecutions[0]", OWN) == (
        "subExecutions[0].resourceType: a Batch job, which this deployment's roles may not "
        "terminate (SubProcessBatchJobs is none); entry dropped"
    )
    assert none.refusal(job, "subExecutions[1]", OWN) == (
        "subExecutions[1].farmId: a job of Deadline Cloud farm farm-0a1, which this deployment's "
        "roles may not cancel (SubProcessDeadlineFarmPattern: empty); entry dropped"
    )
    some = SubProcessReach(batch_jobs=True, deadline_farms=("farm-0a*",))
    assert some.refusal(batch, "subExecutions[0]", OWN) is None
    assert some.refusal(job, "subExecutions[1]", OWN) is None
    refused = some.refusal(by_arn, "subExecutions[2]", OWN)
    assert refused is not None and refused.startswith("subExecutions[2].jobArn: a job of Deadline")
    local = RegisteredSubExecution(resource_type="localProcess", local_process_id="12")
    assert none.refusal(local, "subExecution", OWN) is None  # no role stops a local process


def test_a_sub_process_of_another_region_or_account_is_refused_whatever_its_kind() -> None:
    """The roles name the stack's region and account alone: even `*` reaches no other."""
    reach = SubProcessReach(
        state_machines=("*",),
        batch_jobs=True,
        deadline_farms=("*",),
        region="us-east-1",
        account="123456789012",
    )
    abroad = RegisteredSubExecution(
        resource_type="stepFunctionsExecution",
        execution_arn="arn:aws:states:eu-west-1:123456789012:execution:render-v2:run-1",
    )
    foreign = RegisteredSubExecution(
        resource_type="batchJob", job_arn="arn:aws:batch:us-east-1:999999999999:job/j-1"
    )
    assert reach.refusal(abroad, "subExecution", OWN) == (
        "subExecution.executionArn: of region 'eu-west-1' and account '123456789012', where this "
        "deployment's roles stop nothing (they stop in its own region and account only); "
        "entry dropped"
    )
    refused = reach.refusal(foreign, "subExecutions[1]", OWN)
    assert refused is not None and refused.startswith("subExecutions[1].jobArn: of region")
    assert reach.refusal(_run("render-v2"), "subExecution", OWN) is None  # us-east-1, its own
