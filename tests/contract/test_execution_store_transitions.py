"""ExecutionStore contract: one-write step transitions and the narrower reads of one run."""

from __future__ import annotations

import pytest

from application.ports import ExecutionStore, StepChange
from domain.errors import PipelineExecutionNotFoundError
from domain.execution import StepOutputs
from domain.statuses import StepStatus
from tests.contract.builders import a_launch, at, some_outputs, step_id

NEW = frozenset({StepStatus.NEW})
RUNNING = frozenset({StepStatus.RUNNING})
NOT_TERMINAL = NEW | RUNNING


# -- transition_step -------------------------------------------------------------------------


def test_a_transition_from_an_expected_status_writes_and_returns_the_stored_row(
    execution_store: ExecutionStore,
) -> None:
    records = a_launch("e1", steps=2)
    execution_store.add_launch(records)
    change = StepChange(StepStatus.RUNNING, start_date=at(1))

    returned = execution_store.transition_step("e1", step_id("e1", 1), change, NEW)

    expected = records.steps[1].model_copy(
        update={"status": StepStatus.RUNNING, "start_date": at(1)}
    )
    assert returned == expected
    assert execution_store.get_step(step_id("e1", 1)) == expected
    assert execution_store.get_step(step_id("e1", 0)) == records.steps[0]


def test_a_transition_from_an_unexpected_status_returns_none_and_writes_nothing(
    execution_store: ExecutionStore,
) -> None:
    records = a_launch("e1")
    execution_store.add_launch(records)
    change = StepChange(StepStatus.SUCCEEDED, stop_date=at(2))

    assert execution_store.transition_step("e1", step_id("e1", 0), change, RUNNING) is None
    assert execution_store.get_step(step_id("e1", 0)) == records.steps[0]


def test_a_terminal_step_is_never_transitioned(execution_store: ExecutionStore) -> None:
    execution_store.add_launch(a_launch("e1"))
    sid = step_id("e1", 0)
    execution_store.transition_step("e1", sid, StepChange(StepStatus.RUNNING, at(1)), NEW)
    done = execution_store.transition_step(
        "e1", sid, StepChange(StepStatus.SUCCEEDED, stop_date=at(2)), RUNNING
    )
    abort = StepChange(StepStatus.ABORTED, stop_date=at(3), error="aborted")

    assert execution_store.transition_step("e1", sid, abort, NOT_TERMINAL) is None
    assert execution_store.transition_step("e1", sid, abort, frozenset()) is None
    assert execution_store.get_step(sid) == done


def test_a_transition_leaves_the_fields_it_does_not_carry_untouched(
    execution_store: ExecutionStore,
) -> None:
    execution_store.add_launch(a_launch("e1"))
    sid = step_id("e1", 0)
    execution_store.transition_step("e1", sid, StepChange(StepStatus.RUNNING, at(1)), NEW)

    failed = execution_store.transition_step(
        "e1", sid, StepChange(StepStatus.FAILED, stop_date=at(2), error="exit 3"), RUNNING
    )

    assert failed is not None
    assert (failed.status, failed.start_date, failed.stop_date, failed.error) == (
        StepStatus.FAILED,
        at(1),
        at(2),
        "exit 3",
    )
    assert execution_store.get_step(sid) == failed


def test_transitioning_a_step_of_another_execution_raises_not_found(
    execution_store: ExecutionStore,
) -> None:
    records = a_launch("e1")
    execution_store.add_launch(records)
    execution_store.add_launch(a_launch("e2"))
    change = StepChange(StepStatus.RUNNING, start_date=at(1))

    with pytest.raises(PipelineExecutionNotFoundError, match="e1-step0"):
        execution_store.transition_step("e2", step_id("e1", 0), change, NEW)
    with pytest.raises(PipelineExecutionNotFoundError, match="ghost-step0"):
        execution_store.transition_step("e1", "ghost-step0", change, NEW)
    assert execution_store.get_step(step_id("e1", 0)) == records.steps[0]


# -- get_details without outputs, get_configuration -------------------------------------------


def test_details_without_outputs_have_every_other_record_and_empty_outputs(
    execution_store: ExecutionStore,
) -> None:
    execution_store.add_launch(a_launch("e1", steps=2))
    execution_store.add_step_outputs(some_outputs("e1", 0))
    execution_store.add_step_outputs(some_outputs("e1", 1))
    full = execution_store.get_details("e1")

    narrow = execution_store.get_details("e1", include_outputs=False)

    assert all(step.outputs != StepOutputs() for step in full.steps)
    assert all(step.outputs == StepOutputs() for step in narrow.steps)
    without_outputs = [step.model_copy(update={"outputs": StepOutputs()}) for step in full.steps]
    assert sorted(narrow.steps, key=str) == sorted(without_outputs, key=str)
    assert (narrow.execution, narrow.configuration) == (full.execution, full.configuration)
    assert sorted(narrow.inputs, key=str) == sorted(full.inputs, key=str)


def test_get_configuration_returns_the_launch_configuration(
    execution_store: ExecutionStore,
) -> None:
    written = a_launch("written", output_asset="db1:asset1")
    results = a_launch("results", output_asset=None, inputs=())
    execution_store.add_launch(written)
    execution_store.add_launch(results)

    assert execution_store.get_configuration("written") == written.configuration
    stored = execution_store.get_configuration("results")
    assert stored == results.configuration
    assert stored is not None and stored.output_asset_key is None


def test_get_configuration_of_an_unknown_run_is_none(execution_store: ExecutionStore) -> None:
    execution_store.add_launch(a_launch("e1"))

    assert execution_store.get_configuration("nope") is None
