"""The router asks whether a leased run's runner is lost of the run's own orchestrator when this
process has built it (it knows its own runs: threads, workers it started), and otherwise of what
answers without building it: a read builds no runner."""

from __future__ import annotations

from typing import Any

from application.orchestrator_router import OrchestratorRouter
from application.ports.orchestration import OrchestratorExecution
from domain.execution import WorkflowExecution
from domain.statuses import ExecutionStatus
from tests.contract.builders import an_execution

LOST = OrchestratorExecution(status=ExecutionStatus.FAILED, error="wfx.RunnerLost")


class Answering:
    """An orchestrator, or a liveness check, that says who it is when asked."""

    def __init__(self, name: str, asked: list[str]) -> None:
        self.name, self._asked = name, asked

    def lost_runner(self, execution: WorkflowExecution) -> OrchestratorExecution:
        self._asked.append(self.name)
        return LOST


def _router(asked: list[str], built: list[str]) -> OrchestratorRouter:
    def build(name: str) -> Any:
        built.append(name)
        return Answering(name, asked)

    return OrchestratorRouter(
        "local",
        {"local": lambda: build("local"), "stepfunctions": lambda: build("stepfunctions")},
        liveness={"local": lambda: build("local liveness")},
    )


def _run_on(orchestrator: str) -> WorkflowExecution:
    return an_execution("e1").model_copy(update={"orchestrator": orchestrator})


def test_a_process_that_built_no_local_runner_asks_the_liveness_check() -> None:
    asked: list[str] = []
    built: list[str] = []
    router = _router(asked, built)

    answers = [router.lost_runner(_run_on("local")) for _ in range(2)]

    assert answers == [LOST, LOST]
    assert asked == ["local liveness", "local liveness"]
    assert built == ["local liveness"]  # once, and no runner


def test_a_process_running_local_runs_asks_its_runner() -> None:
    asked: list[str] = []
    built: list[str] = []
    router = _router(asked, built)
    assert router.default.name == "local"  # what a launch or a worker builds

    router.lost_runner(_run_on("local"))

    assert asked == ["local"]
    assert built == ["local"]


def test_an_orchestrator_with_no_liveness_check_is_asked_itself() -> None:
    asked: list[str] = []
    built: list[str] = []

    _router(asked, built).lost_runner(_run_on("stepfunctions"))

    assert asked == ["stepfunctions"]
    assert built == ["stepfunctions"]
