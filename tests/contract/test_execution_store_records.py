"""ExecutionStore contract: the launch, the reads of one run, conditional saves and step outputs."""

from __future__ import annotations

from datetime import timedelta

import pytest

from application.ports.executions import AssetDirection, ExecutionRef, ExecutionStore, ListScope
from domain.errors import (
    ExecutionAlreadyExistsError,
    ExecutionNotFoundError,
    PipelineExecutionNotFoundError,
)
from domain.execution import LaunchRecords, RunnerLease, StepDetails, StepOutputs, WorkflowExecution
from domain.logs import RegisteredLog
from domain.run import RunChange, RunGuard
from domain.statuses import TERMINAL_STATUSES, ExecutionStatus, StepStatus
from tests.contract.builders import (
    a_launch,
    a_step,
    at,
    some_outputs,
    step_id,
    step_row_saved,
    write_change,
    write_launch,
)

NOT_TERMINAL = frozenset(s for s in ExecutionStatus if s not in TERMINAL_STATUSES)
TWO_FILES = (("db1:asset1", "a.obj"), ("db1:asset1", "b.obj"), ("db2:asset9", "c.obj"))


def launched(store: ExecutionStore, records: LaunchRecords) -> LaunchRecords:
    write_launch(store, records)
    return records


def by_step(details: tuple[StepDetails, ...]) -> dict[str, StepDetails]:
    return {step.step.pipeline_execution_id: step for step in details}


# -- launch ----------------------------------------------------------------------------------


def test_a_launch_writes_every_record_of_the_run(execution_store: ExecutionStore) -> None:
    records = launched(execution_store, a_launch("e1", group="g1", inputs=TWO_FILES, steps=3))

    details = execution_store.get_details("e1")

    assert details.execution == records.execution
    assert details.configuration == records.configuration
    assert sorted(details.inputs, key=str) == sorted(records.inputs, key=str)
    steps = by_step(details.steps)
    assert sorted(steps) == sorted(step.pipeline_execution_id for step in records.steps)
    for step, configuration in zip(records.steps, records.step_configurations, strict=True):
        stored = steps[step.pipeline_execution_id]
        assert stored.step == step
        assert stored.configuration == configuration
        expected_metadata = [
            m
            for m in records.step_metadata
            if m.pipeline_execution_id == step.pipeline_execution_id
        ]
        assert sorted(stored.input_metadata, key=str) == sorted(expected_metadata, key=str)
        assert stored.outputs == StepOutputs()


def test_a_duplicate_launch_raises_and_writes_nothing(execution_store: ExecutionStore) -> None:
    first = launched(execution_store, a_launch("e1", steps=2))
    before = execution_store.get_details("e1")
    again = a_launch("e1", steps=3, group="g9", start=at(5), inputs=TWO_FILES)

    with pytest.raises(ExecutionAlreadyExistsError, match="e1"):
        write_launch(execution_store, again)

    assert execution_store.get_details("e1") == before
    assert execution_store.get_execution("e1") == first.execution
    with pytest.raises(PipelineExecutionNotFoundError):
        execution_store.get_step(step_id("e1", 2))
    group = execution_store.list_executions(ListScope.GROUP, "g9", 10, None)
    assert group.items == ()


def test_a_launch_larger_than_one_transaction_writes_everything_once(
    execution_store: ExecutionStore,
) -> None:
    # 1 + 60 inputs + 1 + 2 steps + 2 configurations + 120 metadata rows: over DynamoDB's
    # 100-action transaction, so that adapter takes its batched path.
    many = tuple(("db1:asset1", f"part{n:03}.obj") for n in range(60))
    records = launched(execution_store, a_launch("big", inputs=many, steps=2))

    with pytest.raises(ExecutionAlreadyExistsError, match="big"):
        write_launch(execution_store, a_launch("big", inputs=many[:5], steps=3, start=at(7)))

    details = execution_store.get_details("big")
    assert details.execution == records.execution
    assert sorted(details.inputs, key=str) == sorted(records.inputs, key=str)
    assert sorted(s.step.pipeline_execution_id for s in details.steps) == [
        step_id("big", 0),
        step_id("big", 1),
    ]
    assert sum(len(s.input_metadata) for s in details.steps) == len(records.step_metadata)


