"""The Amazon States Language definition that runs a workflow version on Step Functions.

Pure functions over plain data (no boto3): `build_state_machine` writes the definition,
`validate_state_machine` checks its structure, `state_machine_name` names it.

The execution input is `{"workflowExecutionId", "pipelineExecutionIds": [...in chain order],
...}`; each step's output prefix is composed from `$$.Execution.Name`, the execution id (seed
000). Each step i runs as three Task states: "Start <pipelineId>" (the tracking function,
StartStep), "Run <pipelineId>" (the step itself) and "Finish <pipelineId>" (the tracking
function, FinishStep); after the last step "Complete" calls the completion function
(CompleteExecution) and the run succeeds. Any failure of any Task is caught into
"HandleExecutionError", which calls the error function and fails the run with the step's own
error and cause. Every Task keeps its input (`ResultPath: null`), so each state reads the ids
from the execution input.

A step with a retry policy retries in an explicit loop rather than a native `Retry`, so that wfx
records every attempt (seed 003): "Attempt 1 <id>" (a Pass) sets the step's counter and delay
table at `$.attempts.s<i>`; the step's Catch goes to "Retry? <id>" (a Choice on the counter), which
while attempts remain goes to "Report retry <id>" (the tracking function, RetryStep), "Next attempt
<id>" (a Pass: `States.MathAdd` the counter, `States.ArrayGetItem` its delay), "Wait <id>" and back
to "Run <id>"; when none remain, to "HandleExecutionError" as any other failure.

An approval step (seed 003 APPROVAL_REQUEST) is never retried. Its "Run <id>" calls the tracking
function (`gate`) with `lambda:invoke.waitForTaskToken`: the function opens the attempt's
approval request holding the task's token, and the task waits - Step Functions holds the run, no
function does - until the decision answers the token (SendTaskSuccess: the step finishes as any
other; SendTaskFailure `wfx.ApprovalRejected` / `wfx.ApprovalCancelled`: "Rejected <id>") or
the gate's `TimeoutSeconds` pass (`States.Timeout`, or `wfx.ApprovalTimedOut` when a read closed
the gate first: "Timed out <id>"). Both call the tracking function (`gate-closed`), which ends
the step with the gate's own error (and closes a request still pending TIMED_OUT), then the
completion function ends the run FAILED or TIMED_OUT with it; the execution itself fails with
the gate's error ("ExecutionFailed", or "ApprovalTimedOut": `wfx.ApprovalTimedOut`).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.approvals import CANCELLED_ERROR, REJECTED_ERROR, TIMED_OUT_ERROR, ApprovalGate
from domain.execution import execution_output_prefix
from domain.names import DEFAULT_STATE_MACHINE_PREFIX
from domain.workflow import ExecutionType, RetryPolicy, StepDefinition, WorkflowVersion

LAMBDA_INVOKE = "arn:aws:states:::lambda:invoke"
LAMBDA_INVOKE_CALLBACK = "arn:aws:states:::lambda:invoke.waitForTaskToken"
BATCH_SUBMIT_JOB_SYNC = "arn:aws:states:::batch:submitJob.sync"
# seed 000: the execution's name is the workflow execution id, and the state machine composes the
# run's output prefix from it directly (the one template, execution_output_prefix's), never from
# what the launcher passed in the input
OUTPUT_PREFIX_PATH = f"States.Format('{execution_output_prefix('{}')}', $$.Execution.Name)"

COMPLETE_STATE = "Complete"
SUCCEEDED_STATE = "ExecutionSucceeded"
ERROR_STATE = "HandleExecutionError"
FAILED_STATE = "ExecutionFailed"
# a gate's run ends through the completion function, with the status the gate's end gives it
GATE_REJECTED_STATE = "CompleteRejected"
GATE_TIMED_OUT_STATE = "CompleteTimedOut"
# A Fail state may not end with a `States.` error (the interpreter fails it with States.Runtime
# instead), so a timeout ends the execution with the gate's own error.
GATE_TIMED_OUT_FAILED_STATE = "ApprovalTimedOut"
TASK_TIMEOUT_ERROR = "States.Timeout"
MAX_TIMEOUT_SECONDS = 99_999_999  # ASL's limit on a Task's TimeoutSeconds
MAX_STATE_NAME_LENGTH = 80
MAX_STATE_MACHINE_NAME_LENGTH = 80
_NAME_ALPHABET = re.compile(r"[^0-9A-Za-z_-]")
_LONGEST_VERB = "Report retry "

# The errors AWS recommends retrying on every lambda:invoke: the invocation never ran, or was
# throttled. The tracking, completion and error functions are idempotent, so a retry is safe.
_LAMBDA_TRANSIENT_RETRY: dict[str, Any] = {
    "ErrorEquals": [
        "Lambda.ServiceException",
        "Lambda.AWSLambdaException",
        "Lambda.SdkClientException",
        "Lambda.TooManyRequestsException",
    ],
    "IntervalSeconds": 1,
    "MaxAttempts": 3,
    "BackoffRate": 2.0,
}
_CATCH_ALL: list[dict[str, Any]] = [
    {"ErrorEquals": ["States.ALL"], "ResultPath": "$.error", "Next": ERROR_STATE}
]


@dataclass(frozen=True)
class HandlerArns:
    """The Lambda functions a state machine calls: step tracking, completion, error handler."""

    tracking: str
    completion: str
    error: str


def build_state_machine(version: WorkflowVersion, handlers: HandlerArns) -> dict[str, Any]:
    """The ASL definition that runs `version`'s steps in order; refuses a local-only step."""
    local = [step.pipeline_id for step in version.steps if step.runs_locally]
    if local:
        raise ValueError(f"steps {', '.join(local)} run only locally")
    labels = _step_labels(version.steps)
    states: dict[str, Any] = {}
    for index, step in enumerate(version.steps):
        states.update(_step_states(step, index, labels, handlers))
    gated = any(step.approval is not None for step in version.steps)
    states.update(_end_states(handlers, gated))
    return {
        "Comment": (
            f"wfx {version.database_id}/{version.workflow_id} version {version.version}: "
            f"{len(version.steps)} step(s)"
        ),
        "StartAt": f"Start {labels[0]}",
        "States": states,
    }


