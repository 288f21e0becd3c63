"""GetExecutionDetails bounds every collection; GetExecutionMetadata pages any of them (both
stores)."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import pytest

from adapters.system import SystemClock
from adapters.tables import ResourceKeys, TableNames
from application.detail_bounds import bound_details, bound_steps
from application.detail_collections import MAX_INPUTS, MAX_STEP_ROWS, MAX_STEPS
from application.ports.executions import ExecutionStore
from application.run_metadata_pages import StepRow
from application.use_cases.get_execution_details import (
    GetExecutionDetails,
    GetExecutionDetailsQuery,
)
from application.use_cases.get_execution_metadata import (
    DetailItem,
    GetExecutionMetadata,
    GetExecutionMetadataQuery,
)
from domain.errors import (
    ExecutionNotFoundError,
    InvalidInputError,
    PipelineExecutionNotFoundError,
    UnreadableRowError,
)
from domain.execution import (
    ExecutionDetails,
    PipelineExecution,
    StepDetails,
    StepOutputs,
    artifacts_of,
)
from tests.contract.builders import a_launch, at, some_outputs, step_id, write_launch

FILES = MAX_STEP_ROWS + 5


@pytest.fixture
def big_run(
    execution_store: ExecutionStore, written_once: Callable[[str, Callable[[], None]], None]
) -> ExecutionStore:
    """Run r1: MAX_INPUTS + 3 inputs, three steps, FILES output files (and their artifacts) on
    its first step; written by the first test on each backend, a copy of it for the others."""

    def write() -> None:
        inputs = [("db1:asset1", f"f{n:04d}.obj") for n in range(MAX_INPUTS + 3)]
        write_launch(execution_store, a_launch("r1", inputs=inputs, steps=3))
        template = some_outputs("r1", 0).files[0]
        files = tuple(
            template.model_copy(update={"relative_file_path": f"out/{n:04d}.glb"})
            for n in range(FILES)
        )
        outputs = StepOutputs(files=files, artifacts=artifacts_of(files, at(5)))
        execution_store.add_step_outputs(outputs)

    written_once("big_run", write)
    return execution_store


def details_of(store: ExecutionStore) -> ExecutionDetails:
    query = GetExecutionDetailsQuery(workflow_execution_id="r1")
    return GetExecutionDetails(store, clock=SystemClock()).execute(query)


def page(
    store: ExecutionStore, collection: str, size: int = 100, token: str | None = None
) -> tuple[tuple[DetailItem, ...], str | None]:
    query = GetExecutionMetadataQuery(
        workflow_execution_id="r1", collection=collection, max_items=size, starting_token=token
    )
    result = GetExecutionMetadata(store).execute(query)
    return result.items, result.next_token


def every_item(
    store: ExecutionStore, collection: str, size: int, token: str | None = None
) -> list[DetailItem]:
    items, token = page(store, collection, size, token)
    found = list(items)
    while token is not None:
        items, token = page(store, collection, size, token)
        found += items
    return found


def test_details_cut_inputs_and_a_steps_outputs_and_name_both(big_run: ExecutionStore) -> None:
    details = details_of(big_run)

    assert len(details.inputs) == len(details.selections) == MAX_INPUTS
    first = details.steps[0]
    assert len(first.outputs.files) == MAX_STEP_ROWS
    cuts = {(c.collection, c.returned, c.total) for c in details.truncated_collections}
    assert cuts == {
        ("inputs", MAX_INPUTS, "more"),
        ("inputSelections", MAX_INPUTS, "more"),  # the builder selects each file on its own
        (f"pipelineExecutions[{step_id('r1', 0)}].outputFiles", MAX_STEP_ROWS, "more"),
        (f"pipelineExecutions[{step_id('r1', 0)}].artifacts", MAX_STEP_ROWS, "more"),
        # the builder hands every step each input's metadata
        *((f"pipelineExecutions[{step_id('r1', n)}].inputMetadata", 100, "more") for n in range(3)),
    }


def test_a_cut_collections_token_pages_exactly_the_rest(big_run: ExecutionStore) -> None:
    details = details_of(big_run)
    for cut in details.truncated_collections:
        whole = every_item(big_run, cut.collection, 1000)
        rest = every_item(big_run, cut.collection, 2, cut.next_token)
        shown = {
            "inputs": details.inputs,
            "inputSelections": details.selections,
            f"pipelineExecutions[{step_id('r1', 0)}].outputFiles": details.steps[0].outputs.files,
            f"pipelineExecutions[{step_id('r1', 0)}].artifacts": details.steps[0].outputs.artifacts,
            **{
                f"pipelineExecutions[{entry.step.pipeline_execution_id}].inputMetadata": (
                    entry.input_metadata
                )
                for entry in details.steps
            },
        }[cut.collection]
        assert list(shown) + _rows(rest) == _rows(whole)


def _rows(items: list[DetailItem]) -> list[DetailItem]:
    # a step's metadata rows come with their step; the details hold the rows under it
    return [item.row if isinstance(item, StepRow) else item for item in items]


def test_the_steps_page_by_offset_in_chain_order(big_run: ExecutionStore) -> None:
    steps = every_item(big_run, "pipelineExecutions", 2)

    assert all(isinstance(step, PipelineExecution) for step in steps)
    assert [s.pipeline_execution_id for s in steps if isinstance(s, PipelineExecution)] == [
        step_id("r1", n) for n in range(3)
    ]


def test_a_steps_short_lists_page_too(big_run: ExecutionStore) -> None:
    path = f"pipelineExecutions[{step_id('r1', 1)}]"
    assert every_item(big_run, f"{path}.attempts", 5) == []
    assert every_item(big_run, f"{path}.registeredLogs", 5) == []
    assert len(every_item(big_run, f"{path}.inputMetadata", 7)) == MAX_INPUTS + 3


@pytest.mark.parametrize(
    "collection", ["outputs", "pipelineExecutions[]", "pipelineExecutions[x].nope", ""]
)
def test_an_unknown_collection_is_refused_naming_the_field_and_the_allowed_values(
    big_run: ExecutionStore, collection: str
) -> None:
    allowed = r"^collection: must be one of input, inputDatabase, output, inputs, "
    with pytest.raises(InvalidInputError, match=allowed):
        page(big_run, collection)


def _token(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "token",
    [
        "not-a-token",
        "!!!",
        _token("[]"),
        _token('{"collection":"inputs"}'),
        _token('{"collection":"inputs","offset":3}'),  # an offset for a row collection
        _token('{"collection":"pipelineExecutions","after":"x"}'),
        _token('{"collection":"pipelineExecutions","offset":3}'),  # another collection's
    ],
)
def test_a_token_not_issued_for_the_collection_is_refused(
    big_run: ExecutionStore, token: str
) -> None:
    with pytest.raises(InvalidInputError, match=r"^startingToken: "):
        page(big_run, "inputs", token=token)


def test_a_step_of_another_run_or_none_is_not_found(big_run: ExecutionStore) -> None:
    write_launch(big_run, a_launch("r2"))
    with pytest.raises(PipelineExecutionNotFoundError):
        page(big_run, f"pipelineExecutions[{step_id('r2', 0)}].outputFiles")
    with pytest.raises(PipelineExecutionNotFoundError):
        page(big_run, "pipelineExecutions[no-such-step].logs")


def test_an_unknown_run_is_not_found(execution_store: ExecutionStore) -> None:
    with pytest.raises(ExecutionNotFoundError):
        page(execution_store, "inputs")


def test_steps_past_the_bound_are_cut_with_their_total_counted() -> None:
    """Pure: a list read whole says its total, and its token continues at the bound."""
    launch = a_launch("r9", steps=MAX_STEPS + 2)
    details = ExecutionDetails(
        execution=launch.execution, steps=tuple(StepDetails(step=s) for s in launch.steps)
    )
    steps, cut = bound_steps(details)
    bounded = bound_details(details.model_copy(update={"steps": steps}), cut)

    assert len(bounded.steps) == MAX_STEPS
    (named,) = bounded.truncated_collections
    assert (named.collection, named.returned, named.total) == (
        "pipelineExecutions",
        MAX_STEPS,
        MAX_STEPS + 2,
    )


def test_a_read_of_the_first_steps_details_reads_every_step_head_and_the_rest_of_those_alone(
    execution_store: ExecutionStore,
) -> None:
    """`detailed_steps`: every step's head (the chain's order, the count, the history's events),
    the whole step with its per-step rows only of the first in chain order - what a bounded
    answer shows."""
    write_launch(execution_store, a_launch("r5", steps=5))
    for index in (1, 4):
        execution_store.add_step_outputs(some_outputs("r5", index))

    details = execution_store.get_details("r5", detailed_steps=2)

    assert details.step_heads is not None
    assert [head.pipeline_execution_id for head in details.step_heads] == [
        step_id("r5", n) for n in range(5)
    ]
    assert [head.step_index for head in details.step_heads] == list(range(5))
    shown = details.steps
    assert [entry.step.pipeline_execution_id for entry in shown] == [
        step_id("r5", 0),
        step_id("r5", 1),
    ]
    assert all(entry.configuration is not None and entry.input_metadata for entry in shown)
    assert shown[1].outputs.files and shown[1].outputs.logs
    whole = execution_store.get_details("r5")
    assert whole.step_heads is None
    assert {e.step.pipeline_execution_id: e for e in whole.steps}[step_id("r5", 4)].outputs.files


def test_a_bounded_read_parses_whole_only_the_steps_it_shows(
    execution_store: ExecutionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counted, not timed: each PipelineExecution a read builds is one step row parsed whole."""
    write_launch(execution_store, a_launch("r7", steps=10))
    parsed: list[str] = []
    build = PipelineExecution.__init__

    def counted(self: PipelineExecution, **fields: Any) -> None:
        build(self, **fields)
        parsed.append(self.pipeline_execution_id)

    monkeypatch.setattr(PipelineExecution, "__init__", counted)

    bounded = execution_store.get_details("r7", detailed_steps=3)
    assert sorted(parsed) == [step_id("r7", n) for n in range(3)]
    assert bounded.step_heads is not None and len(bounded.step_heads) == 10
    parsed.clear()
    execution_store.get_details("r7")
    assert sorted(parsed) == [step_id("r7", n) for n in range(10)]


