"""RunArchive contract: a run's items out and back in, store-neutral, never over stored ones."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from adapters.run_records import build_execution_record
from adapters.tables import TableNames
from application.ports.executions import ExecutionStore, ListScope
from application.ports.files import ObjectStore
from application.ports.migration import (
    ArchivedItem,
    ArchivedRun,
    KeptRun,
    RunArchive,
    RunRefusedError,
)
from application.use_cases.export_executions import ExportExecutions, ExportExecutionsCommand
from domain.errors import ExecutionNotFoundError
from tests.contract.builders import (
    a_launch,
    a_version,
    an_execution,
    at,
    publish,
    some_outputs,
    write_launch,
)
from tests.contract.conftest import BACKENDS

Backend = tuple[ExecutionStore, RunArchive, ObjectStore]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    request.getfixturevalue(f"{request.param}_workflow_definitions").create_tables()
    return (
        request.getfixturevalue(f"{request.param}_execution_store"),
        request.getfixturevalue(f"{request.param}_run_archive"),
        request.getfixturevalue("body_object_store"),
    )


def _tables(run: ArchivedRun) -> list[str]:
    return [archived.table for archived in run.items]


def test_a_run_exports_every_row_with_its_main_row_last(backend: Backend) -> None:
    store, archive, _ = backend
    write_launch(store, a_launch("r1"))
    store.add_step_outputs(some_outputs("r1", 0))

    run = archive.export_run("r1")

    tables = _tables(run)
    assert tables[-1] == "WORKFLOW_EXECUTIONS" and tables.count("WORKFLOW_EXECUTIONS") == 1
    assert {
        "PIPELINE_EXECUTIONS",
        "PIPELINE_INPUT_CONFIGURATION",
        "PIPELINE_INPUT_METADATA",
        "PIPELINE_OUTPUT_FILES",
        "PIPELINE_OUTPUT_METADATA",
        "PIPELINE_OUTPUT_RESULTS",
        "PIPELINE_LOGS",
        "ARTIFACTS",
        "WORKFLOW_EXECUTION_INPUTS",
        "RESOLVED_INPUT_FILES",
        "WORKFLOW_EXECUTION_CONFIGURATION",
        "EXECUTION_EVENTS",
    } <= set(tables)
    assert tables.count("PIPELINE_EXECUTIONS") == 2


def test_an_unknown_run_is_not_found(backend: Backend) -> None:
    with pytest.raises(ExecutionNotFoundError):
        backend[1].export_run("nope")


def _every_type() -> dict[str, Any]:
    item = build_execution_record(an_execution("t1", start=at(7)))
    return item | {
        "aString": "x é ✓",
        "anEmptyString": "",
        "anInt": 7,
        "aNegative": -3,
        "aZero": 0,
        "aFloat": 2.5,
        "aWholeFloat": 2.0,  # DynamoDB has one number type: it may come back as the int 2
        "aBigInt": 12345678901234567,
        "aTrue": True,
        "aFalse": False,
        "aNull": None,
        "aList": [1, "two", [3.5], {"k": False}, None],
        "anEmptyList": [],
        "aMap": {"nested": {"n": 0, "s": ""}, "l": [True]},
        "anEmptyMap": {},
    }


def test_every_attribute_type_comes_back_as_it_went_in(backend: Backend) -> None:
    store, archive, _ = backend
    item = _every_type()
    assert "executionGroupId" not in item  # a sparse key, absent

    imported = archive.import_run(ArchivedRun("t1", (ArchivedItem("WORKFLOW_EXECUTIONS", item),)))

    assert imported.written == 1
    (exported,) = archive.export_run("t1").items
    assert dict(exported.item) == item
    kinds = [type(exported.item[name]) for name in item if name != "aWholeFloat"]
    assert kinds == [type(item[name]) for name in item if name != "aWholeFloat"]
    assert "executionGroupId" not in exported.item
    assert store.get_execution("t1").execution_start_date == at(7)
    page = store.list_executions(ListScope.ALL, None, 10, None)
    assert [e.workflow_execution_id for e in page.items] == ["t1"]


def test_a_second_import_writes_nothing_and_says_so(backend: Backend) -> None:
    store, archive, _ = backend
    write_launch(store, a_launch("r1"))
    run = archive.export_run("r1")
    store.delete_execution("r1")

    first = archive.import_run(run)
    second = archive.import_run(run)

    assert first.written == len(run.items) and first.unchanged == 0
    assert (second.written, second.unchanged, second.conflicts) == (0, len(run.items), ())
    assert archive.differences(run) == []
    assert archive.export_run("r1") == run


def test_an_import_never_overwrites_a_stored_item_and_verify_names_it(backend: Backend) -> None:
    store, archive, _ = backend
    write_launch(store, a_launch("r1"))
    run = archive.export_run("r1")
    main = dict(run.items[-1].item) | {"executionStatus": "FAILED", "extra": 1}
    changed = replace(run, items=(*run.items[:-1], ArchivedItem("WORKFLOW_EXECUTIONS", main, 9)))

    imported = archive.import_run(changed)

    assert imported.written == 0
    (kept,) = imported.conflicts
    assert isinstance(kept, KeptRun) and kept.main_row.startswith("WORKFLOW_EXECUTIONS")
    assert store.get_execution("r1").status.value == "RUNNING"
    (difference,) = archive.differences(changed)
    assert difference.startswith("line 9: WORKFLOW_EXECUTIONS")
    assert difference.endswith("differs in executionStatus, extra")


def test_a_missing_item_is_named_by_verify(backend: Backend) -> None:
    store, archive, _ = backend
    write_launch(store, a_launch("r1"))
    run = archive.export_run("r1")
    store.delete_execution("r1")

    differences = archive.differences(run)

    assert differences and all("not stored" in line for line in differences)
    assert any(line.startswith("WORKFLOW_EXECUTIONS") for line in differences)


def test_runs_are_listed_oldest_first_from_a_start_date(backend: Backend) -> None:
    store, archive, _ = backend
    for run_id, minutes in (("r3", 3), ("r1", 1), ("r2", 2)):
        write_launch(store, a_launch(run_id, start=at(minutes)))

    everything, from_two, none = (archive.list_runs(s) for s in (None, at(2), at(9)))

    assert (everything.count(), list(everything.ids)) == (3, ["r1", "r2", "r3"])
    assert (from_two.count(), list(from_two.ids)) == (2, ["r2", "r3"])
    assert (none.count(), list(none.ids)) == (0, [])


@pytest.fixture(params=BACKENDS)
def paged(request: pytest.FixtureRequest) -> tuple[ExecutionStore, RunArchive]:
    """A store and its archive reading the run list two runs a page."""
    backend = request.param
    request.getfixturevalue(f"{backend}_workflow_definitions").create_tables()
    store = request.getfixturevalue(f"{backend}_execution_store")
    if backend == "dynamodb":
        from adapters.dynamodb.run_archive import DynamoDbRunArchive

        client, tables = (
            request.getfixturevalue(f) for f in ("moto_dynamodb_client", "dynamodb_table_names")
        )
        return store, DynamoDbRunArchive(client, tables, page_size=2)
    from adapters.sqlite.run_archive import SqliteRunArchive

    database = request.getfixturevalue(f"{backend}_database")
    return store, SqliteRunArchive(database, TableNames(), page_size=2)


def test_the_run_list_is_walked_in_pages_oldest_first_runs_of_one_start_by_id(
    paged: tuple[ExecutionStore, RunArchive],
) -> None:
    store, archive = paged
    # five runs of one start second across three pages of two, one run before and one after
    for run_id, minutes in (("z", 5), ("e", 1), ("c", 1), ("a", 0), ("d", 1), ("b", 1), ("f", 1)):
        write_launch(store, a_launch(run_id, start=at(minutes)))

    listed = archive.list_runs(None)

    assert listed.count() == 7
    assert list(listed.ids) == ["a", "b", "c", "d", "e", "f", "z"]


def test_a_walk_leaves_out_runs_started_after_the_listing_and_deleted_before_their_page(
    paged: tuple[ExecutionStore, RunArchive],
) -> None:
    store, archive = paged
    for number in range(8):
        write_launch(store, a_launch(f"r{number}", start=at(number)))
    listed = archive.list_runs(at(1))
    ids = iter(listed.ids)
    walked = [next(ids), next(ids)]  # the first page (a walk may have read the next one)

    store.delete_execution("r6")  # two pages on
    write_launch(store, a_launch("later", start=at(9)))  # launched while the export walks
    walked += ids

    # counted now: r6 gone, and the later run past the listing's newest start
    assert listed.count() == 6
    assert walked == ["r1", "r2", "r3", "r4", "r5", "r7"]


def _a_run_with_a_body(
    store: ExecutionStore, archive: RunArchive
) -> tuple[ArchivedRun, tuple[str, ...]]:
    """Run r1 launched with selections past the item budget (its configuration's offloaded to a
    body), exported; and its selections."""
    launch = a_launch("r1")
    selections = tuple(f"db1:asset1/{'folder/' * 40}{n}.obj" for n in range(2000))
    configuration = launch.configuration.model_copy(update={"input_selections": selections})
    write_launch(store, launch.model_copy(update={"configuration": configuration}))
    return archive.export_run("r1"), selections


def test_an_offloaded_body_travels_with_its_run(backend: Backend) -> None:
    store, archive, objects = backend
    run, selections = _a_run_with_a_body(store, archive)
    assert len(run.bodies) == 1 and run.bodies[0].key.startswith("executions/r1/bodies/")
    store.delete_execution("r1")
    objects.delete_prefix("executions/r1/")
    assert any("object" in line for line in archive.differences(run))

    archive.import_run(run)

    stored = store.get_configuration("r1")
    assert stored is not None and stored.input_selections == selections
    assert archive.differences(run) == []


def test_what_several_runs_name_is_exported_once_with_the_first(
    backend: Backend, request: pytest.FixtureRequest
) -> None:
    store, archive, _ = backend
    backend_name = request.node.callspec.params["backend"]
    publish(request.getfixturevalue(f"{backend_name}_workflow_definitions"), a_version(1))
    for run_id, minutes in (("r1", 1), ("r2", 2)):
        write_launch(store, a_launch(run_id, start=at(minutes)))
    exported = ExportExecutions(archive).execute(ExportExecutionsCommand())
    first, second = exported

    shared = {"WORKFLOW_DEFINITIONS", "WORKFLOW_VERSIONS", "STEP_DEFINITIONS"}
    assert shared <= set(_tables(first))
    assert not shared & set(_tables(second))
    assert all(item.shared for item in first.items if item.table in shared)


class _QueriesSeen:
    """The DynamoDB client, keeping each Query's Select (ITEMS when it names none)."""

    def __init__(self, client: Any) -> None:
        self._client, self.selects = client, list[str]()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def query(self, **request: Any) -> Any:
        self.selects.append(request.get("Select", "ITEMS"))
        return self._client.query(**request)


