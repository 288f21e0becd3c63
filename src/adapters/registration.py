"""The stored shape of a step's registered lists, and the retry of their optimistic writes."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from adapters.records import Item, build_pipeline_execution_record
from domain.execution import PipelineExecution
from domain.logs import RegisteredLog, RegisteredSubExecution

REGISTRATION_VERSION = "registrationVersion"
MAX_REGISTRATION_ATTEMPTS = 50
_FIRST_JITTER_SECONDS = 0.005
_MAX_JITTER_SECONDS = 0.25

RegistrationMerge = Callable[
    [PipelineExecution], tuple[tuple[RegisteredSubExecution, ...], tuple[RegisteredLog, ...]]
]


class RegistrationContentionError(RuntimeError):
    """Other deliveries kept changing the step's registered lists through every retry."""


def registration_version(item: Item) -> int:
    """The counter guarding a step's registered lists; absent on a row never registered to."""
    return int(item.get(REGISTRATION_VERSION, 0))


def registration_attributes(step: PipelineExecution, merge: RegistrationMerge) -> Item | None:
    """The step's merged registered lists as the record stores them; None when the merge adds
    nothing, so a redelivered event writes nothing and leaves the version where it was.

    Built through the record builder itself, so the lists keep the stored shape (VAMS's). A
    step that has ended takes registrations too: an abort can stop only what is on the row.
    """
    sub_executions, logs = merge(step)
    if sub_executions == step.registered_sub_executions and logs == step.registered_logs:
        return None
    record = build_pipeline_execution_record(
        step.model_copy(
            update={"registered_sub_executions": sub_executions, "registered_logs": logs}
        )
    )
    return {key: record[key] for key in ("registeredSubExecutions", "registeredLogs")}


def pause_before_retry(collisions: int) -> None:
    """Sleep a random while, longer after each collision, so that concurrent deliveries
    spread out instead of colliding again in lockstep."""
    ceiling = min(_MAX_JITTER_SECONDS, _FIRST_JITTER_SECONDS * 2**collisions)
    time.sleep(random.uniform(0, ceiling))