def test_a_details_read_makes_as_many_requests_whatever_the_steps_past_those_shown(
    dynamodb_execution_store: ExecutionStore, moto_dynamodb_client: object
) -> None:
    """DynamoDB: each shown step costs a request per output table; a step past them none."""
    requests: list[str] = []

    def count(**kwargs: object) -> None:
        requests.append(str(kwargs.get("event_name")))

    counts = []
    for run, steps in (("small", 4), ("large", 40)):
        write_launch(dynamodb_execution_store, a_launch(run, steps=steps))
        events = moto_dynamodb_client.meta.events  # type: ignore[attr-defined]
        events.register("before-call.dynamodb.*", count)
        dynamodb_execution_store.get_details(run, detailed_steps=3)
        events.unregister("before-call.dynamodb.*", count)
        counts.append(len(requests))
        requests.clear()
    assert counts[0] == counts[1]


def _stored_as(
    request: pytest.FixtureRequest, step: str, attribute: str, value: str | None
) -> None:
    """`attribute` of step `step`'s row set to `value` (None: null) beside the store, as another
    writer might."""
    backend = request.node.callspec.params["execution_store"]
    table = TableNames().get_table_name(ResourceKeys.PIPELINE_EXECUTIONS)
    if backend == "dynamodb":
        request.getfixturevalue("moto_dynamodb_client").update_item(
            TableName=table,
            Key={"pipelineExecutionId": {"S": step}, "workflowExecutionId": {"S": "r6"}},
            UpdateExpression="SET #a = :v",
            ExpressionAttributeNames={"#a": attribute},
            ExpressionAttributeValues={":v": {"NULL": True} if value is None else {"S": value}},
        )
        return
    with request.getfixturevalue(f"{backend}_database").write() as connection:
        connection.execute(
            f'UPDATE "{table}" SET item = json_set(item, ?, ?) WHERE "pipelineExecutionId" = ?',
            (f'$."{attribute}"', value, step),
        )


