"""Stopping what the in-flight steps of a run registered (seed 000, sub-process registration)."""

from __future__ import annotations

from collections.abc import Iterable

from application.ports import SubProcessController
from domain.execution import PipelineExecution
from domain.statuses import StepStatus


def stop_sub_processes(
    controller: SubProcessController, steps: Iterable[PipelineExecution]
) -> tuple[str, ...]:
    """Stop every sub-process of each RUNNING step; a warning for each one left running.

    A type the controller cannot stop, or a stop that fails, is a warning and never stops the
    caller: the outer execution must still be stopped and recorded.
    """
    warnings: list[str] = []
    for step in steps:
        if step.status is not StepStatus.RUNNING:
            continue
        for sub in step.registered_sub_executions:
            where = f"step {step.pipeline_id}: {sub.resource_type} {sub.resource_id}"
            try:
                outcome = controller.stop(sub)
            except Exception as error:  # one stuck sub-process must not block the others
                warnings.append(f"{where} could not be stopped: {error}")
                continue
            if outcome != "stopped":
                warnings.append(f"{where} was left running ({outcome})")
    return tuple(warnings)
