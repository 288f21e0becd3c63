"""One Orchestrator over several: a run starts on the configured one, and every later call about
it goes to the one that started it (the main row's `orchestrator`), whatever the configuration
says now — `wfx executions show` on a laptop set up for local runs still reconciles a run that
went to Step Functions."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from domain.approvals import ApprovalRequest
from domain.errors import ConflictError, InvalidInputError
from domain.execution import PipelineExecution, WorkflowExecution
from domain.workflow import WorkflowVersion

if TYPE_CHECKING:  # the port's types annotate only: a list of ended runs asks no orchestrator
    from application.ports.orchestration import (
        Described,
        HistoryPage,
        LaunchClaim,
        Orchestrator,
        OrchestratorExecution,
        RunnerLiveness,
        StateMachineDescription,
        Stopped,
    )
    from domain.run import Run


class OrchestratorRouter:
    """Routes by the run's orchestrator name; the others are built only when a run needs them."""

    def __init__(
        self,
        default: str,
        orchestrators: Mapping[str, Callable[[], Orchestrator]],
        liveness: Mapping[str, Callable[[], RunnerLiveness]] | None = None,
    ) -> None:
        """`liveness`: by orchestrator name, what answers lost_runner without building the
        orchestrator (every read of a leased run asks it: a cold read builds no runner)."""
        if default not in orchestrators:
            raise InvalidInputError(
                f"runner: must be one of {', '.join(sorted(orchestrators))}, got {default!r}"
            )
        self._factories = orchestrators
        self._built: dict[str, Orchestrator] = {}
        self._default_name = default
        self._liveness_factories = liveness or {}
        self._liveness: dict[str, RunnerLiveness] = {}

    # Built on first use: a read that asks no orchestrator builds none (cold start).
    @property
    def name(self) -> str:
        return self.default.name

    @property
    def synchronous(self) -> bool:
        return self.default.synchronous

    @property
    def default(self) -> Orchestrator:
        """Where new runs start (the configured runner)."""
        return self._get(self._default_name)

    def _get(self, name: str) -> Orchestrator:
        if name not in self._built:
            factory = self._factories.get(name)
            if factory is None:
                raise ConflictError(f"the run is on {name!r}, which this wfx cannot reach")
            self._built[name] = factory()
        return self._built[name]

    def _for(self, execution: WorkflowExecution) -> Orchestrator:
        return self._get(execution.orchestrator or self._default_name)

    def start_problem(self, version: WorkflowVersion) -> str | None:
        return self.default.start_problem(version)

    def launch_claim(self) -> LaunchClaim | None:
        return self.default.launch_claim()

    def ended_run(self, workflow_execution_id: str) -> WorkflowExecution | None:
        return self.default.ended_run(workflow_execution_id)

    def start_execution(
        self,
        execution: WorkflowExecution,
        version: WorkflowVersion,
        steps: Sequence[PipelineExecution],
    ) -> str | None:
        return self.default.start_execution(execution, version, steps)

    def describe_execution(self, execution: WorkflowExecution) -> OrchestratorExecution | None:
        return self._for(execution).describe_execution(execution)

    def describe_each(self, executions: Sequence[WorkflowExecution]) -> list[Described]:
        """Each orchestrator is given all of its runs in one call; a run on one this wfx cannot
        reach keeps its ConflictError, as its own describe raises it."""
        from application.ports.orchestration import Described  # a page of open runs only

        by_name: dict[str, list[int]] = {}
        for index, execution in enumerate(executions):
            by_name.setdefault(execution.orchestrator or self._default_name, []).append(index)
        answers: dict[int, Described] = {}
        for name, indexes in by_name.items():
            try:
                orchestrator = self._get(name)
            except ConflictError as error:
                answers.update(dict.fromkeys(indexes, Described(error=error)))
                continue
            described = orchestrator.describe_each([executions[index] for index in indexes])
            answers.update(zip(indexes, described, strict=True))
        return [answers[index] for index in range(len(executions))]

    def lost_runner(self, execution: WorkflowExecution) -> OrchestratorExecution | None:
        name = execution.orchestrator or self._default_name
        if name in self._built or name not in self._liveness_factories:
            return self._get(name).lost_runner(execution)  # it knows its own runs best
        if name not in self._liveness:
            self._liveness[name] = self._liveness_factories[name]()
        return self._liveness[name].lost_runner(execution)

    def stop_execution(self, execution: WorkflowExecution, error: str, cause: str) -> Stopped:
        return self._for(execution).stop_execution(execution, error, cause)

    def redrive_execution(
        self, execution: WorkflowExecution, client_token: str, known: Run | None = None
    ) -> datetime:
        return self._for(execution).redrive_execution(execution, client_token, known)

    def resume_execution(self, execution: WorkflowExecution, approval: ApprovalRequest) -> None:
        self._for(execution).resume_execution(execution, approval)

    def history_page(
        self, execution: WorkflowExecution, next_token: str | None = None, max_results: int = 1000
    ) -> HistoryPage:
        return self._for(execution).history_page(execution, next_token, max_results)

    def describe_state_machine(self, state_machine_arn: str) -> StateMachineDescription | None:
        # A state machine ARN names its service; only Step Functions has state machines.
        if state_machine_arn.startswith("arn:aws:states:") and "stepfunctions" in self._factories:
            return self._get("stepfunctions").describe_state_machine(state_machine_arn)
        return self.default.describe_state_machine(state_machine_arn)