def test_a_bounded_read_leaves_out_the_unreadable_step_rows_a_whole_read_would_but_past_those_shown(
    execution_store: ExecutionStore, request: pytest.FixtureRequest
) -> None:
    """A shown step whose row does not read is left out and named, the next shown in its place;
    a step whose head does not read likewise, wherever it is. A step past those shown is read
    no further than its head: counted, and named only by a read of it whole."""
    write_launch(execution_store, a_launch("r6", steps=7))
    step = [step_id("r6", n) for n in range(7)]
    _stored_as(request, step[1], "executionStopDate", "yesterday")  # shown: read whole
    _stored_as(request, step[4], "executionStartDate", "yesterday")  # its head
    _stored_as(request, step[5], "executionStopDate", "yesterday")  # past those shown
    _stored_as(request, step[6], "stepIndex", None)  # its head: there, and null

    details = execution_store.get_details("r6", leave_out_unreadable=True, detailed_steps=3)

    assert [entry.step.pipeline_execution_id for entry in details.steps] == [
        step[0],
        step[2],
        step[3],
    ]
    assert details.step_heads is not None
    assert [head.pipeline_execution_id for head in details.step_heads] == [
        step[0],
        step[2],
        step[3],
        step[5],
    ]
    assert [row.key for row in details.unreadable_rows] == [step[1], step[4], step[6]]
    whole = execution_store.get_details("r6", leave_out_unreadable=True)
    assert [row.key for row in whole.unreadable_rows] == [step[1], step[4], step[5], step[6]]
    with pytest.raises(UnreadableRowError):
        execution_store.get_details("r6", detailed_steps=3)