def test_an_export_reads_the_run_list_once_and_counts_it_only_when_asked(
    request: pytest.FixtureRequest,
) -> None:
    """The count is a second read of the date index (on DynamoDB, every main row again, in
    pages of 1 MB): only a progress bar needs it, the file does not."""
    from adapters.dynamodb.run_archive import DynamoDbRunArchive

    request.getfixturevalue("dynamodb_workflow_definitions").create_tables()
    store = request.getfixturevalue("dynamodb_execution_store")
    client: Any = _QueriesSeen(request.getfixturevalue("moto_dynamodb_client"))
    tables = request.getfixturevalue("dynamodb_table_names")
    for number in range(5):
        write_launch(store, a_launch(f"r{number}", start=at(number)))
    exported = ExportExecutions(DynamoDbRunArchive(client, tables, page_size=2)).execute(
        ExportExecutionsCommand()
    )

    assert [run.workflow_execution_id for run in exported] == [f"r{n}" for n in range(5)]
    assert "COUNT" not in client.selects and exported.total is None
    assert exported.count() == 5
    assert client.selects.count("COUNT") == 1


def test_a_run_deleted_after_it_was_listed_is_skipped(backend: Backend) -> None:
    store, archive, _ = backend
    for run_id, minutes in (("r1", 1), ("r2", 2)):
        write_launch(store, a_launch(run_id, start=at(minutes)))
    exported = ExportExecutions(archive).execute(ExportExecutionsCommand())
    store.delete_execution("r1")

    assert [run.workflow_execution_id for run in exported] == ["r2"]


