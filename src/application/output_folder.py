"""Which files in a run's shared output folder are new since the versions already recorded."""

from __future__ import annotations

from application.ports.executions import StepRunStore
from application.ports.files import ObjectStore, StoredObject
from domain.execution import OutputFile, PipelineExecution, output_file_type
from domain.run import Run


def relative_path(obj: StoredObject, prefix: str) -> str:
    return obj.key[len(prefix) :]


def writing_attempt(run: Run, pipeline_execution_id: str) -> int:
    """The attempt whose files a step's outputs are: the running one; else the latest (an
    end-state step's files are recorded once it has ended); 1 for a step that never started."""
    running = run.running_attempt(pipeline_execution_id)
    if running is not None:
        return running.attempt
    return max((a.attempt for a in run.attempts_of(pipeline_execution_id)), default=1)


def unrecorded_outputs(
    store: StepRunStore,
    objects: ObjectStore,
    step: PipelineExecution,
    attempt: int,
    latest: list[StoredObject] | None = None,
) -> list[OutputFile]:
    """Diff the folder's latest versions against every output row of the run: new versions
    only, each as written by `attempt` of the step."""
    prefix = step.output_files_path
    if latest is None:
        latest = objects.list_latest(prefix)
    if not latest:
        return []
    steps = store.list_steps(step.workflow_execution_id)
    recorded = {
        (row.relative_file_path, row.version_id)
        for row in store.list_output_files(s.pipeline_execution_id for s in steps)
    }
    files = []
    for obj in latest:
        relative = relative_path(obj, prefix)
        if (relative, obj.version_id) in recorded:
            continue
        files.append(
            OutputFile(
                pipeline_execution_id=step.pipeline_execution_id,
                workflow_execution_id=step.workflow_execution_id,
                file_type=output_file_type(relative),
                relative_file_path=relative,
                version_id=obj.version_id,
                size=obj.size,
                etag=obj.etag,
                attempt=attempt,
                bucket=objects.bucket,
            )
        )
    return files