def test_reading_an_unknown_run_raises_not_found(execution_store: ExecutionStore) -> None:
    launched(execution_store, a_launch("e1"))

    with pytest.raises(ExecutionNotFoundError, match="nope"):
        execution_store.get_execution("nope")
    with pytest.raises(ExecutionNotFoundError, match="nope"):
        execution_store.get_details("nope")
    with pytest.raises(PipelineExecutionNotFoundError, match="nope-step0"):
        execution_store.get_step("nope-step0")


def test_get_step_returns_the_stored_step(execution_store: ExecutionStore) -> None:
    records = launched(execution_store, a_launch("e1", steps=2))

    assert execution_store.get_step(step_id("e1", 1)) == records.steps[1]


def test_list_steps_returns_the_steps_of_that_run_only(execution_store: ExecutionStore) -> None:
    records = launched(execution_store, a_launch("e1", steps=3))
    launched(execution_store, a_launch("e2", steps=2))

    steps = execution_store.list_steps("e1")

    assert sorted(steps, key=lambda s: s.step_index) == list(records.steps)
    assert execution_store.list_steps("unknown") == []


def test_get_executions_returns_the_refs_in_order_and_skips_missing_ones(
    execution_store: ExecutionStore,
) -> None:
    one = launched(execution_store, a_launch("e1", start=at(1))).execution
    two = launched(execution_store, a_launch("e2", start=at(2))).execution
    refs = [
        ExecutionRef("2024-03-04T09:32:00.000000Z", "e2", "db1:wf1"),
        ExecutionRef("2024-03-04T09:31:30.000000Z", "gone", "db1:wf1"),
        ExecutionRef("2024-03-04T09:31:00.000000Z", "e1", "db1:wf1"),
    ]

    assert execution_store.get_executions(refs) == [two, one]
    assert execution_store.get_executions(list(reversed(refs))) == [one, two]
    assert execution_store.get_executions([]) == []


# -- sparse keys -----------------------------------------------------------------------------


def test_a_run_without_a_group_has_none_and_no_group_lists_it(
    execution_store: ExecutionStore,
) -> None:
    launched(execution_store, a_launch("grouped", group="g1"))
    launched(execution_store, a_launch("alone", group=None))

    assert execution_store.get_execution("alone").execution_group_id is None
    grouped = execution_store.list_executions(ListScope.GROUP, "g1", 10, None)
    assert [e.workflow_execution_id for e in grouped.items] == ["grouped"]
    everything = execution_store.list_executions(ListScope.ALL, None, 10, None)
    assert {e.workflow_execution_id for e in everything.items} == {"grouped", "alone"}


def test_a_results_only_run_has_no_output_asset_link(execution_store: ExecutionStore) -> None:
    launched(execution_store, a_launch("results", output_asset=None, inputs=()))
    launched(execution_store, a_launch("written", output_asset="db1:asset1"))

    details = execution_store.get_details("results")

    assert details.configuration is not None
    assert details.configuration.output_asset_key is None
    assert details.inputs == ()
    refs = execution_store.asset_execution_refs("db1:asset1", AssetDirection.OUTPUT, None, 10)
    assert [ref.workflow_execution_id for ref in refs] == ["written"]


def test_a_root_step_has_no_predecessor(execution_store: ExecutionStore) -> None:
    launched(execution_store, a_launch("e1", steps=2))

    assert execution_store.get_step(step_id("e1", 0)).from_pipeline_execution_id is None
    assert execution_store.get_step(step_id("e1", 1)).from_pipeline_execution_id == step_id("e1", 0)


# -- conditional updates of the main row ---------------------------------------------------


def update(
    store: ExecutionStore,
    before: WorkflowExecution,
    after: WorkflowExecution,
    guard: RunGuard | None = None,
) -> WorkflowExecution | None:
    return write_change(store, RunChange(before, after, guard or RunGuard()))


