"""Stage frames and stage status derived from real-shaped ASL definitions and histories.

The fixtures under tests/unit/fixtures/stages are in the shapes Step Functions returns
(DescribeStateMachine's definition, GetExecutionHistory's `events` as `aws stepfunctions
get-execution-history` prints them). `moto_parallel_map_fail.history.json` is the history moto's
parser mode recorded for `parallel_map_fail.asl.json`; the `ingest_*` histories are written after
the AWS event reference (retries are TaskScheduled after TaskFailed, a caught failure is
TaskFailed then TaskStateExited, branches interleave and are told apart by previousEventId).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.stage_history import (
    MAX_DEFINITION_BYTES,
    StageFrameError,
    attribute_history,
    stage_frame,
)
from domain.stages import StageState, StageStatus

FIXTURES = Path(__file__).parent / "fixtures" / "stages"


def _definition(name: str) -> str:
    return (FIXTURES / f"{name}.asl.json").read_text()


def _events(name: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = json.loads((FIXTURES / f"{name}.history.json").read_text())[
        "events"
    ]
    return events


def _flat(states: tuple[StageState, ...]) -> dict[str, StageState]:
    found: dict[str, StageState] = {}
    pending = list(states)
    while pending:
        state = pending.pop()
        found[state.name] = state
        pending.extend(state.children)
    return found


def _statuses(definition: str, history: str, complete: bool = True) -> dict[str, StageStatus]:
    states = attribute_history(stage_frame(_definition(definition)), _events(history), complete)
    return {name: state.status for name, state in _flat(states).items()}


# -- the frame ---------------------------------------------------------------------------------


def test_the_frame_lists_states_in_reachable_order_with_branches_nested() -> None:
    frame = stage_frame(_definition("ingest"))
    assert [s.name for s in frame.stages] == [
        "Fetch",
        "Convert",
        "Fanout",
        "Quarantine",
        "Tiles",
        "Done",
    ]
    fanout = frame.stages[2]
    assert [(c.name, c.branch, c.depth) for c in fanout.children] == [
        ("Thumbs", 0, 2),
        ("Index", 1, 2),
    ]
    tiles = frame.stages[4]
    assert [(c.name, c.state_type, c.branch) for c in tiles.children] == [("Tile", "Task", None)]
    assert frame.notes == ()


def test_choice_targets_follow_the_choice_and_the_default_comes_after_them() -> None:
    frame = stage_frame(_definition("parallel_map_fail"))
    assert [s.name for s in frame.stages] == [
        "Prepare",
        "Route",
        "FanOut",
        "Skip",
        "EachItem",
        "Explode",
    ]
    assert [c.name for c in frame.stages[2].children] == ["Left", "LeftDone", "Right"]


def test_a_map_written_with_the_older_iterator_field_is_walked_too() -> None:
    definition = {
        "StartAt": "Each",
        "States": {
            "Each": {
                "Type": "Map",
                "Iterator": {"StartAt": "Work", "States": {"Work": {"Type": "Pass", "End": True}}},
                "End": True,
            }
        },
    }
    assert [c.name for c in stage_frame(definition).stages[0].children] == ["Work"]


def test_a_definition_over_256_kib_is_refused_with_the_reason() -> None:
    padding = "x" * (257 * 1024)
    text = json.dumps({"Comment": padding, "StartAt": "A", "States": {"A": {"Type": "Pass"}}})
    assert len(text.encode()) > MAX_DEFINITION_BYTES
    with pytest.raises(StageFrameError, match=r"definition: \d+ bytes is over the 262144"):
        stage_frame(text)


def test_a_definition_that_is_not_json_is_refused_naming_the_field() -> None:
    with pytest.raises(StageFrameError, match="definition: not JSON"):
        stage_frame("{not json")


def test_a_frame_stops_at_50_stages_and_says_so() -> None:
    states = {f"S{i:02}": {"Type": "Pass", "Next": f"S{i + 1:02}"} for i in range(50)}
    states["S50"] = {"Type": "Succeed"}
    frame = stage_frame({"StartAt": "S00", "States": states})
    assert len(list(frame.walk())) == 50
    assert frame.stages[-1].name == "S49"
    assert frame.notes == ("stages beyond 50 are not shown",)


def _nested(depth: int) -> dict[str, Any]:
    """A Parallel inside a Parallel ... `depth` levels of states in all."""
    if depth == 1:
        return {"StartAt": "Leaf", "States": {"Leaf": {"Type": "Pass", "End": True}}}
    return {
        "StartAt": f"Level{depth}",
        "States": {f"Level{depth}": {"Type": "Parallel", "Branches": [_nested(depth - 1)]}},
    }


def test_states_nested_four_levels_deep_are_left_out_of_the_frame() -> None:
    frame = stage_frame(_nested(4))
    assert [(s.name, s.depth) for s in frame.walk()] == [
        ("Level4", 1),
        ("Level3", 2),
        ("Level2", 3),
    ]
    assert frame.notes == ("states nested deeper than 3 levels are not shown",)


def test_three_levels_of_nesting_are_walked_whole() -> None:
    frame = stage_frame(_nested(3))
    assert [s.name for s in frame.walk()] == ["Level3", "Level2", "Leaf"]
    assert frame.notes == ()


# -- attribution -------------------------------------------------------------------------------


def test_a_retried_task_that_succeeded_is_succeeded_with_its_retry_count() -> None:
    states = attribute_history(
        stage_frame(_definition("ingest")), _events("ingest_retried_and_caught")
    )
    fetch = _flat(states)["Fetch"]
    assert (fetch.status, fetch.retries, fetch.entries) == (StageStatus.SUCCEEDED, 1, 1)
    assert fetch.start_date is not None and fetch.stop_date is not None
    assert fetch.start_date < fetch.stop_date


def test_a_caught_failure_is_caught_not_failed_and_the_run_goes_on() -> None:
    states = _flat(
        attribute_history(stage_frame(_definition("ingest")), _events("ingest_retried_and_caught"))
    )
    assert states["Convert"].status is StageStatus.CAUGHT
    assert states["Convert"].error == "States.TaskFailed"
    assert states["Quarantine"].status is StageStatus.SUCCEEDED


def test_parallel_branches_and_map_iterations_are_attributed_to_their_states() -> None:
    statuses = _statuses("ingest", "ingest_retried_and_caught")
    assert statuses == {
        "Fetch": StageStatus.SUCCEEDED,
        "Convert": StageStatus.CAUGHT,
        "Quarantine": StageStatus.SUCCEEDED,
        "Fanout": StageStatus.SUCCEEDED,
        "Thumbs": StageStatus.SUCCEEDED,
        "Index": StageStatus.SUCCEEDED,
        "Tiles": StageStatus.SUCCEEDED,
        "Tile": StageStatus.SUCCEEDED,
        "Done": StageStatus.SUCCEEDED,
    }
    tile = _flat(
        attribute_history(stage_frame(_definition("ingest")), _events("ingest_retried_and_caught"))
    )["Tile"]
    assert tile.entries == 2  # one per Map iteration


def test_an_uncaught_branch_failure_fails_the_branch_and_its_parallel_and_aborts_its_sibling() -> (
    None
):
    statuses = _statuses("ingest", "ingest_branch_failed")
    assert statuses["Thumbs"] is StageStatus.FAILED
    assert statuses["Fanout"] is StageStatus.FAILED
    assert statuses["Index"] is StageStatus.ABORTED
    assert statuses["Quarantine"] is StageStatus.NOT_STARTED  # the whole history was read
    assert statuses["Tiles"] is StageStatus.NOT_STARTED
    failed = _flat(
        attribute_history(stage_frame(_definition("ingest")), _events("ingest_branch_failed"))
    )["Thumbs"]
    assert failed.error == "Thumbs.Corrupt"
    assert failed.stop_date is not None


def test_an_aborted_execution_leaves_its_running_stage_aborted() -> None:
    statuses = _statuses("ingest", "ingest_aborted")
    assert statuses["Fetch"] is StageStatus.SUCCEEDED
    assert statuses["Convert"] is StageStatus.ABORTED
    assert statuses["Fanout"] is StageStatus.NOT_STARTED


def test_a_timed_out_execution_leaves_its_running_stage_timed_out() -> None:
    events = _events("ingest_aborted")
    events[-1] = {**events[-1], "type": "ExecutionTimedOut"}
    states = _flat(attribute_history(stage_frame(_definition("ingest")), events))
    assert states["Convert"].status is StageStatus.TIMED_OUT
    assert states["Convert"].stop_date is not None


def test_a_running_execution_shows_its_open_stage_running() -> None:
    events = _events("ingest_aborted")[:-1]  # the job still runs
    states = _flat(attribute_history(stage_frame(_definition("ingest")), events))
    assert states["Convert"].status is StageStatus.RUNNING
    assert states["Convert"].stop_date is None
    assert states["Tiles"].status is StageStatus.NOT_STARTED


def test_a_history_cut_by_the_page_bound_leaves_unseen_stages_unknown() -> None:
    events = _events("ingest_retried_and_caught")
    convert_exit = next(
        i
        for i, e in enumerate(events)
        if e.get("stateExitedEventDetails", {}).get("name") == "Convert"
    )
    events = events[: convert_exit + 1]  # the pages read ended at Convert's exit
    statuses = {
        name: state.status
        for name, state in _flat(
            attribute_history(stage_frame(_definition("ingest")), events, complete=False)
        ).items()
    }
    assert statuses["Fetch"] is StageStatus.SUCCEEDED
    assert statuses["Convert"] is StageStatus.CAUGHT
    assert statuses["Quarantine"] is StageStatus.UNKNOWN
    assert statuses["Tile"] is StageStatus.UNKNOWN


def test_moto_parser_history_gives_each_state_of_a_real_run_its_status() -> None:
    statuses = _statuses("parallel_map_fail", "moto_parallel_map_fail")
    assert statuses == {
        "Prepare": StageStatus.SUCCEEDED,
        "Route": StageStatus.SUCCEEDED,
        "Skip": StageStatus.NOT_STARTED,
        "FanOut": StageStatus.SUCCEEDED,
        "Left": StageStatus.SUCCEEDED,
        "LeftDone": StageStatus.SUCCEEDED,
        "Right": StageStatus.SUCCEEDED,
        "EachItem": StageStatus.SUCCEEDED,
        "Handle": StageStatus.SUCCEEDED,
        "Explode": StageStatus.FAILED,
    }


def test_execution_status_stands_in_for_an_end_event_the_history_lacks() -> None:
    events = _events("ingest_aborted")[:-1]
    states = _flat(
        attribute_history(stage_frame(_definition("ingest")), events, execution_status="ABORTED")
    )
    assert states["Convert"].status is StageStatus.ABORTED


# -- properties --------------------------------------------------------------------------------


def _chain_history(length: int, reached: int, ended: bool) -> list[dict[str, Any]]:
    """A Pass chain S0 -> S1 ... run through state `reached` (exited unless it is the last one
    read while the run goes on), in GetExecutionHistory's shape."""
    events: list[dict[str, Any]] = [
        {"timestamp": 1740819600.0, "type": "ExecutionStarted", "id": 1, "previousEventId": 0}
    ]
    for index in range(reached + 1):
        name = f"S{index}"
        events.append(
            {
                "timestamp": 1740819600.0 + len(events),
                "type": "PassStateEntered",
                "id": len(events) + 1,
                "previousEventId": len(events),
                "stateEnteredEventDetails": {"name": name},
            }
        )
        if index < reached or ended:
            events.append(
                {
                    "timestamp": 1740819600.0 + len(events),
                    "type": "PassStateExited",
                    "id": len(events) + 1,
                    "previousEventId": len(events),
                    "stateExitedEventDetails": {"name": name},
                }
            )
    if ended and reached == length - 1:
        events.append(
            {
                "timestamp": 1740819600.0 + len(events),
                "type": "ExecutionSucceeded",
                "id": len(events) + 1,
                "previousEventId": len(events),
            }
        )
    return events


