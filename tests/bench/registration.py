"""Registrations: `RegisterPipelineExecution` deliveries onto one step; details listing them.

A run of the launch workflow is launched on a SQLite file with an orchestrator that starts
nothing; its first step then takes deliveries through the real use case from the container:
- **new**: each delivery carries one log not stored yet, until the cap of 50 — a versioned
  read-merge-write of the step row;
- **redelivery**: the same events again (EventBridge delivers at least once) — read, merge finds
  nothing new;
- **details**: `GetExecutionDetails` of the run with its 50 registered logs, each listed under
  `availableLogs` with its `logId`.
Nothing reaches AWS: no sub-state-machine is registered, so no description is read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from application.use_cases.get_execution_details import GetExecutionDetailsQuery
from application.use_cases.register_pipeline_execution import RegisterPipelineExecutionCommand
from domain.logs import LogKind
from domain.registration import compose_source
from tests.bench.fixtures import bench_container, launched_run
from tests.bench.timing import Samples, time_each

LOG_CAP = 50
SOURCE_PREFIX = "bench"


def _event(execution_id: str, step_id: str, index: int) -> RegisterPipelineExecutionCommand:
    return RegisterPipelineExecutionCommand.model_validate(
        {
            "source": compose_source(SOURCE_PREFIX, execution_id, step_id),
            "detail-type": "pipeline.execution.register",
            "detail": {
                "pipelineExecutionId": step_id,
                "logs": [
                    {
                        "logGroupName": "/bench/pipeline",
                        "logStreamName": f"stream-{index}",
                        "label": f"part {index}",
                    }
                ],
            },
        }
    )


def measure(workdir: Path, redeliveries: int, detail_reads: int) -> dict[str, Any]:
    container = bench_container(workdir, run_steps=False)
    execution_id = launched_run(container, workdir)
    details = container.execution_store().get_details(execution_id, include_outputs=False)
    step_id = details.steps[0].step.pipeline_execution_id
    events = [_event(execution_id, step_id, index) for index in range(LOG_CAP)]
    register = container.register_pipeline_execution()
    pending = iter(events)

    def deliver_new() -> None:
        if not register.execute(next(pending)).accepted:
            raise AssertionError("a well-formed registration was refused")

    new = Samples()
    new.extend(time_each(deliver_new, LOG_CAP))
    again = iter(events * (-(-redeliveries // LOG_CAP)))

    def redeliver() -> None:
        register.execute(next(again))

    repeated = Samples()
    repeated.extend(time_each(redeliver, redeliveries))
    query = GetExecutionDetailsQuery(workflow_execution_id=execution_id)
    details = container.get_execution_details()
    listed = details.execute(query).steps[0].available_logs
    if sum(entry.kind is LogKind.REGISTERED for entry in listed) != LOG_CAP:
        raise AssertionError(f"{len(listed)} logs listed, expected the {LOG_CAP} registered")
    read = Samples()
    read.extend(time_each(lambda: details.execute(query), detail_reads))
    container.sqlite_database().close()
    return {
        "registration_new_ms": round(new.median_ms, 4),
        "registration_redelivery_ms": round(repeated.median_ms, 4),
        "details_with_50_logs_ms": round(read.median_ms, 4),
        "registration_new": new.summary_ms(),
        "registration_redelivery": repeated.summary_ms(),
        "details_with_50_logs": read.summary_ms(),
    }