def _step_states(
    step: StepDefinition, index: int, labels: list[str], handlers: HandlerArns
) -> dict[str, Any]:
    """Step `index`'s states: its start, its run (a gate, one attempt or a retry loop), its
    finish, which goes on to the next step's start or to the completion."""
    label = labels[index]
    after = f"Start {labels[index + 1]}" if index + 1 < len(labels) else COMPLETE_STATE
    run = f"Run {label}"
    states: dict[str, Any] = {}
    if step.approval is not None:
        states[f"Start {label}"] = _tracking_task(handlers, "start", index, run)
        states.update(_gate_states(handlers, step.approval, index, label))
    elif step.retry is None or step.retry.max_attempts == 1:  # one attempt: nothing to loop
        states[f"Start {label}"] = _tracking_task(handlers, "start", index, run)
        states[run] = _step_task(step, index, f"Finish {label}")
    else:
        states[f"Start {label}"] = _tracking_task(handlers, "start", index, f"Attempt 1 {label}")
        states[run] = _step_task(step, index, f"Finish {label}", f"Retry? {label}")
        states.update(_retry_loop(handlers, step.retry, index, label))
    # The last step is finished here too (its row closed as SUCCEEDED); its output files
    # are recorded by CompleteExecution, which FinishStep leaves them to (seed 000).
    states[f"Finish {label}"] = _tracking_task(handlers, "finish", index, after)
    return states


