"""`wfx migrate v1 --source-table` on DynamoDB over HTTP (moto's server): the earlier table made
with VAMS 2.5's layout, scanned, migrated once; a table that is not there is named."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters.dynamodb.codec import to_wire
from conftest import restore_dynamodb_tables
from tests.e2e.cli import FAKE_AWS, Wfx, assert_bad_input
from tests.integration.moto_server import moto_server, served_client
from tests.integration.table_layout import create_earlier_table
from tests.v1_items import ROWS, old_items

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("cli-migrate-on-moto-server")]

EARLIER = "vams-2-5-executions"


@pytest.fixture(scope="module")
def endpoint(_pristine_dynamodb_tables: dict[str, Any]) -> Iterator[str]:
    # the tables taken first: made the first time in a mock_aws(), which empties the server's
    # backends
    with moto_server() as url:
        # wfx's tables, empty, as `wfx tables create` makes them (test_cli_on_moto_server's
        # subject; not the migration's)
        restore_dynamodb_tables(_pristine_dynamodb_tables)
        yield url


@pytest.fixture(scope="module")
def wfx(endpoint: str, tmp_path_factory: pytest.TempPathFactory) -> Wfx:
    client: Any = served_client("dynamodb", endpoint)
    create_earlier_table(client, EARLIER)
    for item in old_items(ROWS):
        client.put_item(TableName=EARLIER, Item=to_wire(item))
    home: Path = tmp_path_factory.mktemp("migrate") / "home"
    return Wfx(home, WFX_STORE="dynamodb", WFX_DYNAMODB_ENDPOINT=endpoint, **FAKE_AWS)


def test_the_earlier_table_is_migrated_from_dynamodb_once(wfx: Wfx) -> None:
    first = wfx.json("migrate", "v1", "--source-table", EARLIER, "--offline")
    again = wfx.json("migrate", "v1", "--source-table", EARLIER, "--offline")

    assert first["counts"]["migrated"] == len(ROWS)
    assert again["counts"]["alreadyMigrated"] == len(ROWS)
    listed = wfx.json("executions", "list")["Items"]
    assert sorted(r["workflowExecutionId"] for r in listed) == sorted(r[0] for r in ROWS)
    starts = [r["executionStartDate"] for r in listed]
    assert starts == sorted(starts, reverse=True)
    for row in ROWS:  # each shows its one step and where its output went
        shown = wfx.json("executions", "show", row[0])
        (step,) = shown["pipelines"]
        assert step["executionStatus"] == row[4]
        assert shown["configuration"]["outputAssetId"] == row[2]
    dateless = next(r for r in listed if r["workflowExecutionId"] == ROWS[4][0])
    assert dateless["startDateEstimated"] is True


def test_a_source_table_that_is_not_there_is_named(wfx: Wfx) -> None:
    outcome = wfx("migrate", "v1", "--source-table", "no-such-table")
    assert_bad_input(outcome, "--source-table", "no-such-table")
