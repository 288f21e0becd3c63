"""A run's details parse whole only the steps they show; the first read of an orphaned run reads
every step whole once. Counted, not timed: the PipelineExecution records a read builds, each one
step row parsed whole. (The store's part on both stores: tests/contract/test_bounded_details.py;
a wide run on moto would take a minute.)"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from application.detail_collections import MAX_STEPS
from application.use_cases.get_execution_details import GetExecutionDetailsQuery
from domain.execution import ExecutionDetails, PipelineExecution
from domain.statuses import ExecutionStatus
from tests.contract.builders import a_launch, write_launch

WIDE = MAX_STEPS + 20


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The id of each step a read parses whole, in the order it does."""
    seen: list[str] = []
    build = PipelineExecution.__init__

    def counted(self: PipelineExecution, **fields: Any) -> None:
        build(self, **fields)
        seen.append(self.pipeline_execution_id)

    monkeypatch.setattr(PipelineExecution, "__init__", counted)
    yield seen


def details(container: Any, run: str) -> ExecutionDetails:
    query = GetExecutionDetailsQuery(workflow_execution_id=run)
    found: ExecutionDetails = container.get_execution_details().execute(query)
    return found


@pytest.mark.parametrize("inline_container", ["sqlite"], indirect=True)
def test_details_parse_whole_only_the_steps_they_show_and_count_every_step(
    inline_container: Any, parsed: list[str]
) -> None:
    store = inline_container.execution_store()
    launch = a_launch("wide", steps=WIDE)
    write_launch(store, launch)
    details(inline_container, "wide")  # the first read ends the orphaned run
    parsed.clear()

    shown = details(inline_container, "wide")

    assert len(parsed) == MAX_STEPS
    assert [entry.step.pipeline_execution_id for entry in shown.steps] == [
        step.pipeline_execution_id for step in launch.steps[:MAX_STEPS]
    ]
    (cut,) = shown.truncated_collections
    assert (cut.collection, cut.returned, cut.total) == ("pipelineExecutions", MAX_STEPS, WIDE)


@pytest.mark.parametrize(
    ("inline_container", "steps"),
    [("sqlite", WIDE), ("sqlite", 5), ("dynamodb", 5)],
    indirect=["inline_container"],
)
def test_the_first_read_of_an_orphaned_run_parses_each_step_whole_once_and_those_shown_again(
    inline_container: Any, steps: int, parsed: list[str]
) -> None:
    """The lease check's end reads the run once (its steps, to stop what they registered and to
    close them); the details before and after it only the steps they show."""
    write_launch(inline_container.execution_store(), a_launch("lost", steps=steps))
    parsed.clear()

    ended = details(inline_container, "lost")

    assert ended.execution.status is ExecutionStatus.FAILED
    assert ended.execution.execution_error is not None
    assert ended.execution.execution_error.startswith("wfx.RunnerLost")
    assert len(parsed) == steps + 2 * min(steps, MAX_STEPS)
