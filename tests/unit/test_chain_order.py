"""Steps are shown in chain order, walked from the root along from_pipeline_execution_id."""

from domain.execution import chain_order
from tests.unit.test_records import a_step


def test_the_chain_is_walked_from_the_step_without_a_predecessor() -> None:
    root = a_step(pipeline_execution_id="a", step_index=2)
    middle = a_step(pipeline_execution_id="b", step_index=0, from_pipeline_execution_id="a")
    last = a_step(pipeline_execution_id="c", step_index=1, from_pipeline_execution_id="b")
    assert [s.pipeline_execution_id for s in chain_order([last, root, middle])] == ["a", "b", "c"]


def test_steps_off_a_broken_chain_are_still_listed_after_it() -> None:
    root = a_step(pipeline_execution_id="a", step_index=0)
    orphan = a_step(pipeline_execution_id="z", step_index=5, from_pipeline_execution_id="missing")
    assert [s.pipeline_execution_id for s in chain_order([orphan, root])] == ["a", "z"]


def test_a_cycle_does_not_loop_forever() -> None:
    a = a_step(pipeline_execution_id="a", step_index=0)
    b = a_step(pipeline_execution_id="b", step_index=1, from_pipeline_execution_id="c")
    c = a_step(pipeline_execution_id="c", step_index=2, from_pipeline_execution_id="b")
    assert [s.pipeline_execution_id for s in chain_order([c, b, a])] == ["a", "b", "c"]


def test_steps_held_in_chain_order_come_back_as_they_are() -> None:
    a = a_step(pipeline_execution_id="a", step_index=1)
    b = a_step(pipeline_execution_id="b", step_index=0, from_pipeline_execution_id="a")
    assert chain_order((a, b)) == [a, b]


def test_a_chain_in_order_then_a_second_root_is_walked_from_the_last_root() -> None:
    a = a_step(pipeline_execution_id="a", step_index=0)
    b = a_step(pipeline_execution_id="b", step_index=2, from_pipeline_execution_id="a")
    other = a_step(pipeline_execution_id="z", step_index=1)
    # not a chain held in order: walked as ever, from the last root, the rest by step index
    assert chain_order([a, b, other]) == [other, a, b]
