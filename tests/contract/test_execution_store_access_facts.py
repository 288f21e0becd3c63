"""ExecutionStore contract: access_facts, what tier-2 authorization reads of a page of runs."""

from __future__ import annotations

from application.cost_entries import launch_cost_context, run_cost_context
from application.ports.executions import ExecutionStore
from domain.authorization import AccessFacts, AssetKey
from tests.contract.builders import a_launch, write_launch


def test_the_facts_name_the_workflow_the_assets_read_and_written_and_the_metadata_databases(
    execution_store: ExecutionStore,
) -> None:
    write_launch(
        execution_store,
        a_launch(
            "e1",
            workflow="db9:wf1",
            inputs=(("db1:scans", "a.obj"), ("db1:scans", "b.obj"), ("db2:more", "c.obj")),
            output_asset="db3:results",
        ),
    )
    write_launch(execution_store, a_launch("e2", inputs=(), output_asset=None))

    facts = execution_store.access_facts(["e2", "ghost", "e1", "e1"])

    assert set(facts) == {"e1", "e2"}
    first = facts["e1"]
    assert (first.workflow_database_id, first.workflow_id) == ("db9", "wf1")
    assert set(first.read_assets) == {
        AssetKey(database_id="db1", asset_id="scans"),
        AssetKey(database_id="db2", asset_id="more"),
    }
    assert len(first.read_assets) == 2  # one entry per asset, however many files
    assert first.written_asset == AssetKey(database_id="db3", asset_id="results")
    assert set(first.metadata_databases) == {"db1", "db2"}  # the launch took "units" from both
    assert facts["e2"] == AccessFacts(
        workflow_execution_id="e2", workflow_database_id="db1", workflow_id="wf1"
    )
    assert execution_store.access_facts([]) == {}


def test_the_cost_context_a_launch_knows_is_the_one_read_back(
    execution_store: ExecutionStore,
) -> None:
    records = a_launch(
        "e1",
        group="batch-7",
        inputs=(("db2:more", "c.obj"), ("db1:scans", "a.obj"), ("db1:scans", "b.obj")),
        output_asset="db1:scans",
    )
    write_launch(execution_store, records)

    known = launch_cost_context(records)

    assert known == run_cost_context(execution_store, "e1")
    assert known.asset_keys == ("db1:scans", "db2:more")


def test_a_runs_assets_are_its_facts_assets_read_with_none_of_its_steps(
    execution_store: ExecutionStore,
) -> None:
    records = a_launch(
        "e1", inputs=(("db2:more", "c.obj"), ("db1:scans", "a.obj")), output_asset="db3:results"
    )
    write_launch(execution_store, records)
    write_launch(execution_store, a_launch("e2", inputs=(), output_asset=None))
    facts = execution_store.access_facts(["e1"])["e1"]

    assert execution_store.run_assets("e1") == (facts.read_assets, facts.written_asset)
    assert execution_store.run_assets("e2") == ((), None)
    assert execution_store.run_assets("ghost") == ((), None)
    # the main row in hand: the same context, the workflow and group taken from it
    execution = execution_store.get_execution("e1")
    assert run_cost_context(execution_store, "e1", execution) == launch_cost_context(records)