def _end_states(handlers: HandlerArns, gated: bool) -> dict[str, Any]:
    """The run's ends: completed and succeeded; rejected or timed out at a gate, when it has
    one; failed, through the error handler."""
    states: dict[str, Any] = {
        COMPLETE_STATE: _lambda_task(
            handlers.completion,
            {"workflowExecutionId.$": "$.workflowExecutionId", "status": "SUCCEEDED"},
            SUCCEEDED_STATE,
        ),
        SUCCEEDED_STATE: {"Type": "Succeed"},
    }
    if gated:
        states.update(_gate_end_states(handlers))
    states[ERROR_STATE] = {
        **_lambda_task(
            handlers.error,
            {"workflowExecutionId.$": "$.workflowExecutionId", "error.$": "$.error"},
            FAILED_STATE,
        ),
        # The run fails whatever happens to the error handler; its own failure is kept aside.
        "Catch": [
            {"ErrorEquals": ["States.ALL"], "ResultPath": "$.errorHandler", "Next": FAILED_STATE}
        ],
    }
    states[FAILED_STATE] = {
        "Type": "Fail",
        "ErrorPath": "$.error.Error",
        "CausePath": "$.error.Cause",
    }
    return states


def _gate_end_states(handlers: HandlerArns) -> dict[str, Any]:
    states: dict[str, Any] = {}
    # no error given: the run takes the error its gate step ended with
    for name, status, end in (
        (GATE_REJECTED_STATE, "FAILED", FAILED_STATE),
        (GATE_TIMED_OUT_STATE, "TIMED_OUT", GATE_TIMED_OUT_FAILED_STATE),
    ):
        states[name] = _lambda_task(
            handlers.completion,
            {"workflowExecutionId.$": "$.workflowExecutionId", "status": status},
            end,
        )
    states[GATE_TIMED_OUT_FAILED_STATE] = {
        "Type": "Fail",
        "Error": TIMED_OUT_ERROR,
        "Cause": "no decision before the approval gate's timeout",
    }
    return states


def _step_labels(steps: tuple[StepDefinition, ...]) -> list[str]:
    """A unique label per step for its state names: the pipeline id, numbered when it repeats
    or when it is too long for an 80-character state name (pipeline ids have no spaces or #)."""
    room = MAX_STATE_NAME_LENGTH - len(_LONGEST_VERB)
    counts: dict[str, int] = {}
    for step in steps:
        counts[step.pipeline_id] = counts.get(step.pipeline_id, 0) + 1
    labels = []
    for index, step in enumerate(steps):
        label = step.pipeline_id
        if counts[label] > 1 or len(label) > room:
            suffix = f" #{index + 1}"
            label = label[: room - len(suffix)] + suffix
        labels.append(label)
    return labels


def _lambda_task(function: str, payload: dict[str, Any], next_state: str) -> dict[str, Any]:
    return {
        "Type": "Task",
        "Resource": LAMBDA_INVOKE,
        "Parameters": {"FunctionName": function, "Payload": payload},
        "ResultPath": None,
        "Retry": [dict(_LAMBDA_TRANSIENT_RETRY)],
        "Catch": [dict(catch) for catch in _CATCH_ALL],
        "Next": next_state,
    }


def _tracking_task(
    handlers: HandlerArns, action: str, index: int, next_state: str
) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "action": action,
        "workflowExecutionId.$": "$.workflowExecutionId",
        "pipelineExecutionId.$": f"$.pipelineExecutionIds[{index}]",
    }
    if action == "finish":
        payload["status"] = "SUCCEEDED"
    return _lambda_task(handlers.tracking, payload, next_state)


def _gate_states(
    handlers: HandlerArns, gate: ApprovalGate, index: int, label: str
) -> dict[str, Any]:
    """An approval step's wait on its task token, and where each way of its ending goes."""
    run = _tracking_task(handlers, "gate", index, f"Finish {label}")
    run["Resource"] = LAMBDA_INVOKE_CALLBACK
    run["Parameters"]["Payload"]["taskToken.$"] = "$$.Task.Token"
    run["TimeoutSeconds"] = gate.timeout_seconds
    # the transient Retry stays: a retried open finds the attempt's request and gives it the
    # new task token; the step's own retry policy does not exist (an approval is decided once)
    run["Catch"] = [
        {
            "ErrorEquals": [TASK_TIMEOUT_ERROR, TIMED_OUT_ERROR],
            "ResultPath": "$.error",
            "Next": f"Timed out {label}",
        },
        {
            "ErrorEquals": [REJECTED_ERROR, CANCELLED_ERROR],
            "ResultPath": "$.error",
            "Next": f"Rejected {label}",
        },
        *(dict(catch) for catch in _CATCH_ALL),
    ]
    ends = {}
    for name, status, completion in (
        (f"Timed out {label}", "TIMED_OUT", GATE_TIMED_OUT_STATE),
        (f"Rejected {label}", "FAILED", GATE_REJECTED_STATE),
    ):
        ended = _tracking_task(handlers, "gate-closed", index, completion)
        ended["Parameters"]["Payload"].update({"status": status, "error.$": "$.error"})
        ends[name] = ended
    return {f"Run {label}": run, **ends}


