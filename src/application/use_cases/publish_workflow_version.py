"""PublishWorkflowVersion: store a workflow file as a new immutable version (seed 003)."""

from __future__ import annotations

import hashlib
import json
from pathlib import PurePath

from pydantic import BaseModel, ConfigDict

from application.ports.files import HandlerLocator
from application.ports.system import Clock
from application.ports.workflows import WorkflowCatalog, WorkflowDefinitions
from application.workflow_documents import WorkflowDocument, approval_gate, input_file_arity
from domain.errors import ConflictError, InvalidInputError
from domain.redaction import redact, redact_executable
from domain.workflow import RetryPolicy, StepDefinition, WorkflowDefinition, WorkflowVersion

_MAX_ATTEMPTS = 5
# Step fields added after versions were first published: left out of the digest while unset, so
# an unchanged file published before they existed is still recognised as unchanged.
_LATER_FIELDS = (
    "function_name",
    "wait_for_callback",
    "job_queue",
    "job_definition",
    "retry",
    "approval",
    "handler_path",
)


class PublishWorkflowVersionCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    document: WorkflowDocument
    # Who publishes: the owner of the definition when this is its version 1. None: no user is
    # known (an embedding backend that does not say).
    published_by: str | None = None


class PublishResult(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    version: WorkflowVersion
    created: bool
    # steps whose command or handler held a secret, now stored (and run) as [REDACTED]
    warnings: tuple[str, ...] = ()


def _steps(document: WorkflowDocument) -> tuple[StepDefinition, ...]:
    return tuple(
        StepDefinition(
            pipeline_id=step.pipeline_id,
            pipeline_database_id=step.pipeline_database_id or document.database_id,
            execution_type=step.execution_type,
            # wfx stores no secret it can recognise without changing the program, so a step
            # gets its secrets from the environment it inherits (README, "Redaction")
            handler=redact_executable(step.handler) if step.handler else None,
            handler_path=step.handler_path,
            command=tuple(redact_executable(part) for part in step.command)
            if step.command is not None
            else None,
            function_name=step.function_name,
            wait_for_callback=bool(step.wait_for_callback),
            job_queue=step.job_queue,
            job_definition=step.job_definition,
            input_file_arity=input_file_arity(step),
            metadata_inputs=tuple(step.metadata_inputs),
            retry=RetryPolicy(**step.retry.model_dump()) if step.retry is not None else None,
            approval=approval_gate(step),
        )
        for step in document.steps
    )


def _check_handler_paths(steps: tuple[StepDefinition, ...]) -> None:
    """A relative folder means nothing to a worker started elsewhere: only a workflow file gives
    one a base (`wfx workflows publish FILE` makes it absolute before this)."""
    for index, step in enumerate(steps):
        if step.handler_path is not None and not PurePath(step.handler_path).is_absolute():
            raise InvalidInputError(
                f"steps[{index}].handlerPath ({step.pipeline_id}): must be an absolute folder "
                f"here, not {step.handler_path!r} (a relative one is taken from the workflow "
                "file's folder by `wfx workflows publish FILE`)"
            )


def _check_handlers(handlers: HandlerLocator, steps: tuple[StepDefinition, ...]) -> None:
    for index, step in enumerate(steps):
        if step.handler is None:
            continue
        problem = handlers.problem(step.handler, step.handler_path)
        if problem is not None:
            raise InvalidInputError(f"steps[{index}].handler ({step.pipeline_id}): {problem}")


def _secret_warnings(
    document: WorkflowDocument, steps: tuple[StepDefinition, ...]
) -> tuple[str, ...]:
    warnings = []
    for index, (given, stored) in enumerate(zip(document.steps, steps, strict=True)):
        written = tuple(given.command or ())
        where = f"steps[{index}] {stored.pipeline_id}"
        if given.handler != stored.handler or written != tuple(stored.command or ()):
            field = "handler" if given.handler != stored.handler else "command"
            warnings.append(
                f"{where}: its {field} holds a secret, stored and run with [REDACTED] in its "
                "place; give the step the secret through its environment instead"
            )
        elif any(redact(part) != part for part in written):
            warnings.append(
                f"{where}: its command may hold a secret under a key name (NAME=value); it is "
                "stored as written, since it is what runs: give the step the secret through "
                "its environment instead"
            )
    return tuple(warnings)


def _canonical_step(step: StepDefinition) -> dict[str, object]:
    dumped = step.model_dump(mode="json")
    return {
        name: value
        for name, value in dumped.items()
        if not (name in _LATER_FIELDS and value in (None, False))
    }


def _digest(description: str, steps: tuple[StepDefinition, ...]) -> str:
    canonical = json.dumps(
        {"description": description, "steps": [_canonical_step(step) for step in steps]},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


class PublishWorkflowVersion:
    """Publish a new version unless the latest one is identical, which is returned as it is."""

    def __init__(
        self,
        definitions: WorkflowDefinitions,
        catalog: WorkflowCatalog,
        clock: Clock,
        handlers: HandlerLocator | None = None,
    ) -> None:
        self._definitions, self._catalog, self._clock = definitions, catalog, clock
        self._handlers = handlers  # None: handlers are not looked for (no local runner here)

    def execute(self, command: PublishWorkflowVersionCommand) -> PublishResult:
        document = command.document
        steps = _steps(document)
        _check_handler_paths(steps)
        if self._handlers is not None:
            _check_handlers(self._handlers, steps)
        warnings = _secret_warnings(document, steps)
        description = redact(document.description)
        digest = _digest(description, steps)
        for _ in range(_MAX_ATTEMPTS):
            current = self._definitions.find_definition(document.database_id, document.workflow_id)
            if current is not None:
                latest = self._catalog.get_version(
                    current.database_id, current.workflow_id, current.latest_version
                )
                if latest.digest == digest:
                    return PublishResult(version=latest, created=False, warnings=warnings)
            version = WorkflowVersion(
                database_id=document.database_id,
                workflow_id=document.workflow_id,
                version=1 if current is None else current.next_version,
                description=description,
                steps=steps,
                published_at=self._clock.now(),
                digest=digest,
            )
            definition = (
                WorkflowDefinition.first(version, owner=command.published_by)
                if current is None
                else current.published(version)
            )
            # refused when a rival publish took this number first: read again and go on top
            if self._definitions.publish(definition, version):
                return PublishResult(version=version, created=True, warnings=warnings)
        # only under sustained concurrent publishing of one workflow; nothing of it is stored
        raise ConflictError(
            f"{document.database_id}/{document.workflow_id}: could not claim a version number, "
            f"other publishes of this workflow took each of {_MAX_ATTEMPTS} first; try again"
        )
