"""One SubProcessController over many: each registered type goes to the controller for it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress

from application.ports.sub_executions import ChildController
from domain.execution import PipelineExecution
from domain.logs import RegisteredSubExecution
from domain.redaction import redact
from domain.sub_processes import StopAttempt, StopOutcome

# the most stops of one step made at once; a step's further children wait for one to end
MOST_AT_ONCE = 16


class DispatchingSubProcessController:
    """Routes by resourceType; a type nobody handles is `unsupported`, an error `couldNotStop`.

    Controllers are built on first use from their factories, so an abort that stops only local
    processes never imports boto3.
    """

    def __init__(self, factories: Mapping[str, Callable[[], ChildController]]) -> None:
        self._factories = dict(factories)
        self._built: dict[str, ChildController] = {}

    @property
    def supported_types(self) -> tuple[str, ...]:
        return tuple(self._factories)

    def stop(self, sub_execution: RegisteredSubExecution, step: PipelineExecution) -> StopAttempt:
        return self._call(sub_execution, step, "stop")

    def confirm(
        self, sub_execution: RegisteredSubExecution, step: PipelineExecution
    ) -> StopAttempt:
        return self._call(sub_execution, step, "confirm")

    def stop_each(
        self, sub_executions: Sequence[RegisteredSubExecution], step: PipelineExecution
    ) -> list[StopAttempt]:
        """A stop waits a round trip (AWS) or up to a grace period (a local process that
        outlives SIGTERM): a step's children are stopped on threads of this call's own, not the
        process's read threads, which a stop held for seconds would keep from reads."""
        children = list(sub_executions)
        for kind in dict.fromkeys(child.resource_type for child in children):
            # built in the caller's thread, the stops' threads only use them; one that cannot
            # be built is said by each of its children's stops
            if kind in self._factories:
                with suppress(Exception):
                    self._controller(kind)
        if len(children) < 2:
            return [self.stop(child, step) for child in children]
        pool = ThreadPoolExecutor(min(len(children), MOST_AT_ONCE), "wfx-sub-process-stop")
        try:
            return list(pool.map(lambda child: self.stop(child, step), children))
        finally:  # after a Ctrl-C, the stops not yet begun are not begun
            pool.shutdown(wait=True, cancel_futures=True)

    def _controller(self, kind: str) -> ChildController:
        if kind not in self._built:
            self._built[kind] = self._factories[kind]()
        return self._built[kind]

    def _call(
        self, sub_execution: RegisteredSubExecution, step: PipelineExecution, action: str
    ) -> StopAttempt:
        kind = sub_execution.resource_type
        if kind not in self._factories:
            return StopAttempt(outcome=StopOutcome.UNSUPPORTED, detail=f"wfx cannot stop {kind}")
        try:
            attempt: StopAttempt = getattr(self._controller(kind), action)(sub_execution, step)
        except Exception as error:  # one broken controller must not stop the others
            return StopAttempt(
                outcome=StopOutcome.COULD_NOT_STOP,
                detail=redact(f"{type(error).__name__}: {error}"),
            )
        return attempt