def _retry_loop(
    handlers: HandlerArns, policy: RetryPolicy, index: int, label: str
) -> dict[str, Any]:
    """The states that count the step's attempts, report each retry and wait before it."""
    counter = f"$.attempts.s{index}"
    # delays[n]: whole seconds to wait before attempt n + 1 (a Wait takes whole seconds)
    delays = [math.ceil(policy.delay_before(n + 1)) for n in range(policy.max_attempts)]
    retry_report = _tracking_task(handlers, "retry", index, f"Next attempt {label}")
    retry_report["Parameters"]["Payload"]["error.$"] = "$.error"
    return {
        f"Attempt 1 {label}": {
            "Type": "Pass",
            "Result": {"attempt": 1, "delays": delays},
            "ResultPath": counter,
            "Next": f"Run {label}",
        },
        f"Retry? {label}": {
            "Type": "Choice",
            "Choices": [
                {
                    "Variable": f"{counter}.attempt",
                    "NumericLessThan": policy.max_attempts,
                    "Next": f"Report retry {label}",
                }
            ],
            "Default": ERROR_STATE,
        },
        f"Report retry {label}": retry_report,
        f"Next attempt {label}": {
            "Type": "Pass",
            "Parameters": {
                "attempt.$": f"States.MathAdd({counter}.attempt, 1)",
                "delays.$": f"{counter}.delays",
                "seconds.$": f"States.ArrayGetItem({counter}.delays, {counter}.attempt)",
            },
            "ResultPath": counter,
            "Next": f"Wait {label}",
        },
        f"Wait {label}": {
            "Type": "Wait",
            "SecondsPath": f"{counter}.seconds",
            "Next": f"Run {label}",
        },
    }


