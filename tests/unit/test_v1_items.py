"""The earlier table's items read as VAMS 2.5.x wrote them: `$` keys, month-first dates, the
attributes a migrated run keeps, and the rule each refused item broke."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from domain.errors import InvalidInputError
from domain.migration import (
    migrated_pipeline_execution_id,
    migrated_run,
    parse_v1_date,
    parse_v1_item,
)
from domain.statuses import ExecutionStatus
from tests.v1_items import BAD_ITEM, MIGRATED_AT, ROWS, old_items


def test_dates_are_read_month_first_even_when_the_day_could_be_a_month() -> None:
    assert parse_v1_date("03/04/2024, 09:30:00", "startDate") == datetime(
        2024, 3, 4, 9, 30, tzinfo=UTC
    )
    assert parse_v1_date("12/01/2023, 23:59:59", "stopDate") == datetime(
        2023, 12, 1, 23, 59, 59, tzinfo=UTC
    )
    assert parse_v1_date("", "startDate") is None


def test_a_date_in_no_known_form_is_refused_naming_the_attribute() -> None:
    with pytest.raises(InvalidInputError, match=r"^stopDate: '31/12/2024' is neither"):
        parse_v1_date("31/12/2024", "stopDate")


def test_every_dollar_is_dropped_from_the_keys() -> None:
    v1 = parse_v1_item(old_items(ROWS)[0])

    assert (v1.database_id, v1.asset_id) == ("db-a", "asset-1")
    assert (v1.workflow_database_id, v1.workflow_id) == ("GLOBAL", "mesh-convert")
    assert v1.item_key == f"db-a:asset-1:{ROWS[0][0]}"


def test_an_item_with_only_its_composite_keys_is_read_from_them() -> None:
    item = {k: v for k, v in old_items(ROWS)[0].items() if k not in ("databaseId", "assetId")}
    assert parse_v1_item(item).asset_id == "asset-1"


def test_keys_that_disagree_with_their_attributes_are_refused() -> None:
    item = old_items(ROWS)[0] | {"assetId": "asset-7"}
    with pytest.raises(InvalidInputError, match=r"^databaseId:assetId: .* does not match"):
        parse_v1_item(item)


def test_an_unknown_status_is_refused_naming_the_allowed_ones() -> None:
    with pytest.raises(InvalidInputError, match=r"^executionStatus: 'DONE' is not one of"):
        parse_v1_item(BAD_ITEM)


def test_the_pipeline_id_is_the_same_on_every_run_and_apart_per_execution() -> None:
    first = migrated_pipeline_execution_id(ROWS[0][0])
    assert first == migrated_pipeline_execution_id(ROWS[0][0])
    assert first != migrated_pipeline_execution_id(ROWS[1][0])


def test_a_failed_run_without_a_message_has_no_error_and_no_version_is_pinned() -> None:
    run = migrated_run(parse_v1_item(old_items(ROWS)[1]), migrated_at=MIGRATED_AT)

    assert run.execution.status is ExecutionStatus.FAILED
    # seed 000: executionError is a real error and cause, never the status name
    assert run.execution.execution_error is None
    assert [i.version_id for i in run.inputs] == [""]
    assert [i.input_asset_file_key for i in run.input_files] == ["/"]


@pytest.mark.parametrize("execution_id", [".", "..", "a/b"])
def test_an_execution_id_that_would_name_another_folder_is_refused(execution_id: str) -> None:
    """Migrated, the run could be neither deleted nor have its logs read."""
    item = old_items(ROWS)[0] | {"executionId": execution_id}
    with pytest.raises(InvalidInputError, match=r"^executionId: must not"):
        parse_v1_item(item)