def test_importing_a_published_version_again_writes_nothing(
    backend: Backend, request: pytest.FixtureRequest
) -> None:
    store, archive, _ = backend
    backend_name = request.node.callspec.params["backend"]
    publish(request.getfixturevalue(f"{backend_name}_workflow_definitions"), a_version(1))
    write_launch(store, a_launch("r1"))
    run = archive.export_run("r1")
    assert "WORKFLOW_VERSIONS" in _tables(run)

    again = archive.import_run(run)  # the version's immutability guard does not refuse it

    assert (again.written, again.unchanged, again.conflicts) == (0, len(run.items), ())


def _as_r2(value: Any) -> Any:
    if value == "r1":
        return "r2"
    if isinstance(value, str) and value.startswith("executions/r1/"):  # a body's key
        return value.replace("executions/r1/", "executions/r2/", 1)
    return value


def _as_run_r2(run: ArchivedRun) -> tuple[tuple[ArchivedItem, ...], int]:
    """The run's own items as run r2's, its step ids kept; and the line of its step row."""
    items = tuple(
        replace(i, item={n: _as_r2(v) for n, v in i.item.items()}, line=n)
        for n, i in enumerate(run.items, start=2)
        if not i.shared
    )
    return items, next(i.line for i in items if i.table == "PIPELINE_EXECUTIONS")