def test_an_update_applies_when_the_guard_holds(execution_store: ExecutionStore) -> None:
    running = launched(execution_store, a_launch("e1")).execution
    finished = running.complete(ExecutionStatus.FAILED, at(9), log="the log", error="boom")

    assert update(execution_store, running, finished) == finished
    assert execution_store.get_execution("e1") == finished


def test_an_update_with_an_unexpected_status_returns_none_and_changes_nothing(
    execution_store: ExecutionStore,
) -> None:
    running = launched(execution_store, a_launch("e1")).execution
    finished = running.complete(ExecutionStatus.SUCCEEDED, at(9), log="the log", error=None)
    guard = RunGuard(statuses=frozenset({ExecutionStatus.NEW}))

    assert update(execution_store, running, finished, guard) is None
    assert execution_store.get_execution("e1") == running


def test_a_terminal_execution_is_never_changed(execution_store: ExecutionStore) -> None:
    running = launched(execution_store, a_launch("e1")).execution
    succeeded = running.complete(ExecutionStatus.SUCCEEDED, at(9), log="ok", error=None)
    update(execution_store, running, succeeded)
    aborted = running._evolve(status=ExecutionStatus.ABORTED)

    assert update(execution_store, running, aborted) is None
    assert execution_store.get_execution("e1") == succeeded


def test_an_update_removes_attributes_that_lost_their_value(
    execution_store: ExecutionStore,
) -> None:
    running = launched(execution_store, a_launch("e1")).execution
    synced = running._evolve(redrive_status="REDRIVABLE", execution_error="boom", redrive_count=2)
    update(execution_store, running, synced)

    assert update(execution_store, synced, running) == running
    assert execution_store.get_execution("e1") == running


def test_an_update_writes_only_what_it_changes(execution_store: ExecutionStore) -> None:
    """Two writers, each from its own read: the attributes one did not change stay the other's."""
    running = launched(execution_store, a_launch("e1")).execution
    arn = "arn:aws:states:us-east-1:1:execution:sm:e1"
    update(execution_store, running, running._evolve(execution_arn=arn))
    checked = running._evolve(last_sfn_sync_check_date=at(4))

    assert update(execution_store, running, checked) is not None

    stored = execution_store.get_execution("e1")
    assert (stored.execution_arn, stored.last_sfn_sync_check_date) == (arn, at(4))


def test_an_update_writes_only_the_status_attributes(execution_store: ExecutionStore) -> None:
    running = launched(execution_store, a_launch("e1", group="g1")).execution
    tampered = running._evolve(
        triggered_by_user_id="mallory", execution_group_id=None, redrive_count=1
    )

    assert update(execution_store, running, tampered) is not None
    stored = execution_store.get_execution("e1")
    assert stored.triggered_by_user_id == "alice"
    assert stored.execution_group_id == "g1"
    assert stored.redrive_count == 1


def test_updating_an_unknown_execution_raises_not_found(execution_store: ExecutionStore) -> None:
    ghost = a_launch("ghost").execution

    with pytest.raises(ExecutionNotFoundError, match="ghost"):
        update(execution_store, ghost, ghost._evolve(redrive_count=1))


def test_an_abort_request_is_kept_and_turns_down_a_guard_that_wants_none(
    execution_store: ExecutionStore,
) -> None:
    running = launched(execution_store, a_launch("e1")).execution
    requested = running._evolve(abort_requested_date=at(3), abort_cause="stop")
    assert update(execution_store, running, requested) == requested
    succeeded = running.complete(ExecutionStatus.SUCCEEDED, at(9), log="ok", error=None)

    # a completion decided on a read from before the request must not write SUCCEEDED
    assert update(execution_store, running, succeeded, RunGuard(not_stopping=True)) is None
    # one that does not care about the request is written, and leaves the request in place
    assert update(execution_store, running, succeeded) is not None
    assert execution_store.get_execution("e1").abort_requested_date == at(3)


