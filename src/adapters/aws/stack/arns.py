"""ARN patterns of this account and region, as CloudFormation `Fn::Sub` expressions."""

from __future__ import annotations

from typing import Any

from domain.names import STACK_PREFIX_HEAD

# wfx's own state machines are `<prefix><db>-<wf>[-<hash>]-v<N>` (state_machine_name), the
# prefix the stack's: `wfx_` and the first part of its stack id (8 hex digits, so that no
# stack's prefix starts another's) and `-`. Two stacks in one account (staging beside
# production) then never name the same machine, and neither's roles reach the other's runs.
# Not the stack's name: it may be 128 characters, and a name is 80 at most.
STATE_MACHINE_PREFIX: dict[str, Any] = {
    "Fn::Join": [
        "",
        [
            STACK_PREFIX_HEAD,
            {
                "Fn::Select": [
                    0,
                    {
                        "Fn::Split": [
                            "-",
                            {"Fn::Select": [2, {"Fn::Split": ["/", {"Ref": "AWS::StackId"}]}]},
                        ]
                    },
                ]
            },
            "-",
        ],
    ]
}
# Machines deployed before the stack had a prefix (`wfx-<db>-<wf>-v<N>`): the names the roles
# may still reach while their runs are read, aborted and redriven, when the deployer gives them.
EARLIER_STATE_MACHINES = "EarlierStateMachinePattern"
EARLIER_STATE_MACHINES_NAMED = "EarlierStateMachinesNamed"
# Where the pipelines start the sub-processes they register (domain.sub_process_reach): the
# conditions under which the roles reach them, and the log groups of their registered logs.
SUB_PROCESS_STATE_MACHINES_NAMED = "SubProcessStateMachinesNamed"
SUB_PROCESS_BATCH_JOBS_ALLOWED = "SubProcessBatchJobsAllowed"
SUB_PROCESS_FARMS_NAMED = "SubProcessDeadlineFarmsNamed"
SUB_PROCESS_LOG_GROUPS = "SubProcessLogGroupPattern"
SUB_PROCESS_LOG_GROUPS_NAMED = "SubProcessLogGroupsNamed"
# The group they log to: `wfx workflows deploy` sets it from the stack's output
# (WFX_SFN_LOG_GROUP_ARN), so it is the one a run's log is read from.
STATE_MACHINE_LOG_GROUP_ID = "StateMachineLogGroup"


_ACCOUNT = "${AWS::Region}:${AWS::AccountId}"


def arn_text(service: str, resource: str) -> str:
    return f"arn:${{AWS::Partition}}:{service}:{_ACCOUNT}:{resource}"


def arn(service: str, resource: str) -> dict[str, Any]:
    return {"Fn::Sub": arn_text(service, resource)}


def own_state_machines(resource: str) -> list[Any]:
    """`stateMachine:{name}` or `execution:{name}:*` of the stack's machines, `{name}` standing for
    a machine's name: those under its prefix, and the earlier names when the deployer gives them."""
    account = f"arn:${{AWS::Partition}}:states:{_ACCOUNT}:"
    prefixed = {
        "Fn::Sub": [
            account + resource.format(name="${StateMachinePrefix}*"),
            {"StateMachinePrefix": STATE_MACHINE_PREFIX},
        ]
    }
    earlier = {"Fn::Sub": account + resource.format(name=f"${{{EARLIER_STATE_MACHINES}}}")}
    return [
        prefixed,
        {"Fn::If": [EARLIER_STATE_MACHINES_NAMED, earlier, {"Ref": "AWS::NoValue"}]},
    ]


def bucket_objects(prefix: str) -> dict[str, Any]:
    return {"Fn::Sub": f"${{DataBucket.Arn}}/{prefix}*"}


def log_group(group_id: str) -> list[dict[str, Any]]:
    """A stack log group, as the group and as its streams (IAM matches either, by the call)."""
    group = f"arn:${{AWS::Partition}}:logs:{_ACCOUNT}:log-group:${{{group_id}}}"
    return [{"Fn::Sub": group}, {"Fn::Sub": f"{group}:*"}]