def _step_task(
    step: StepDefinition, index: int, next_state: str, on_error: str = ERROR_STATE
) -> dict[str, Any]:
    pipeline_execution_id = f"$.pipelineExecutionIds[{index}]"
    if step.execution_type is ExecutionType.LAMBDA:
        payload: dict[str, Any] = {
            "workflowExecutionId.$": "$.workflowExecutionId",
            "pipelineExecutionId.$": pipeline_execution_id,
            "outputPrefix.$": OUTPUT_PREFIX_PATH,
        }
        resource = LAMBDA_INVOKE
        if step.wait_for_callback:
            resource = LAMBDA_INVOKE_CALLBACK
            payload["taskToken.$"] = "$$.Task.Token"
        parameters: dict[str, Any] = {"FunctionName": step.function_name, "Payload": payload}
    elif step.execution_type is ExecutionType.BATCH:
        resource = BATCH_SUBMIT_JOB_SYNC
        environment = [
            {"Name": "WFX_EXECUTION_ID", "Value.$": "$.workflowExecutionId"},
            {"Name": "WFX_PIPELINE_EXECUTION_ID", "Value.$": pipeline_execution_id},
            {"Name": "WFX_OUTPUT_PREFIX", "Value.$": OUTPUT_PREFIX_PATH},
        ]
        parameters = {
            "JobName.$": pipeline_execution_id,
            "JobQueue": step.job_queue,
            "JobDefinition": step.job_definition,
            "ContainerOverrides": {"Environment": environment},
        }
    else:  # build_state_machine refuses local-only steps before it gets here
        raise ValueError(
            f"{step.pipeline_id}: a {step.execution_type.value} step runs only locally"
        )
    task: dict[str, Any] = {
        "Type": "Task",
        "Resource": resource,
        "Parameters": parameters,
        "ResultPath": None,
    }
    task["Catch"] = [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.error", "Next": on_error}]
    task["Next"] = next_state
    return task


def state_machine_name(
    version: WorkflowVersion, prefix: str = DEFAULT_STATE_MACHINE_PREFIX, hashed: bool = False
) -> str:
    """`<prefix><db>-<wf>-v<N>` in Step Functions' name alphabet (0-9A-Za-z-_), at most 80
    characters; the default prefix gives `wfx-<db>-<wf>-v<N>`.

    A name cut to fit keeps its prefix whole and a hash of the whole key, so two long workflow
    ids stay apart; so does a `hashed` one, for a key whose plain name another key's machine
    holds (`demo/on-aws` and `demo-on/aws` both read `wfx-demo-on-aws`).
    """
    suffix = f"-v{version.version}"
    body = prefix + _NAME_ALPHABET.sub("-", f"{version.database_id}-{version.workflow_id}")
    if not hashed and len(body) + len(suffix) <= MAX_STATE_MACHINE_NAME_LENGTH:
        return body + suffix
    digest = hashlib.sha256(version.workflow_key.encode("utf-8")).hexdigest()[:10]
    room = MAX_STATE_MACHINE_NAME_LENGTH - len(suffix) - len(digest) - 1
    return f"{body[:room]}-{digest}{suffix}"


# -- structural validation ----------------------------------------------------------------------

STATE_TYPES = frozenset({"Task", "Pass", "Choice", "Wait", "Succeed", "Fail", "Parallel", "Map"})
_ENDS_ITSELF = frozenset({"Succeed", "Fail"})


class _DuplicateKeyError(ValueError):
    pass


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _DuplicateKeyError(key)
        seen[key] = value
    return seen


def validate_state_machine(definition: Mapping[str, Any] | str) -> list[str]:
    """The structural problems of an ASL definition (dict, or JSON text); [] when none.

    Checks one StartAt that names a state, state names of at most 80 characters, every Next
    (of a state, a Catch, a Choice) naming a state, every state reachable from StartAt, every
    state able to reach a terminal state (Succeed, Fail, End), and the shape of Tasks, Retry
    and Catch. Given JSON text, a key written twice (two StartAts, two states of one name) is
    a problem too.
    """
    if isinstance(definition, str):
        try:
            definition = json.loads(definition, object_pairs_hook=_refuse_duplicates)
        except _DuplicateKeyError as duplicate:
            return [f"{duplicate.args[0]}: written twice"]
        except ValueError as error:
            return [f"not JSON: {error}"]
    if not isinstance(definition, Mapping):
        return ["the definition must be a JSON object"]
    states = definition.get("States")
    if not isinstance(states, Mapping) or not states:
        return ["States: must be a non-empty object"]
    problems: list[str] = []
    start = definition.get("StartAt")
    if not isinstance(start, str):
        problems.append("StartAt: must name the first state")
    elif start not in states:
        problems.append(f"StartAt: no state named {start!r}")
    edges: dict[str, list[str]] = {}
    terminal: set[str] = set()
    for name, state in states.items():
        if len(name) > MAX_STATE_NAME_LENGTH:
            problems.append(f"{name}: a state name has at most {MAX_STATE_NAME_LENGTH} characters")
        if not isinstance(state, Mapping):
            problems.append(f"{name}: a state must be an object")
            edges[name] = []
            continue
        targets, ends, state_problems = _state_shape(name, state)
        problems.extend(state_problems)
        for target in targets:
            if target not in states:
                problems.append(f"{name}: Next names no state: {target!r}")
        edges[name] = [target for target in targets if target in states]
        if ends:
            terminal.add(name)
    if isinstance(start, str) and start in states:
        reachable = _reachable(edges, [start])
        problems.extend(
            f"{name}: unreachable from StartAt" for name in states if name not in reachable
        )
    reverse: dict[str, list[str]] = {name: [] for name in states}
    for name, targets in edges.items():
        for target in targets:
            reverse[target].append(name)
    can_finish = _reachable(reverse, sorted(terminal))
    problems.extend(
        f"{name}: no path to a terminal state (Succeed, Fail or End)"
        for name in states
        if name not in can_finish
    )
    return problems


def _reachable(edges: Mapping[str, list[str]], roots: list[str]) -> set[str]:
    seen, pending = set(roots), list(roots)
    while pending:
        for target in edges.get(pending.pop(), []):
            if target not in seen:
                seen.add(target)
                pending.append(target)
    return seen


def _state_shape(name: str, state: Mapping[str, Any]) -> tuple[list[str], bool, list[str]]:
    """The states `state` can go to, whether it can end the run, and what is wrong with it."""
    kind = state.get("Type")
    problems: list[str] = []
    targets: list[str] = []
    if kind not in STATE_TYPES:
        return [], False, [f"{name}: Type must be one of {', '.join(sorted(STATE_TYPES))}"]
    has_next, ends = "Next" in state, state.get("End") is True
    if kind in _ENDS_ITSELF:
        if has_next or "End" in state:
            problems.append(f"{name}: a {kind} state takes neither Next nor End")
        ends = True
    elif kind == "Choice":
        choices = state.get("Choices")
        if not isinstance(choices, list) or not choices:
            problems.append(f"{name}: a Choice needs a non-empty Choices list")
            choices = []
        targets.extend(str(c.get("Next")) for c in choices if isinstance(c, Mapping))
        if "Default" in state:
            targets.append(str(state["Default"]))
    elif has_next == ends:
        problems.append(f"{name}: needs exactly one of Next and End: true")
    if has_next and kind not in _ENDS_ITSELF:
        targets.append(str(state["Next"]))
    if kind == "Task":
        problems.extend(_task_problems(name, state))
    for field in ("Retry", "Catch"):
        if field in state:
            field_problems, catch_targets = _error_handlers(name, field, state[field])
            problems.extend(field_problems)
            targets.extend(catch_targets)
    return targets, ends, problems


def _task_problems(name: str, state: Mapping[str, Any]) -> list[str]:
    problems = []
    if not isinstance(state.get("Resource"), str) or not state["Resource"].startswith("arn:"):
        problems.append(f"{name}: a Task needs a Resource ARN")
    if "Parameters" in state and not isinstance(state["Parameters"], Mapping):
        problems.append(f"{name}: Parameters must be an object")
    for field in ("TimeoutSeconds", "HeartbeatSeconds"):
        seconds = state.get(field, 1)
        if isinstance(seconds, bool) or not isinstance(seconds, int):
            problems.append(f"{name}: {field} must be a whole number of seconds")
        elif not 1 <= seconds <= MAX_TIMEOUT_SECONDS:
            problems.append(f"{name}: {field} must be from 1 to {MAX_TIMEOUT_SECONDS}")
    result_path = state.get("ResultPath", "$")
    if result_path is not None and not (
        isinstance(result_path, str) and result_path.startswith("$")
    ):
        problems.append(f"{name}: ResultPath must be a path or null")
    return problems


def _error_handlers(name: str, field: str, handlers: Any) -> tuple[list[str], list[str]]:
    """Problems of a Retry or Catch list, and the states its catchers go to."""
    if not isinstance(handlers, list):
        return [f"{name}: {field} must be a list"], []
    problems, targets = [], []
    for position, handler in enumerate(handlers):
        where = f"{name}: {field}[{position}]"
        if not isinstance(handler, Mapping):
            problems.append(f"{where} must be an object")
            continue
        errors = handler.get("ErrorEquals")
        if not isinstance(errors, list) or not errors:
            problems.append(f"{where}: ErrorEquals must be a non-empty list")
        elif "States.ALL" in errors and (len(errors) > 1 or position != len(handlers) - 1):
            problems.append(f"{where}: States.ALL must be alone, in the last {field} entry")
        if field == "Catch":
            if not isinstance(handler.get("Next"), str):
                problems.append(f"{where}: a catcher needs Next")
            else:
                targets.append(handler["Next"])
        else:
            attempts = handler.get("MaxAttempts", 3)
            if not isinstance(attempts, int) or attempts < 0:
                problems.append(f"{where}: MaxAttempts must be a whole number from 0")
            rate = handler.get("BackoffRate", 2.0)
            if not isinstance(rate, int | float) or rate < 1.0:
                problems.append(f"{where}: BackoffRate must be at least 1.0")
    return problems, targets
