"""Records the domain derives without validation (domain.derived) are what validation would make
of the same fields: each fast-built value equals its own fields validated again, and the rules
the builders check themselves (an aware date, a whole-second table date, attempt >= 1) hold."""

from __future__ import annotations

from dataclasses import asdict, fields, replace
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from types import SimpleNamespace
from typing import Any, TypeVar

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from adapters.system import SystemClock, UuidGenerator
from application.cost_entries import (
    RunCostContext,
    Usage,
    build_entry,
    duration_entry,
    seconds_between,
)
from application.use_cases.launch_execution import LaunchExecution, LaunchExecutionCommand
from application.use_cases.record_cost import duration_entry_id
from domain.attempts import AttemptTrigger, TaskExecution
from domain.costs import CostLedgerEntry, CostSource, Rate, RateCard
from domain.derived import derived
from domain.events import NewEvent, change_events, launch_events, move_events
from domain.execution import PipelineExecution, WorkflowExecution
from domain.run import (
    Run,
    RunChange,
    RunGuard,
    StepMove,
    as_its_runner_knows,
    first_start,
    plain_finish,
)
from domain.run_write import RunWrite
from domain.statuses import ExecutionStatus, StepStatus
from domain.triggers import TriggerType
from domain.workflow import ExecutionType, InputFileArity
from tests.contract.builders import a_version
from tests.contract.test_launch_writes import NoAssets, Orchestrator

START = datetime(2026, 12, 4, 1, 0, tzinfo=UTC)
RUN_ID = "0" * 32

_Written = TypeVar("_Written", NewEvent, TaskExecution, CostLedgerEntry)

moments = st.datetimes(
    min_value=datetime(2020, 1, 1),
    max_value=datetime(2040, 1, 1),
    timezones=st.sampled_from([UTC, timezone(timedelta(hours=5, minutes=30))]),
)


def as_validated(record: BaseModel) -> BaseModel:
    """The record's own fields through validation: what the slow path would have built."""
    return type(record).model_validate(dict(record.__dict__))


def as_validated_record(record: _Written) -> _Written:
    """A written record's own fields (an event, an attempt, a cost entry) through the
    validation of its annotations."""
    kind = type(record)
    if kind not in _VALIDATIONS:
        _VALIDATIONS[kind] = TypeAdapter(kind)
    validated: _Written = _VALIDATIONS[kind].validate_python(asdict(record))
    return validated


# each type's validator built once: pydantic takes 1-4 ms to build one, most of an example's time
_VALIDATIONS: dict[type[Any], TypeAdapter[Any]] = {}


def a_run() -> Run:
    execution = WorkflowExecution(
        workflow_execution_id=RUN_ID,
        workflow_database_id="db",
        workflow_id="wf",
        workflow_version=1,
        status=ExecutionStatus.RUNNING,
        execution_start_date=START,
        triggered_by_user_id="alice",
        trigger_type=TriggerType.MANUAL,
    )
    steps = tuple(
        PipelineExecution(
            pipeline_execution_id=f"step{index}",
            workflow_execution_id=RUN_ID,
            pipeline_database_id="db",
            pipeline_id=f"p{index}",
            step_index=index,
            execution_type=ExecutionType.PYTHON,
            input_file_arity=InputFileArity.NONE,
            end_state=index == 1,
            input_path="in/",
            output_files_path="out/",
            output_preview_path="preview/",
            output_metadata_path="metadata/",
            auxiliary_path="aux/",
        )
        for index in range(2)
    )
    return Run(execution=execution, steps=steps)


def assert_as_validated(run: Run) -> None:
    assert as_validated(run) == run
    for record in (run.execution, *run.steps):
        assert as_validated(record) == record
        assert list(record.__dict__) == list(type(record).model_fields)  # the fields' order
    for attempt in run.attempts:
        assert as_validated_record(attempt) == attempt


@given(started=moments, finished=moments)
def test_a_started_then_finished_step_is_what_validation_makes_of_it(
    started: datetime, finished: datetime
) -> None:
    start = first_start(RUN_ID, "step0", started)
    run = a_run().moved(start)
    finish = plain_finish(RUN_ID, "step0", StepStatus.SUCCEEDED, None, finished, attempt=1)
    run = run.moved(finish)
    assert_as_validated(run)
    # a table date keeps whole seconds, as validation truncates it
    assert run.steps[0].start_date == started.replace(microsecond=0)
    assert run.steps[0].stop_date == finished.replace(microsecond=0)
    assert run.attempts[0].start_date == started  # an attempt keeps microseconds
    for event in (*move_events(start), *move_events(finish)):
        assert as_validated_record(event) == event


