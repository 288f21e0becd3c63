"""One SubProcessController over many: each registered type goes to the controller for it."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from application.ports.sub_executions import SubProcessController
from domain.execution import PipelineExecution
from domain.logs import RegisteredSubExecution
from domain.redaction import redact
from domain.sub_processes import StopAttempt, StopOutcome


class DispatchingSubProcessController:
    """Routes by resourceType; a type nobody handles is `unsupported`, an error `couldNotStop`.

    Controllers are built on first use from their factories, so an abort that stops only local
    processes never imports boto3.
    """

    def __init__(self, factories: Mapping[str, Callable[[], SubProcessController]]) -> None:
        self._factories = dict(factories)
        self._built: dict[str, SubProcessController] = {}

    @property
    def supported_types(self) -> tuple[str, ...]:
        return tuple(self._factories)

    def stop(self, sub_execution: RegisteredSubExecution, step: PipelineExecution) -> StopAttempt:
        return self._call(sub_execution, step, "stop")

    def confirm(
        self, sub_execution: RegisteredSubExecution, step: PipelineExecution
    ) -> StopAttempt:
        return self._call(sub_execution, step, "confirm")

    def _call(
        self, sub_execution: RegisteredSubExecution, step: PipelineExecution, action: str
    ) -> StopAttempt:
        kind = sub_execution.resource_type
        if kind not in self._factories:
            return StopAttempt(outcome=StopOutcome.UNSUPPORTED, detail=f"wfx cannot stop {kind}")
        try:
            if kind not in self._built:
                self._built[kind] = self._factories[kind]()
            controller = self._built[kind]
            attempt: StopAttempt = getattr(controller, action)(sub_execution, step)
        except Exception as error:  # one broken controller must not stop the others
            return StopAttempt(
                outcome=StopOutcome.COULD_NOT_STOP,
                detail=redact(f"{type(error).__name__}: {error}"),
            )
        return attempt