@given(
    length=st.integers(min_value=1, max_value=12),
    data=st.data(),
    complete=st.booleans(),
)
def test_every_stage_before_the_one_reached_succeeded_and_none_after_it_started(
    length: int, data: st.DataObject, complete: bool
) -> None:
    reached = data.draw(st.integers(min_value=0, max_value=length - 1))
    states: dict[str, dict[str, Any]] = {
        f"S{i}": {"Type": "Pass", "Next": f"S{i + 1}"} for i in range(length - 1)
    }
    states[f"S{length - 1}"] = {"Type": "Pass", "End": True}
    frame = stage_frame({"StartAt": "S0", "States": states})

    result = attribute_history(frame, _chain_history(length, reached, False), complete)

    assert [s.name for s in result] == [f"S{i}" for i in range(length)]
    assert all(s.status is StageStatus.SUCCEEDED for s in result[:reached])
    assert result[reached].status is (StageStatus.RUNNING if complete else StageStatus.UNKNOWN)
    later = StageStatus.NOT_STARTED if complete else StageStatus.UNKNOWN
    assert all(s.status is later for s in result[reached + 1 :])
    assert all(s.start_date is not None for s in result[: reached + 1])


@given(length=st.integers(min_value=1, max_value=12))
def test_a_chain_run_to_its_end_is_succeeded_throughout(length: int) -> None:
    states: dict[str, dict[str, Any]] = {
        f"S{i}": {"Type": "Pass", "Next": f"S{i + 1}"} for i in range(length - 1)
    }
    states[f"S{length - 1}"] = {"Type": "Pass", "End": True}
    frame = stage_frame({"StartAt": "S0", "States": states})
    result = attribute_history(frame, _chain_history(length, length - 1, True))
    assert {s.status for s in result} == {StageStatus.SUCCEEDED}