@given(started=moments, finished=moments)
def test_moves_written_together_leave_the_run_each_written_in_turn_leaves(
    started: datetime, finished: datetime
) -> None:
    """Run.moved_all, one pass however many moves (a run's end closes thousands), is the same
    run as each move in turn: a move closing the attempt another opened in the same write."""
    start = first_start(RUN_ID, "step0", started)
    finish = plain_finish(RUN_ID, "step0", StepStatus.FAILED, "boom", finished, attempt=1)
    other = first_start(RUN_ID, "step1", finished)
    together = a_run().moved_all((start, finish, other))
    assert together == a_run().moved(start).moved(finish).moved(other)
    assert [a.status for a in together.attempts] == [StepStatus.FAILED, StepStatus.RUNNING]
    assert_as_validated(together)


@given(at=moments)
def test_a_completed_run_and_its_events_are_what_validation_makes_of_them(at: datetime) -> None:
    run = a_run()
    known = as_its_runner_knows(run.execution, run.steps, "step1", 1, START)
    assert_as_validated(known)
    after = known.execution.complete(ExecutionStatus.FAILED, at=at, log="", error="boom")
    assert as_validated(after) == after
    assert after.execution_stop_date == at.replace(microsecond=0)
    change = RunChange(known.execution, after, RunGuard())
    for event in (*launch_events(run.execution), *change_events(change)):
        assert as_validated_record(event) == event


def test_a_date_with_no_time_zone_is_refused_naming_the_field() -> None:
    with pytest.raises(ValueError, match=r"startDate: .* has no time zone"):
        first_start(RUN_ID, "step0", datetime(2026, 12, 4, 1, 0))
    with pytest.raises(ValueError, match=r"occurred_at: .* has no time zone"):
        move_events(plain_finish(RUN_ID, "s", StepStatus.FAILED, "x", datetime(2026, 1, 1), 1))
    with pytest.raises(ValueError, match=r"executionStopDate: .* has no time zone"):
        a_run().execution.complete(ExecutionStatus.SUCCEEDED, datetime(2026, 1, 1), "", None)


def test_an_attempt_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="attempt: 0 is below 1"):
        first_start(RUN_ID, "step0", START, attempt=0)


