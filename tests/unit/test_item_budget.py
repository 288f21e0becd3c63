"""DynamoDB item sizes (AWS "DynamoDB item sizes and formats") and fitting an item under budget."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.item_budget import (
    ITEM_BUDGET,
    ITEM_SIZE_LIMIT,
    KEPT_BYTES,
    ItemTooLargeError,
    Keep,
    Offloadable,
    Record,
    RecordBudget,
    attribute_size,
    declare,
    fit_item,
    fit_values,
    item_size,
    restore_item,
    size_upper_bound,
    value_size,
)
from adapters.output_records import (
    build_artifact_record,
    build_output_file_record,
    build_output_result_record,
)
from adapters.registration import step_lists_attributes
from adapters.run_records import build_execution_input_record
from adapters.step_records import (
    build_pipeline_execution_record,
    build_task_execution_record,
    task_execution_close_attributes,
)
from domain.attempts import AttemptTrigger, TaskExecution
from domain.execution import (
    Artifact,
    ExecutionInput,
    OutputFile,
    OutputResult,
    PipelineExecution,
)
from domain.logs import RegisteredLog, RegisteredSubExecution
from domain.run_write import StepLists, StepListsKind
from domain.statuses import StepStatus


def test_the_limit_is_400_kb_in_binary_units_and_the_budget_keeps_a_margin() -> None:
    assert ITEM_SIZE_LIMIT == 409_600
    assert ITEM_BUDGET <= ITEM_SIZE_LIMIT - 50 * 1024


@pytest.mark.parametrize(
    ("name", "value", "size"),
    [
        # a string: the UTF-8 bytes of the name plus those of the value
        ("Name", "Alice", 4 + 5),
        ("city", "Zürich", 4 + 7),  # ü is two bytes
        ("price", "€", 5 + 3),
        ("face", "😀", 4 + 4),
        ("empty", "", 5 + 0),
        # a number: one byte per two significant digits, plus one
        ("n", 7, 1 + 1 + 1),
        ("n", 123, 1 + 2 + 1),
        ("n", 1000, 1 + 1 + 1),  # trailing zeroes are trimmed
        ("n", Decimal("0.001"), 1 + 1 + 1),  # leading zeroes too
        ("n", 12_345_678_901_234_567_890, 1 + 10 + 1),
        ("n", -12.5, 1 + 2 + 1),
        # binary: its raw bytes
        ("b", b"\x00\x01\x02", 1 + 3),
        # null and boolean: one byte
        ("flag", True, 4 + 1),
        ("none", None, 4 + 1),
        # list and map: 3 bytes, plus one per element, plus the elements
        ("l", [], 1 + 3),
        ("m", {}, 1 + 3),
        ("l", ["a", "bc"], 1 + 3 + (1 + 1) + (1 + 2)),
        ("m", {"k": "v", "kk": 12}, 1 + 3 + (1 + 1 + 1) + (1 + 2 + 2)),
        ("nested", {"l": [True, None]}, 6 + 3 + (1 + 1 + (3 + 2 + 2))),
    ],
)
def test_attribute_sizes_follow_the_aws_rules(name: str, value: Any, size: int) -> None:
    assert attribute_size(name, value) == size


def test_an_item_is_the_sum_of_its_attributes() -> None:
    item = {"workflowExecutionId": "e-1", "stepIndex": 12, "inputFiles": ["a", "b"]}
    assert item_size(item) == (19 + 3) + (9 + 2) + (10 + 3 + 2 + 2)


_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=12,
)


@settings(max_examples=25, deadline=None)
@given(st.dictionaries(st.text(max_size=10), _json_values, max_size=8))
def test_the_quick_bound_is_never_below_the_size(item: dict[str, Any]) -> None:
    assert size_upper_bound(item) >= item_size(item)


@pytest.mark.parametrize(
    "item",
    [  # where JSON is shortest against DynamoDB's count: one digit, empty and one-element lists
        {"n": 1},
        {"n": 10**37, "m": -99},
        {"l": []},
        {"l": [[[[]]]]},
        {"l": [0, 0, 0]},
        {"m": {"": {"": 0}}},
        {"s": "😀" * 10},
        {"": None},
    ],
)
def test_the_quick_bound_holds_where_json_is_tightest(item: dict[str, Any]) -> None:
    assert size_upper_bound(item) >= item_size(item)


_BUDGET = declare(
    RecordBudget(
        "test",
        (
            Offloadable("body"),
            Offloadable("log", Keep.TAIL, cap=1000, restore=False),
            Offloadable("files"),
        ),
    )
)


def test_a_small_item_is_left_as_it_is() -> None:
    item = {"id": "e-1", "body": "short", "files": ["a"]}
    fitted = fit_item(item, _BUDGET, "e-1")
    assert fitted == item and fitted.offloads == ()


def test_a_field_over_its_cap_keeps_its_tail_and_moves_out_whole() -> None:
    log = "".join(f"line {n}\n" for n in range(1000))
    fitted = fit_item({"id": "e-1", "log": log}, _BUDGET, "e-1")
    assert len(fitted["log"].encode()) <= 1000 and log.endswith(fitted["log"])
    assert fitted["logTruncated"] is True
    (offload,) = fitted.offloads
    assert offload.key == fitted["logObjectKey"]
    assert offload.key.startswith("executions/e-1/bodies/test/log/")
    assert offload.body == log.encode()


def test_an_item_over_budget_has_its_largest_field_cut_and_flagged() -> None:
    files = [f"db/asset/folder/file-{n:06d}.bin" for n in range(20_000)]
    item = {"id": "e-1", "body": "x" * 2000, "files": files}
    fitted = fit_item(item, _BUDGET, "e-1")
    assert item_size(fitted) <= ITEM_BUDGET
    assert fitted["filesTruncated"] is True and "bodyTruncated" not in fitted
    assert fitted["files"] == files[: len(fitted["files"])]
    assert value_size(fitted["files"]) <= KEPT_BYTES
    (offload,) = fitted.offloads
    assert json.loads(offload.body) == files
    # a read puts the whole list back, by the key the row names
    bodies = {offload.key: offload.body}
    assert restore_item(dict(fitted), bodies.__getitem__)["files"] == files


def test_a_body_that_is_gone_leaves_the_field_as_the_row_keeps_it_and_flagged() -> None:
    fitted = fit_item({"id": "e-1", "files": ["f" * 100] * 4000}, _BUDGET, "e-1")

    def gone(key: str) -> bytes:
        raise FileNotFoundError(key)

    kept = restore_item(dict(fitted), gone)
    assert kept["files"] == fitted["files"] and kept["filesTruncated"] is True


def test_every_field_is_cut_when_one_is_not_enough() -> None:
    item = {"id": "e-1", "body": "é" * 200_000, "files": ["f" * 100] * 4000}
    fitted = fit_item(item, _BUDGET, "e-1")
    assert item_size(fitted) <= ITEM_BUDGET
    assert fitted["bodyTruncated"] is True and fitted["filesTruncated"] is True
    bodies = {o.key: o.body for o in fitted.offloads}
    whole = restore_item(dict(fitted), bodies.__getitem__)
    assert whole["body"] == item["body"] and whole["files"] == item["files"]


@pytest.mark.parametrize(
    "values",
    [{"status": "FAILED"}, {"status": "FAILED", "log": "y" * 1000}, {"log": "é" * 500}],
)
def test_update_values_within_their_caps_are_taken_as_fit_item_keeps_them(
    values: dict[str, Any],
) -> None:
    fitted = fit_values(values, _BUDGET, "e-1")
    assert fitted == fit_item(values, _BUDGET, "e-1") == values
    assert getattr(fitted, "offloads", ()) == ()  # (the values as they are: no body moved out)


@pytest.mark.parametrize(
    "values", [{"log": "y" * 1001}, {"log": "é" * 501}, {"status": "FAILED", "body": "short"}]
)
def test_update_values_over_a_cap_or_with_an_uncapped_field_are_fitted(
    values: dict[str, Any],
) -> None:
    fitted = fit_values(values, _BUDGET, "e-1")
    assert fitted == fit_item(values, _BUDGET, "e-1")
    assert isinstance(fitted, Record)
    assert fitted.offloads == fit_item(values, _BUDGET, "e-1").offloads


def test_a_field_kept_by_design_is_not_restored() -> None:
    fitted = fit_item({"id": "e-1", "log": "y" * 5000}, _BUDGET, "e-1")
    assert restore_item(dict(fitted), lambda key: b"never read")["log"] == fitted["log"]


def test_an_item_with_nothing_left_to_cut_is_refused() -> None:
    with pytest.raises(ItemTooLargeError, match="nothing left to cut"):
        fit_item({"id": "e-1", "other": "z" * ITEM_SIZE_LIMIT}, _BUDGET, "e-1")


def test_an_uncut_item_is_read_without_a_copy_or_a_read() -> None:
    item = {"id": "e-1", "files": ["a"]}
    assert restore_item(item, lambda key: pytest.fail("read")) is item


# -- the records ---------------------------------------------------------------------------------

NOW = datetime(2025, 1, 1, tzinfo=UTC)
LONGEST_KEY = "k" * 1024  # S3 keys and version ids: at most 1024 bytes


def test_records_of_keys_and_ids_are_bounded_far_under_the_budget() -> None:
    """Not fitted (records.py): their worst case, every S3 key and id at its longest."""
    common = {"pipeline_execution_id": "p" * 64, "workflow_execution_id": "e" * 80}
    worst = [
        build_execution_input_record(
            ExecutionInput(
                workflow_execution_id="e" * 80,
                workflow_key="d" * 256 + ":" + "w" * 256,
                database_id="d" * 256,
                asset_id="a" * 256,
                input_asset_file_key=LONGEST_KEY,
                bucket="b" * 63,
                asset_root_key=LONGEST_KEY,
                version_id=LONGEST_KEY,
                execution_start_date=NOW,
            )
        ),
        build_output_file_record(
            OutputFile(
                **common,
                file_type="metadata",
                relative_file_path=LONGEST_KEY,
                version_id=LONGEST_KEY,
                size=10**15,
                etag="t" * 64,
            )
        ),
        build_artifact_record(
            Artifact(
                **common,
                attempt=10**6 - 1,
                file_type="metadata",
                relative_file_path=LONGEST_KEY,
                version_id=LONGEST_KEY,
                size=10**15,
                etag="t" * 64,
                recorded_at=NOW,
            )
        ),
        build_output_result_record(
            OutputResult(
                **common,
                relative_file_path=LONGEST_KEY,
                version_id=LONGEST_KEY,
                output_database_id="d" * 256,
                output_asset_id="a" * 256,
                asset_version_id=LONGEST_KEY,
            )
        ),
        build_task_execution_record(  # with no error (an error is fitted)
            TaskExecution(
                **common,
                attempt=10**6 - 1,
                status=max(StepStatus, key=len),
                start_date=NOW,
                stop_date=NOW,
                trigger=max(AttemptTrigger, key=len),
            )
        ),
    ]
    assert max(item_size(item) for item in worst) < 16 * 1024


def test_an_attempts_error_over_its_cap_is_cut_as_its_close_cuts_it() -> None:
    """An attempt written with its error (a redrive's copy of a failed one) keeps what its
    close would have: the error at its cap, flagged, its whole body moved out."""
    error = "boom " * (KEPT_BYTES // 4)
    attempt = TaskExecution(
        pipeline_execution_id="p-1",
        workflow_execution_id="e-1",
        attempt=1,
        status=StepStatus.FAILED,
        start_date=NOW,
        stop_date=NOW,
        error=error,
    )
    record = build_task_execution_record(attempt)
    closed, _ = task_execution_close_attributes(StepStatus.FAILED, NOW, error, "e-1")
    assert isinstance(closed, Record)
    assert record["errorMessageTruncated"] is True
    assert value_size(record["errorMessage"]) <= KEPT_BYTES
    assert record["errorMessage"] == closed["errorMessage"]
    assert [o.body for o in record.offloads] == [o.body for o in closed.offloads]
    assert record.offloads[0].body.decode() == error


def _step() -> PipelineExecution:
    return PipelineExecution(
        pipeline_execution_id="p-1",
        workflow_execution_id="e-1",
        pipeline_database_id="db",
        pipeline_id="pipe",
        step_index=0,
        execution_type="python",
        input_file_arity="none",
        end_state=True,
        input_path="",
        output_files_path="executions/e-1/output/",
        output_preview_path="executions/e-1/output/preview/",
        output_metadata_path="executions/e-1/output/metadata/",
        auxiliary_path="executions/e-1/auxiliary/p-1/",
    )


def _registered(log: RegisteredLog, sub: RegisteredSubExecution) -> StepLists:
    """The step's lists at 50 entries each, as a registration writes them."""
    step = _step().model_copy(
        update={
            "registered_logs": tuple(log.model_copy(update={"label": f"{n}"}) for n in range(50)),
            "registered_sub_executions": tuple(
                sub.model_copy(update={"label": f"{n}"}) for n in range(50)
            ),
        }
    )
    return StepLists(step, 0, StepListsKind.REGISTERED)


def test_registered_lists_at_their_caps_in_four_byte_characters_still_fit() -> None:
    """50 logs and 50 sub-executions at their length caps (characters, not bytes) can pass
    400 KB in 4-byte characters: the registration write cuts the lists rather than fail."""
    log = RegisteredLog(
        log_group_arn="😀" * 1024,
        log_group_name="😀" * 512,
        log_stream_name="😀" * 512,
        log_stream_prefix="😀" * 512,
        stage_name="😀" * 80,
        label="😀" * 256,
        source_type="custom",
    )
    sub = RegisteredSubExecution(resource_type="😀" * 63, execution_arn="😀" * 1024)
    lists = _registered(log, sub)
    stored = dict(build_pipeline_execution_record(_step()))
    built = build_pipeline_execution_record(lists.step)
    whole_built = restore_item(built, {o.key: o.body for o in built.offloads}.__getitem__)
    whole_lists = {
        name: whole_built[name] for name in ("registeredLogs", "registeredSubExecutions")
    }
    assert item_size({**stored, **whole_lists}) > ITEM_SIZE_LIMIT

    values, removed = step_lists_attributes(lists)
    assert item_size({**stored, **values}) <= ITEM_BUDGET - KEPT_BYTES
    assert values["registeredLogsTruncated"] is True
    assert "registeredLogsTruncated" not in removed
    bodies = {o.key: o.body for o in values.offloads}
    whole = restore_item({**stored, **values}, bodies.__getitem__)
    assert whole["registeredLogs"] == whole_lists["registeredLogs"]
    assert whole["registeredSubExecutions"] == whole_lists["registeredSubExecutions"]


def test_registered_lists_at_their_caps_in_ascii_fit_whole() -> None:
    log = RegisteredLog(
        log_group_arn="a" * 1024,
        log_group_name="g" * 512,
        log_stream_name="s" * 512,
        log_stream_prefix="p" * 512,
        stage_name="t" * 80,
        label="l" * 256,
        source_type="stateMachine",
    )
    sub = RegisteredSubExecution(resource_type="r" * 63, execution_arn="i" * 1024)
    values, removed = step_lists_attributes(_registered(log, sub))
    assert set(values) == {"registeredLogs", "registeredSubExecutions"}
    assert values.offloads == ()
    # written whole: any earlier cut of either list is undone
    assert "registeredLogsTruncated" in removed and "registeredLogsObjectKey" in removed


# -- the JSON a fitted item carries to the SQLite row --------------------------------------------


def _stored_json(item: dict[str, Any]) -> Any:
    from adapters.sqlite.schema import build_schema
    from adapters.sqlite.statements import TableSql
    from adapters.tables import ResourceKeys, TableNames

    sql = TableSql.render(build_schema(TableNames())[ResourceKeys.ARTIFACTS])
    return json.loads(sql.row(item)[-1])


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r.__setitem__("body", "changed"),
        lambda r: r.__delitem__("body"),
        lambda r: r.update(extra=1),
        lambda r: r.pop("body"),
        lambda r: r.popitem(),
        lambda r: r.setdefault("extra", 2),
        lambda r: r.__ior__({"extra": 3}),
        lambda r: r.clear(),
    ],
)
def test_a_fitted_item_changed_afterwards_is_stored_as_changed(change: Any) -> None:
    fitted = fit_item({"id": "e-1", "body": "short", "files": ["a"]}, _BUDGET, "e-1")
    assert _stored_json(fitted) == {"id": "e-1", "body": "short", "files": ["a"]}
    change(fitted)
    assert _stored_json(fitted) == dict(fitted)


def test_a_fitted_item_with_values_json_cannot_hold_is_still_fitted() -> None:
    # DynamoDB's numbers are Decimals: sized by their text, as before
    fitted = fit_item({"id": "e-1", "amount": Decimal("1.25")}, _BUDGET, "e-1")
    assert fitted == {"id": "e-1", "amount": Decimal("1.25")} and fitted.offloads == ()
