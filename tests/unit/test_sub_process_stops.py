"""Domain rules of stop outcomes: which are unconfirmed, how a new attempt merges, warnings."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from domain.logs import RegisteredSubExecution
from domain.sub_processes import (
    MAX_STOP_DETAIL,
    StopAttempt,
    StopOutcome,
    SubExecutionStop,
    left_running_warning,
    merge_stop,
    merge_stops,
)

T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
CHILD = RegisteredSubExecution.of_resource(resource_type="batch", resource_id="job-1")


def a_stop(
    outcome: StopOutcome, *, tries: int = 1, minutes: int = 0, rid: str = "job-1"
) -> SubExecutionStop:
    return SubExecutionStop(
        resource_type="batch",
        resource_id=rid,
        outcome=outcome,
        at=T0 + timedelta(minutes=minutes),
        tries=tries,
    )


@pytest.mark.parametrize(
    ("outcome", "unconfirmed"),
    [
        (StopOutcome.STOP_REQUESTED, True),
        (StopOutcome.COULD_NOT_STOP, True),
        (StopOutcome.STOPPED, False),
        (StopOutcome.ALREADY_FINISHED, False),
        (StopOutcome.UNSUPPORTED, False),
    ],
)
def test_only_a_requested_or_failed_stop_is_unconfirmed(
    outcome: StopOutcome, unconfirmed: bool
) -> None:
    assert a_stop(outcome).is_unconfirmed is unconfirmed
    assert a_stop(outcome).is_final is not unconfirmed


def test_the_outcomes_keep_the_seed_style_names() -> None:
    assert [o.value for o in StopOutcome] == [
        "stopRequested",
        "stopped",
        "alreadyFinished",
        "couldNotStop",
        "unsupported",
    ]


def test_a_first_outcome_is_taken_as_it_is() -> None:
    new = a_stop(StopOutcome.STOP_REQUESTED)
    assert merge_stop(None, new) == new


def test_a_confirmed_stop_never_goes_back_to_unconfirmed() -> None:
    stored = a_stop(StopOutcome.STOPPED)
    later = a_stop(StopOutcome.COULD_NOT_STOP, minutes=5)
    assert merge_stop(stored, later) == stored


def test_an_unconfirmed_stop_takes_the_new_outcome_and_adds_the_tries() -> None:
    stored = a_stop(StopOutcome.STOP_REQUESTED, tries=1)
    confirmed = a_stop(StopOutcome.STOPPED, tries=0, minutes=5)
    retried = a_stop(StopOutcome.STOP_REQUESTED, tries=1, minutes=5)

    assert merge_stop(stored, confirmed) == confirmed.model_copy(update={"tries": 1})
    assert merge_stop(stored, retried).tries == 2


def test_merging_lists_keys_by_type_and_id_and_keeps_the_stored_order() -> None:
    first, second = a_stop(StopOutcome.STOP_REQUESTED), a_stop(StopOutcome.STOPPED, rid="job-2")
    new = (
        a_stop(StopOutcome.STOPPED, tries=0, minutes=1),
        a_stop(StopOutcome.UNSUPPORTED, rid="x"),
    )

    merged = merge_stops((first, second), new)

    assert [stop.resource_id for stop in merged] == ["job-1", "job-2", "x"]
    assert merged[0].outcome is StopOutcome.STOPPED and merged[0].tries == 1
    assert merged[1] == second


def test_a_detail_is_redacted_before_it_is_kept() -> None:
    attempt = StopAttempt(
        outcome=StopOutcome.COULD_NOT_STOP, detail="denied for AKIAABCDEFGHIJKLMNOP"
    )
    stop = SubExecutionStop.of(CHILD, attempt, at=T0, tries=1)

    assert "AKIAABCDEFGHIJKLMNOP" not in attempt.detail
    assert "AKIAABCDEFGHIJKLMNOP" not in stop.detail


def test_a_stop_needs_an_aware_time_and_a_known_outcome() -> None:
    with pytest.raises(ValidationError, match="at"):
        SubExecutionStop(
            resource_type="batch",
            resource_id="j",
            outcome=StopOutcome.STOPPED,
            at=datetime(2026, 1, 1),
        )
    with pytest.raises(ValidationError, match="outcome"):
        SubExecutionStop.model_validate(
            {"resource_type": "b", "resource_id": "j", "outcome": "gone", "at": T0}
        )


def test_an_unsupported_child_is_named_in_a_left_running_warning() -> None:
    stop = SubExecutionStop(
        resource_type="kubernetesJob", resource_id="pod-1", outcome=StopOutcome.UNSUPPORTED, at=T0
    )
    warning = left_running_warning("mesh", stop)
    assert warning == (
        "step mesh: kubernetesJob pod-1 was left running: wfx cannot stop kubernetesJob"
    )


def test_a_failed_or_only_requested_stop_warns_and_a_stopped_one_does_not() -> None:
    failed = a_stop(StopOutcome.COULD_NOT_STOP).model_copy(update={"detail": "Throttling"})
    assert "batch job-1 was left running: could not stop it: Throttling" in str(
        left_running_warning("mesh", failed)
    )
    requested = a_stop(StopOutcome.STOP_REQUESTED).model_copy(update={"detail": "SIGTERM sent"})
    assert left_running_warning("mesh", requested) == (
        "step mesh: batch job-1 may still be running: its stop was requested, not yet seen to "
        "end (SIGTERM sent); `wfx maintenance sweep-aborts` confirms it"
    )
    assert left_running_warning("mesh", a_stop(StopOutcome.STOPPED)) is None
    assert left_running_warning("mesh", a_stop(StopOutcome.ALREADY_FINISHED)) is None


def test_a_long_stop_detail_is_redacted_then_cut_to_the_limit() -> None:
    secret = "AKIA" + "ABCDEFGHIJKLMNOP"
    attempt = StopAttempt(
        outcome=StopOutcome.COULD_NOT_STOP, detail=f"{secret} " + "refused " * 500
    )

    stop = SubExecutionStop.of(CHILD, attempt, T0, tries=1)

    assert len(attempt.detail) == MAX_STOP_DETAIL and attempt.detail.endswith("…")
    assert secret not in attempt.detail
    assert stop.detail == attempt.detail
    short = StopAttempt(outcome=StopOutcome.STOPPED, detail="ABORTED")
    assert short.detail == "ABORTED"