def test_a_finishing_mark_is_kept_and_turns_down_an_abort_request_decided_without_it(
    execution_store: ExecutionStore,
) -> None:
    running = launched(execution_store, a_launch("e1")).execution
    finishing = running._evolve(finishing_date=at(3))
    assert update(execution_store, running, finishing, RunGuard(not_stopping=True)) == finishing
    requested = running._evolve(abort_requested_date=at(4), abort_cause="stop")

    # an abort request decided on a read from before the mark must not be written
    assert update(execution_store, running, requested, RunGuard(not_finishing=True)) is None
    stored = execution_store.get_execution("e1")
    assert (stored.finishing_date, stored.abort_requested_date) == (at(3), None)
    # the run ends as the completion ends it, the mark kept on the ended row
    succeeded = finishing.complete(ExecutionStatus.SUCCEEDED, at(9), log="ok", error=None)
    assert update(execution_store, finishing, succeeded, RunGuard(not_stopping=True)) is not None
    assert execution_store.get_execution("e1").finishing_date == at(3)


def lease(owner: str, renewed: int, seconds: int = 30) -> RunnerLease:
    return RunnerLease(
        owner=owner, renewed_date=at(renewed), expires_date=at(renewed) + timedelta(seconds=seconds)
    )


def test_a_lease_is_taken_when_free_or_expired_and_not_from_a_live_owner(
    execution_store: ExecutionStore,
) -> None:
    running = launched(execution_store, a_launch("e1")).execution
    taken = running._evolve(runner_lease=lease("a", 0))
    assert update(execution_store, running, taken, RunGuard(lease_takeable=("a", at(0)))) == taken

    by_b = running._evolve(runner_lease=lease("b", 0))
    before_expiry = RunGuard(lease_takeable=("b", at(0) + timedelta(seconds=10)))
    after_expiry = RunGuard(lease_takeable=("b", at(1)))
    assert update(execution_store, taken, by_b, before_expiry) is None
    assert update(execution_store, taken, by_b, after_expiry) == by_b
    again_by_b = by_b._evolve(runner_lease=lease("b", 2))
    assert update(execution_store, by_b, again_by_b, RunGuard(lease_takeable=("b", at(2))))


def test_a_lease_is_renewed_only_by_its_holder(execution_store: ExecutionStore) -> None:
    running = launched(execution_store, a_launch("e1")).execution
    held = running._evolve(runner_lease=lease("a", 0))
    update(execution_store, running, held)
    renewal = held._evolve(runner_lease=lease("a", 1))

    assert update(execution_store, held, renewal, RunGuard(lease_held_by="b")) is None
    assert update(execution_store, held, renewal, RunGuard(lease_held_by="a")) == renewal


def test_a_lease_guard_as_read_fails_once_the_lease_was_renewed(
    execution_store: ExecutionStore,
) -> None:
    running = launched(execution_store, a_launch("e1")).execution
    held = running._evolve(runner_lease=lease("a", 0))
    update(execution_store, running, held)
    lost = held.complete(ExecutionStatus.FAILED, at(5), log="", error="wfx.RunnerLost")
    update(execution_store, held, held._evolve(runner_lease=lease("a", 1)))  # it lives after all

    assert update(execution_store, held, lost, RunGuard(lease_as_read=True)) is None
    no_lease_read = update(execution_store, running, lost, RunGuard(lease_as_read=True))
    assert no_lease_read is None  # read without a lease, stored with one
    renewed = execution_store.get_execution("e1")
    ended = update(execution_store, renewed, lost, RunGuard(lease_as_read=True))
    assert ended is not None and ended.runner_lease is None


# -- conditional saves of a step -------------------------------------------------------------


