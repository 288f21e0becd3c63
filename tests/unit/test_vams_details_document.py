"""VAMS's details document from a run's details: results texts read from the object store,
bounded and flagged as VAMS does; input metadata split by scope; cut collections by VAMS's
names."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from adapters.local.object_store import FilesystemObjectStore
from application.result_texts import ResultTextReader
from domain.execution import (
    ExecutionDetails,
    OutputResult,
    StepDetails,
    StepInputMetadata,
    StepOutputs,
)
from domain.result_text import ResultText, text_of
from domain.truncation import TruncatedCollection
from domain.workflow import WorkflowDefinition
from entrypoints.vams_details import VamsDetailsAnswer
from tests.unit.test_records import a_step, an_execution

OUTPUT = "executions/e1/output/"


def _details(
    *results: OutputResult, metadata: tuple[StepInputMetadata, ...] = ()
) -> ExecutionDetails:
    step = StepDetails(
        step=a_step(end_state=True),
        input_metadata=metadata,
        outputs=StepOutputs(results=results),
    )
    return ExecutionDetails(execution=an_execution(), steps=(step,))


def _result(objects: FilesystemObjectStore, name: str, body: bytes) -> OutputResult:
    stored = objects.put_bytes(OUTPUT + name, body)
    return OutputResult(
        pipeline_execution_id="p1",
        workflow_execution_id="e1",
        relative_file_path=name,
        version_id=stored.version_id,
    )


def _results(details: ExecutionDetails) -> list[tuple[str, str, bool]]:
    document = VamsDetailsAnswer.of(details).dump()["message"]
    return [
        (r["relativeFilePath"], r["resultsContent"], r["resultsContentTruncated"])
        for r in document["outputs"]["results"]
    ]


def test_a_cut_never_splits_a_character_and_says_it_cut() -> None:
    body = "ab€".encode()  # the euro sign is three bytes
    assert text_of(body, 10) == ("ab€", False)
    assert text_of(body, 3) == ("ab", True)  # "€" does not fit: held back, not mangled
    assert text_of(b"\xff ok", 10) == ("\ufffd ok", False)


def test_each_results_text_is_read_at_its_version_up_to_the_bound(tmp_path: Path) -> None:
    objects = FilesystemObjectStore(tmp_path)
    short = _result(objects, "short.txt", b"all good\n")
    long = _result(objects, "long.txt", b"x" * 20)
    objects.put_bytes(OUTPUT + "short.txt", b"a later version, not the run's")

    details = ResultTextReader(objects, limit=8, budget=100).attach(_details(short, long))

    assert _results(details) == [
        ("short.txt", "all good", True),
        ("long.txt", "x" * 8, True),
    ]
    roomy = ResultTextReader(objects, limit=100, budget=100).attach(_details(short))
    assert _results(roomy) == [("short.txt", "all good\n", False)]


def test_what_the_budget_leaves_no_room_for_is_flagged_and_a_gone_version_is_empty(
    tmp_path: Path,
) -> None:
    objects = FilesystemObjectStore(tmp_path)
    first = _result(objects, "first.txt", b"12345")
    second = _result(objects, "second.txt", b"67890")
    gone = first.model_copy(update={"relative_file_path": "gone.txt"})

    details = ResultTextReader(objects, limit=5, budget=7).attach(_details(first, second, gone))

    assert _results(details) == [
        ("first.txt", "12345", False),
        ("second.txt", "67", True),
        ("gone.txt", "", False),
    ]


def test_texts_whose_replaced_bytes_outgrow_the_budget_leave_the_rows_after_them_empty(
    tmp_path: Path,
) -> None:
    """A byte that is not UTF-8 is shown as "\ufffd", three bytes of the answer: the budget can
    be spent past its end. What follows is then cut to nothing (a share below nothing once
    asked the store for a negative size, the filesystem's refusal showing the file as gone, and
    showed a row's own text but for its last bytes)."""
    objects = FilesystemObjectStore(tmp_path)
    binary = _result(objects, "binary.txt", b"\xff" * 4)  # 4 bytes read, 12 bytes shown
    after = _result(objects, "after.txt", b"0123456789")
    text = ResultText(relative_file_path="vams.txt", content="abcdefgh", truncated=False)
    vams = after.model_copy(update={"relative_file_path": "vams.txt", "stored_text": text})

    details = ResultTextReader(objects, limit=5, budget=6).attach(_details(binary, after, vams))

    assert _results(details) == [
        ("binary.txt", "\ufffd" * 4, False),
        ("after.txt", "", True),
        ("vams.txt", "", True),
    ]


def test_input_metadata_is_split_by_scope_with_its_attributes() -> None:
    def row(scope: str, asset_id: str, path: str) -> StepInputMetadata:
        return StepInputMetadata(
            pipeline_execution_id="p1",
            workflow_execution_id="e1",
            database_id="db",
            asset_id=asset_id,
            file_path=path,
            metadata=(("owner", "ann"), ("apiToken", "s3cr3t")),
            scope=scope,  # type: ignore[arg-type]
            attributes=(("color", "red"),),
        )

    document = VamsDetailsAnswer.of(
        _details(metadata=(row("asset", "a1", "/m.obj"), row("database", "", "/")))
    ).dump()["message"]

    (asset,) = document["inputMetadata"]
    (database,) = document["inputDatabaseMetadata"]
    assert (asset["assetId"], asset["filePath"], asset["scope"]) == ("a1", "/m.obj", "asset")
    assert (database["assetId"], database["filePath"], database["scope"]) == ("", "/", "database")
    assert asset["attributes"] == {"color": "red"}
    assert asset["metadata"]["owner"] == "ann"
    assert "s3cr3t" not in str(document)  # a secret's value by its name is withheld
    assert asset["pipelineId"] == database["pipelineId"] == "stats"


def test_a_cut_names_vams_s_collections_sorted_both_metadata_scopes_for_one_read() -> None:
    cuts = tuple(
        TruncatedCollection(collection=path, returned=1, total="more")
        for path in (
            "pipelineExecutions[p1].outputFiles",
            "inputs",
            "inputSelections",
            "pipelineExecutions[p1].inputMetadata",
        )
    )
    details = _details().model_copy(update={"truncated_collections": cuts})

    document = VamsDetailsAnswer.of(details).dump()["message"]

    # the selections are VAMS's inputFiles; the files they resolved to, wfx's own list
    assert document["truncatedCollections"] == [
        "inputDatabaseMetadata",
        "inputFiles",
        "inputMetadata",
        "outputs.files",
        "resolvedInputFiles",
    ]
    assert [page["collection"] for page in document["truncatedCollectionPages"]] == [
        cut.collection for cut in cuts
    ]


def test_a_workflow_not_found_is_named_by_vams_s_empty_fallback() -> None:
    shown = VamsDetailsAnswer.of(_details()).dump()["message"]
    assert (shown["workflowName"], shown["workflowDescription"]) == ("", "")

    run = an_execution()
    defined = WorkflowDefinition(
        database_id=run.workflow_database_id,
        workflow_id=run.workflow_id,
        description="what it does",
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        latest_version=2,
    )
    found = _details().model_copy(update={"workflow": defined})
    shown = VamsDetailsAnswer.of(found).dump()["message"]
    assert (shown["workflowName"], shown["workflowDescription"]) == (
        run.workflow_id,
        "what it does",
    )