class _Sample(BaseModel):
    """A record of required fields and defaults, as the domain's are."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sample_id: str
    at: datetime
    trigger: AttemptTrigger = AttemptTrigger.START
    error: str | None = None


def test_a_misspelt_or_missing_field_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match=r"unknown fields \['errors'\]"):
        derived(_Sample, sample_id="s", at=START, errors="x")
    with pytest.raises(TypeError, match=r"missing fields \['at'\]"):
        derived(_Sample, sample_id="s")


def test_defaults_fill_the_fields_not_given() -> None:
    sample = derived(_Sample, sample_id="s", at=START)
    assert sample == _Sample(sample_id="s", at=START)
    assert sample.trigger is AttemptTrigger.START


class _Open(BaseModel):
    model_config = ConfigDict(extra="forbid")  # not frozen: assignment adds to its fields set

    name: str
    note: str | None = None


def test_builds_hold_the_fields_set_a_validation_gives_and_no_change_to_one_reaches_another() -> (
    None
):
    first, second = (derived(_Sample, sample_id=s, at=START) for s in ("s1", "s2"))
    assert first.model_fields_set == second.model_fields_set == {"sample_id", "at"}
    assert first.model_fields_set == _Sample(sample_id="s1", at=START).model_fields_set
    copied = first.model_copy(update={"error": "boom"})
    assert copied.model_fields_set == {"sample_id", "at", "error"}
    assert first.model_fields_set == second.model_fields_set == {"sample_id", "at"}
    # a model that is not frozen changes its own set as a field is assigned: never another's
    opened, other = derived(_Open, name="a"), derived(_Open, name="b")
    opened.note = "n"
    assert opened.model_fields_set == {"name", "note"}
    assert other.model_fields_set == derived(_Open, name="c").model_fields_set == {"name"}


class Commits:
    """A run writer keeping each write it is given, all of them written."""

    def __init__(self) -> None:
        self.writes: list[RunWrite] = []

    def commit(self, write: RunWrite) -> bool:
        self.writes.append(write)
        return True


def a_two_step_launch() -> tuple[LaunchExecution, Commits, LaunchExecutionCommand]:
    """A launch of a two-step version (no inputs) writing to `Commits`, and its command."""
    version = a_version(1)
    (first,) = version.steps
    step = first.model_copy(update={"input_file_arity": InputFileArity.NONE})
    two_steps = version.model_copy(
        update={"steps": (step, step.model_copy(update={"pipeline_id": "second"}))}
    )
    workflows: Any = SimpleNamespace(latest_version=lambda database_id, workflow_id: two_steps)
    orchestrator: Any = Orchestrator(claim=True, reference="arn:run")
    store: Any = Commits()
    assets: Any = NoAssets()  # the stubs have only what a launch asks of them
    use_case = LaunchExecution(
        store, workflows, assets, orchestrator, SystemClock(), UuidGenerator()
    )
    command = LaunchExecutionCommand(workflow_database_id="db1", workflow_id="wf1", user_id="alice")
    return use_case, store, command


def test_a_launchs_records_and_first_start_are_what_validation_makes_of_them() -> None:
    use_case, store, command = a_two_step_launch()
    use_case.execute(command)
    launch = store.writes[0].launch
    assert launch is not None
    records = launch.records
    assert as_validated(records) == records
    for record in (
        records.execution,  # the main row as launched (a whole-second start), leased
        records.configuration,
        *records.steps,
        *records.step_configurations,
    ):
        assert as_validated(record) == record
    for attempt in launch.attempts:
        assert as_validated_record(attempt) == attempt
    assert [s.step_index for s in records.steps] == [0, 1]
    # the run the launcher starts from is the one written: its rows, and the attempt opened
    assert launch.run == Run(
        execution=records.execution, steps=records.steps, attempts=launch.attempts
    )
    assert len(launch.attempts) == 1


def test_each_launch_of_a_version_gives_its_steps_their_own_run_s_values() -> None:
    """A version's step rows are built once and given each launch's values: none of a launch's
    ids or paths may be left empty nor carried into the next launch."""
    use_case, store, command = a_two_step_launch()
    use_case.execute(command)
    use_case.execute(command)
    launches = [write.launch.records for write in store.writes if write.launch is not None]
    assert len(launches) == 2
    seen: set[str] = set()
    for records in launches:
        run_id = records.execution.workflow_execution_id
        steps, configurations = records.steps, records.step_configurations
        assert [s.from_pipeline_execution_id for s in steps] == [
            None,
            steps[0].pipeline_execution_id,
        ]
        for row, configuration in zip(steps, configurations, strict=True):
            assert row.pipeline_execution_id not in seen
            seen.add(row.pipeline_execution_id)
            assert (row.workflow_execution_id, configuration.workflow_execution_id) == (
                run_id,
                run_id,
            )
            assert configuration.pipeline_execution_id == row.pipeline_execution_id
            for path in (row.output_files_path, row.output_preview_path, row.output_metadata_path,
                         row.auxiliary_path, row.orchestration_bus_event_prefix):  # fmt: skip
                assert run_id in path
            for record in (row, configuration):
                assert as_validated(record) == record
                assert list(record.__dict__) == list(type(record).model_fields)
    first_rows, second_rows = (records.steps for records in launches)
    assert [s.__pydantic_fields_set__ for s in first_rows] == [
        s.__pydantic_fields_set__ for s in second_rows
    ]
    assert [(s.pipeline_id, s.step_index, s.end_state) for s in second_rows] == [
        ("convert", 0, False), ("second", 1, True)]  # fmt: skip


@given(
    started=moments,
    ran=st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=3)),
    price=st.none() | st.decimals(min_value=0, max_value=100, places=6),
)
def test_a_duration_entry_is_what_validation_makes_of_it(
    started: datetime, ran: timedelta, price: Decimal | None
) -> None:
    rates = RateCard(rates={} if price is None else {"seconds": Rate(unit_price=price)})
    context = RunCostContext(RUN_ID, "db1", "wf1", None, ("db1:asset1",))
    entry = duration_entry(
        context,
        "step0",
        2,
        seconds_between(started, started + ran),
        rates,
        entry_id=duration_entry_id(RUN_ID, "step0", 2),
        at=started + ran,
    )
    assert as_validated_record(entry) == entry
    assert (entry.currency is None) is (price is None)


@given(span=st.timedeltas(min_value=timedelta(days=-2), max_value=timedelta(days=10**5)))
def test_seconds_between_is_the_span_to_the_microsecond_in_its_shortest_plain_form(
    span: timedelta,
) -> None:
    # the text an entry stores: whole seconds with no point, else no trailing zero, never 1E+1
    whole, micro = divmod(max(span, timedelta(0)) // timedelta(microseconds=1), 1_000_000)
    expected = f"{whole}.{micro:06d}".rstrip("0") if micro else str(whole)
    assert str(seconds_between(START, START + span)) == expected


def test_a_duration_entry_checks_what_it_is_given() -> None:
    context = RunCostContext(RUN_ID, "db1", "wf1", None, ())
    with pytest.raises(ValueError, match="attempt: 0 is below 1"):
        duration_entry(context, "s", 0, Decimal(1), RateCard(), entry_id="e", at=START)
    with pytest.raises(ValueError, match=r"recordedAt: .* has no time zone"):
        duration_entry(
            context, "s", 1, Decimal(1), RateCard(), entry_id="e", at=datetime(2026, 1, 1)
        )


def test_an_entry_of_reported_values_is_validated_naming_the_field_and_the_rule() -> None:
    # the runner's own entries are built unvalidated; a report's, an import's are not
    context = RunCostContext(RUN_ID, "db1", "wf1", None, ())
    usage = Usage(quantity=Decimal(1), unit="lambda GB seconds")
    with pytest.raises(ValidationError, match=r"unit\n  String should match pattern"):
        build_entry(
            context, "s", 1, usage, RateCard(), entry_id="e", source=CostSource.REPORT, at=START
        )
    with pytest.raises(ValidationError, match="supersedes: an entry cannot replace itself"):
        build_entry(
            context,
            "s",
            1,
            Usage(quantity=Decimal(1), unit="seconds"),
            RateCard(),
            entry_id="e",
            source=CostSource.REPORT,
            at=START,
            supersedes="e",
        )


@given(at=moments, seconds=st.integers(min_value=1, max_value=3600))
def test_a_taken_or_renewed_lease_is_what_validation_makes_of_it(
    at: datetime, seconds: int
) -> None:
    run = a_run()
    taken = run.take_lease("runner-1", at, timedelta(seconds=seconds)).after
    renewed = run.renew_lease("runner-1", at, timedelta(seconds=seconds)).after
    for execution in (taken, renewed):
        assert as_validated(execution) == execution
        assert execution.runner_lease is not None
        assert as_validated(execution.runner_lease) == execution.runner_lease
        assert execution.runner_lease.expires_date - at == timedelta(seconds=seconds)


def test_a_lease_taken_at_a_moment_with_no_time_zone_is_refused() -> None:
    with pytest.raises(ValueError, match=r"renewedDate: .* has no time zone"):
        a_run().take_lease("runner-1", datetime(2026, 1, 1), timedelta(seconds=30))


def test_a_move_carrying_cost_entries_is_what_replace_makes_of_it() -> None:
    move = first_start(RUN_ID, "step-1", START)
    entry = duration_entry(
        RunCostContext(RUN_ID, "db", "wf", None, ()),
        "step-1",
        1,
        Decimal("1.5"),
        RateCard(),
        entry_id=duration_entry_id(RUN_ID, "step-1", 1),
        at=START,
    )
    finish = plain_finish(RUN_ID, "step-1", StepStatus.FAILED, "boom", START, 1)
    for each in (move, finish):
        assert each.carrying((entry,)) == replace(each, cost_entries=(entry,))


def test_a_move_carrying_cost_entries_keeps_every_other_field() -> None:
    # every field its own marker: a field added to StepMove and left out of carrying fails here
    markers: dict[str, Any] = {field.name: object() for field in fields(StepMove)}
    move = StepMove(**markers)
    entries: Any = object()

    carried = move.carrying(entries)

    assert carried == replace(move, cost_entries=entries)
    assert {f.name: getattr(carried, f.name) for f in fields(StepMove)} == {
        **markers,
        "cost_entries": entries,
    }