def test_a_step_advances_from_new_to_running_to_terminal(execution_store: ExecutionStore) -> None:
    step = launched(execution_store, a_launch("e1")).steps[0]
    running = step.model_copy(update={"status": StepStatus.RUNNING, "start_date": at(1)})
    failed = running.model_copy(
        update={"status": StepStatus.FAILED, "stop_date": at(2), "error": "exit 3"}
    )

    assert step_row_saved(execution_store, running, frozenset({StepStatus.NEW})) is True
    assert execution_store.get_step(step.pipeline_execution_id) == running
    assert step_row_saved(execution_store, failed, frozenset({StepStatus.RUNNING})) is True
    assert execution_store.get_step(step.pipeline_execution_id) == failed


def test_a_terminal_step_is_never_changed(execution_store: ExecutionStore) -> None:
    step = launched(execution_store, a_launch("e1")).steps[0]
    done = step.model_copy(
        update={"status": StepStatus.SUCCEEDED, "start_date": at(1), "stop_date": at(2)}
    )
    step_row_saved(execution_store, done, frozenset({StepStatus.NEW}))
    aborted = step.model_copy(update={"status": StepStatus.ABORTED, "stop_date": at(3)})

    saved = step_row_saved(
        execution_store, aborted, frozenset({StepStatus.NEW, StepStatus.RUNNING})
    )

    assert saved is False
    assert execution_store.get_step(step.pipeline_execution_id) == done


def test_a_step_save_leaves_registered_resources_alone(execution_store: ExecutionStore) -> None:
    step = launched(execution_store, a_launch("e1")).steps[0]
    other_writer = RegisteredLog(log_group_name="/wfx/steps", log_stream_name="s1")
    running = step.model_copy(
        update={"status": StepStatus.RUNNING, "registered_logs": (other_writer,)}
    )

    assert step_row_saved(execution_store, running, frozenset({StepStatus.NEW})) is True
    stored = execution_store.get_step(step.pipeline_execution_id)
    assert stored.status is StepStatus.RUNNING
    assert stored.registered_logs == ()


def test_saving_an_unknown_step_raises_not_found(execution_store: ExecutionStore) -> None:
    launched(execution_store, a_launch("e1"))
    ghost = a_step("e1", 7)

    with pytest.raises(PipelineExecutionNotFoundError, match=ghost.pipeline_execution_id):
        step_row_saved(execution_store, ghost, frozenset({StepStatus.NEW}))


# -- step outputs ----------------------------------------------------------------------------


def test_outputs_are_read_back_with_their_step(execution_store: ExecutionStore) -> None:
    launched(execution_store, a_launch("e1", steps=2))
    outputs = some_outputs("e1", 1)

    execution_store.add_step_outputs(outputs)

    steps = by_step(execution_store.get_details("e1").steps)
    assert steps[step_id("e1", 1)].outputs == outputs
    assert steps[step_id("e1", 0)].outputs == StepOutputs()


def test_writing_the_same_outputs_twice_leaves_one_row_each(
    execution_store: ExecutionStore,
) -> None:
    launched(execution_store, a_launch("e1"))
    first = some_outputs("e1", 0, version="v1")
    execution_store.add_step_outputs(first)
    latest = some_outputs("e1", 0, version="v2")

    execution_store.add_step_outputs(latest)

    outputs = by_step(execution_store.get_details("e1").steps)[step_id("e1", 0)].outputs
    # an artifact's key is written once: the same attempt's path keeps its first record
    assert outputs == latest.model_copy(update={"artifacts": first.artifacts})
    assert execution_store.list_output_files([step_id("e1", 0)]) == list(latest.files)


def test_list_output_files_covers_the_named_steps_only(execution_store: ExecutionStore) -> None:
    launched(execution_store, a_launch("e1", steps=3))
    launched(execution_store, a_launch("e2"))
    for execution_id, index in (("e1", 0), ("e1", 2), ("e2", 0)):
        execution_store.add_step_outputs(some_outputs(execution_id, index))

    files = execution_store.list_output_files(
        [step_id("e1", 0), step_id("e1", 1), step_id("e1", 2)]
    )

    assert sorted(f.pipeline_execution_id for f in files) == [step_id("e1", 0), step_id("e1", 2)]
    assert execution_store.list_output_files([]) == []
