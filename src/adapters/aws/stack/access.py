"""What each deployed Lambda function may touch: the one declaration its IAM role is built from.

A function's stores and capabilities are what the use cases it calls reach in the container;
tests/unit/test_stack_access.py walks the container from each handler and holds it to this map,
so a use case that starts using another store fails that test until its role follows.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from adapters.tables import NOT_RUN_TABLES, TABLES, ResourceKeys
from domain.assets import asset_root_key
from domain.execution import execution_object_prefix


class Store(StrEnum):
    """A storage port's DynamoDB tables."""

    EXECUTIONS = "executions"
    WORKFLOWS = "workflows"
    ASSETS = "assets"
    AUTHORIZATION = "authorization"
    COSTS = "costs"


class Capability(StrEnum):
    """Calls to AWS beyond the tables, each one IAM statement (see roles.py)."""

    # the bucket: read the asset files' versions, read and write the runs' objects
    OBJECTS = "objects"
    WRITE_ASSET_FILES = "writeAssetFiles"  # new versions of asset files: results, imports
    DELETE_OBJECTS = "deleteObjects"  # a permanent delete removes a run's objects (alone)
    ORCHESTRATE = "orchestrate"  # start, describe, stop, redrive wfx's state machines' runs
    # answer the task token an approval step of wfx's state machines waits on
    ANSWER_TASKS = "answerTasks"
    STOP_SUB_PROCESSES = "stopSubProcesses"  # registered Step Functions, Batch, Deadline jobs
    READ_SUB_EXECUTIONS = "readSubExecutions"  # describe registered state machines and jobs
    READ_LOGS = "readLogs"  # CloudWatch log groups the run and its pipelines registered
    # a finished run's own log: its state machine's logging destination, then that group's events
    READ_RUN_LOGS = "readRunLogs"


STORE_TABLES: dict[Store, tuple[ResourceKeys, ...]] = {
    # every table holding a run's rows; NOT_RUN_TABLES hold none (the earlier table is read by
    # the migration alone, which an operator runs with their own credentials). The cost ledger
    # holds a run's rows too, but is a port of its own: only what records or reads costs gets it
    # (the HTTP function, which deletes runs, has every store).
    Store.EXECUTIONS: tuple(
        spec.key
        for spec in TABLES
        if spec.key not in NOT_RUN_TABLES and spec.key is not ResourceKeys.COST_LEDGER
    ),
    Store.WORKFLOWS: (
        ResourceKeys.WORKFLOW_DEFINITIONS,
        ResourceKeys.WORKFLOW_VERSIONS,
        ResourceKeys.STEP_DEFINITIONS,
    ),
    Store.ASSETS: (ResourceKeys.ASSET_FILES,),
    Store.AUTHORIZATION: (ResourceKeys.AUTHORIZATION,),
    Store.COSTS: (ResourceKeys.COST_LEDGER,),
}


def _top_folder(key: str) -> str:
    return key.split("/", 1)[0] + "/"


# The object store's key prefixes, from the domain functions that compose the keys.
ASSET_PREFIX = _top_folder(asset_root_key("database", "asset"))
RUN_PREFIX = _top_folder(execution_object_prefix("execution"))
OBJECT_PREFIXES: tuple[str, ...] = (ASSET_PREFIX, RUN_PREFIX)


@dataclass(frozen=True)
class FunctionAccess:
    """One Lambda function: its handler, what it is for, and everything its role allows."""

    name: str  # the logical id stem: `Tracking` -> TrackingFunction, TrackingRole, ...
    handler: str  # module.function inside the package
    description: str
    stores: frozenset[Store]
    capabilities: frozenset[Capability]
    timeout_seconds: int = 60
    memory_mb: int = 512
    # stores it reads and never writes: their tables get the read actions alone
    reads_only: frozenset[Store] = frozenset()

    @property
    def tables(self) -> tuple[ResourceKeys, ...]:
        return tuple(key for store in sorted(self.stores) for key in STORE_TABLES[store])


_STEP_STORES = frozenset({Store.EXECUTIONS, Store.COSTS})  # a closed attempt, reported usage
_STOPS = frozenset({Capability.STOP_SUB_PROCESSES})

HTTP_API = FunctionAccess(
    "HttpApi",
    "entrypoints.http.lambda_handler",
    "wfx HTTP API (behind API Gateway's JWT authorizer)",
    frozenset(Store),
    # no route records a run's results nor imports asset files (the CLI's `assets import`)
    frozenset(Capability) - {Capability.WRITE_ASSET_FILES},
    timeout_seconds=30,  # API Gateway's own integration limit
    memory_mb=1024,
)
TRACKING = FunctionAccess(
    "Tracking",
    "entrypoints.lambda_handlers.track_step",
    "wfx step tracking: a step starts, finishes or is retried, or waits at an approval gate",
    # an approval step's gate is read from its workflow version
    _STEP_STORES | {Store.WORKFLOWS},
    # a task that reaches a gate decided already is answered at once
    frozenset({Capability.OBJECTS, Capability.ANSWER_TASKS}),
    reads_only=frozenset({Store.WORKFLOWS}),
)
# a run's end closes the attempts still open, and records their durations
_END_STORES = frozenset({Store.EXECUTIONS, Store.ASSETS, Store.COSTS})

# a run's end records its results as new versions of the output asset's files
_END_CAPABILITIES = frozenset(
    {Capability.OBJECTS, Capability.WRITE_ASSET_FILES, Capability.READ_RUN_LOGS}
)

COMPLETION = FunctionAccess(
    "Completion",
    "entrypoints.lambda_handlers.complete_execution",
    "wfx completion: the run's outputs, results and terminal status",
    _END_STORES,
    _END_CAPABILITIES,
    timeout_seconds=300,
)
ERROR = FunctionAccess(
    "Error",
    "entrypoints.lambda_handlers.handle_execution_error",
    "wfx error handler: the run ends FAILED, its steps' sub-processes are stopped",
    _END_STORES,
    _END_CAPABILITIES | _STOPS,
    timeout_seconds=300,
)
REGISTRATION = FunctionAccess(
    "Registration",
    "entrypoints.lambda_handlers.register_pipeline_execution",
    "wfx registration: a pipeline's sub-executions and log locations",
    _STEP_STORES,
    # a step row grown past its item budget moves its registered lists to the bucket
    frozenset({Capability.OBJECTS}) | _STOPS,
)
FUNCTIONS: tuple[FunctionAccess, ...] = (HTTP_API, TRACKING, COMPLETION, ERROR, REGISTRATION)
# What the state machine calls (see application/state_machines.py and WFX_LAMBDA_*_ARN).
STATE_MACHINE_FUNCTIONS: tuple[FunctionAccess, ...] = (TRACKING, COMPLETION, ERROR)
