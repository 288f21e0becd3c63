"""The SubProcessController the container wires: one controller per registered resourceType."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from application.ports.sub_executions import ChildController, SubProcessController


def sub_process_controller(
    stepfunctions_client: Callable[[], Any],
    batch_client: Callable[[], Any],
    deadline_client: Callable[[], Any],
    home: str,
    grace_seconds: float,
) -> SubProcessController:
    """VAMS's stepFunctionsExecution, batchJob and deadlineCloudJob, and wfx's localProcess;
    any other type is recorded but `unsupported` (it cannot be stopped)."""
    from adapters.sub_process_dispatch import DispatchingSubProcessController
    from domain.logs import BATCH_JOB, DEADLINE_CLOUD_JOB, LOCAL_PROCESS, STEP_FUNCTIONS_EXECUTION

    def step_functions() -> ChildController:
        from adapters.aws.subprocesses import StepFunctionsSubProcessController

        return StepFunctionsSubProcessController(stepfunctions_client)

    def batch() -> ChildController:
        from adapters.aws.subprocesses import BatchSubProcessController

        return BatchSubProcessController(batch_client)

    def deadline() -> ChildController:
        from adapters.aws.subprocesses import DeadlineSubProcessController

        return DeadlineSubProcessController(deadline_client)

    def local_process() -> ChildController:
        from adapters.local.processes import LocalProcessController

        # the local runner's work directory: where its runs' process records are
        return LocalProcessController(Path(home) / "runs", grace_seconds)

    return DispatchingSubProcessController(
        {
            STEP_FUNCTIONS_EXECUTION: step_functions,
            BATCH_JOB: batch,
            DEADLINE_CLOUD_JOB: deadline,
            LOCAL_PROCESS: local_process,
        }
    )
