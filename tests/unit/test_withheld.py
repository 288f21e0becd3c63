"""An ARN is shown by its name tail, in a field and inside free text."""

from __future__ import annotations

import pytest

from entrypoints.withheld import resource_name, without_arns


@pytest.mark.parametrize(
    ("given", "shown"),
    [
        ("arn:aws:states:us-east-1:123456789012:execution:machine:run-1", "run-1"),
        ("arn:aws:batch:us-east-1:123456789012:job/job-7", "job-7"),
        ("arn:aws:logs:us-east-1:123456789012:log-group:/wfx/inner:*", "/wfx/inner"),
        ("arn:wfx:local:execution:demo/trivial:e1", "e1"),
        ("4242", "4242"),
        ("farm-1/queue-1/job-1", "farm-1/queue-1/job-1"),
    ],
)
def test_a_resource_is_shown_by_its_name(given: str, shown: str) -> None:
    assert resource_name(given) == shown


def test_each_arn_in_a_text_is_cut_to_its_name_and_the_text_around_it_kept() -> None:
    text = (
        "DescribeStateMachine arn:aws:states:us-east-1:123456789012:stateMachine:m: denied "
        "(arn:aws:batch:us-east-1:123456789012:job/j1), 'arn:aws:ecs:us-east-1:1:task/c/t'."
    )
    assert without_arns(text) == "DescribeStateMachine m: denied (j1), 't'."
