"""The details name the collections they cut as VAMS's details do."""

from __future__ import annotations

from entrypoints.responses import vams_collection_names


def test_a_steps_rows_are_named_as_the_runs_and_each_name_is_said_once() -> None:
    cut = (
        "inputSelections",
        "inputs",
        "pipelineExecutions[s1].outputFiles",
        "pipelineExecutions[s2].outputFiles",
        "pipelineExecutions[s1].outputMetadata",
        "pipelineExecutions[s1].outputResults",
        "pipelineExecutions[s1].inputMetadata",
        "pipelineExecutions",
        "pipelineExecutions[s1].registeredLogs",
    )
    assert vams_collection_names(cut) == (
        "inputFiles",
        "resolvedInputFiles",
        "outputs.files",
        "outputs.metadata",
        "outputs.results",
        "inputMetadata",
        "pipelines",
        "pipelines.registeredLogs",
    )


def test_nothing_cut_names_nothing() -> None:
    assert vams_collection_names(()) == ()