def test_a_run_naming_a_step_stored_for_another_run_is_refused_before_anything_is_written(
    backend: Backend,
) -> None:
    """Rows keyed by the step alone would be both runs': deleting one would take the other's."""
    store, archive, _ = backend
    write_launch(store, a_launch("r1"))
    run = archive.export_run("r1")
    items, step_line = _as_run_r2(run)

    with pytest.raises(RunRefusedError, match="is stored as a step of run 'r1'") as refused:
        archive.import_run(ArchivedRun("r2", items))

    assert refused.value.line == step_line
    with pytest.raises(ExecutionNotFoundError):
        archive.export_run("r2")
    assert archive.export_run("r1") == run


def test_a_step_another_run_took_after_the_look_is_refused_by_the_write_and_taken_back(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The look at the steps' ids (`_refuse_steps_of_other_runs`) ran before another run's
    import wrote one of them: the write itself must still refuse, leaving nothing of the run."""
    store, archive, _ = backend
    write_launch(store, a_launch("r1"))
    run = archive.export_run("r1")
    items, step_line = _as_run_r2(run)
    monkeypatch.setattr(archive, "_refuse_steps_of_other_runs", lambda run: None)

    with pytest.raises(RunRefusedError, match="is stored as a step of run 'r1'") as refused:
        archive.import_run(ArchivedRun("r2", items))

    assert refused.value.line == step_line
    steps = ArchivedRun("r2", tuple(i for i in items if i.table == "PIPELINE_EXECUTIONS"))
    assert all(line.endswith("not stored") for line in archive.differences(steps))
    with pytest.raises(ExecutionNotFoundError):
        archive.export_run("r2")
    assert archive.export_run("r1") == run


def test_the_bodies_a_refused_import_stored_are_deleted_and_the_other_runs_kept(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Refused by the write of its step (another run took the id after the look): the bodies it
    stored before, under its own run's prefix, would be named by nothing."""
    store, archive, objects = backend
    run, _ = _a_run_with_a_body(store, archive)
    items, _ = _as_run_r2(run)
    bodies = tuple(replace(b, key=_as_r2(b.key)) for b in run.bodies)
    assert bodies and all(b.key.startswith("executions/r2/bodies/") for b in bodies)
    monkeypatch.setattr(archive, "_refuse_steps_of_other_runs", lambda run: None)
    stored: list[str] = []
    put_bytes = objects.put_bytes

    def recorded(key: str, body: bytes) -> Any:
        stored.append(key)
        return put_bytes(key, body)

    monkeypatch.setattr(objects, "put_bytes", recorded)

    with pytest.raises(RunRefusedError, match="is stored as a step of run 'r1'"):
        archive.import_run(ArchivedRun("r2", items, bodies))

    assert stored == [b.key for b in bodies]  # stored first, then deleted
    assert objects.list_latest("executions/r2/") == []
    assert [o.key for o in objects.list_latest("executions/r1/")] == [b.key for b in run.bodies]
    assert archive.export_run("r1") == run


def test_a_refused_imports_body_keyed_other_than_by_its_digest_is_left(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file's key that does not end in its body's digest could be a prefix of other keys (here
    of the run's own body): deleting it as a prefix could take them, so it is left."""
    store, archive, objects = backend
    run, _ = _a_run_with_a_body(store, archive)
    items, _ = _as_run_r2(run)
    body = replace(run.bodies[0], key=_as_r2(run.bodies[0].key))
    cut = replace(body, key=body.key[:-4])  # a prefix of the digest key
    monkeypatch.setattr(archive, "_refuse_steps_of_other_runs", lambda run: None)

    with pytest.raises(RunRefusedError, match="is stored as a step of run 'r1'"):
        archive.import_run(ArchivedRun("r2", items, (body, cut)))

    assert [o.key for o in objects.list_latest("executions/r2/")] == [cut.key]


def test_a_run_stored_otherwise_gets_none_of_the_files_rows_but_its_shared_ones(
    backend: Backend,
) -> None:
    """Another state of the run: its rows are not mixed in. What it names for the file's later
    runs (a definition) is still written."""
    store, archive, _ = backend
    write_launch(store, a_launch("r1"))
    run = archive.export_run("r1")
    event = {"workflowExecutionId": "r1", "sequenceNumber": 99, "eventType": "ExecutionCompleted"}
    definition = {"workflowDatabaseId:workflowId": "db9:wf9", "workflowId": "wf9"}
    main = dict(run.items[-1].item) | {"executionStatus": "SUCCEEDED"}
    later = replace(
        run,
        items=(
            ArchivedItem("WORKFLOW_DEFINITIONS", definition, shared=True),
            *run.items[:-1],
            ArchivedItem("EXECUTION_EVENTS", event),
            ArchivedItem("WORKFLOW_EXECUTIONS", main),
        ),
    )

    imported = archive.import_run(later)

    assert (imported.written, imported.unchanged) == (1, 0)
    (conflict,) = imported.conflicts
    assert isinstance(conflict, KeptRun)
    assert conflict.main_row.startswith("WORKFLOW_EXECUTIONS workflowExecutionId='r1'")
    assert conflict.items == len(run.items) + 1
    assert archive.export_run("r1") == run
    assert archive.differences(ArchivedRun("r1", (later.items[0],))) == []


def test_a_version_past_the_stored_workflows_latest_is_not_written(
    backend: Backend, request: pytest.FixtureRequest
) -> None:
    """Stored, it would take the number the next publish claims, and refuse it."""
    store, archive, _ = backend
    backend_name = request.node.callspec.params["backend"]
    publish(request.getfixturevalue(f"{backend_name}_workflow_definitions"), a_version(1))
    write_launch(store, a_launch("r1"))
    versioned = [
        i
        for i in archive.export_run("r1").items
        if i.table in ("WORKFLOW_VERSIONS", "STEP_DEFINITIONS")
    ]
    assert versioned

    def later(item: dict[str, Any]) -> dict[str, Any]:
        step_key = "workflowDatabaseId:workflowId:workflowVersion"
        if step_key in item:
            item[step_key] = item[step_key].rsplit(":", 1)[0] + ":2"
        return item | {"workflowVersion": 2}

    run = ArchivedRun("r1", tuple(replace(i, item=later(dict(i.item))) for i in versioned))

    imported = archive.import_run(run)

    assert (imported.written, imported.unchanged) == (0, 0)
    assert len(imported.conflicts) == len(versioned)
    assert all(
        isinstance(line, str) and "version 2 is past the latest" in line
        for line in imported.conflicts
    )
    assert all(line.endswith("not stored") for line in archive.differences(run))
