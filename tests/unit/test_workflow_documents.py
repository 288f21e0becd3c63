"""Workflow files: strict keys, clear errors naming the field and the rule."""

import pytest

from application.workflow_documents import parse_workflow_document
from domain.errors import InvalidInputError

VALID = {
    "databaseId": "demo",
    "workflowId": "mesh",
    "steps": [
        {"pipelineId": "stats", "executionType": "python", "handler": "pkg.mod:fn"},
        {
            "pipelineId": "preview",
            "executionType": "command",
            "command": ["echo"],
            "inputFileArity": "none",
        },
    ],
}


def test_a_valid_document_parses() -> None:
    document = parse_workflow_document(VALID)
    assert [s.pipeline_id for s in document.steps] == ["stats", "preview"]


def test_an_unknown_key_is_named() -> None:
    broken = {**VALID, "steps": [{**VALID["steps"][0], "hanlder": "x"}]}  # type: ignore[dict-item]
    with pytest.raises(InvalidInputError, match=r"steps\[0\]\.hanlder: unknown key"):
        parse_workflow_document(broken)


def test_a_missing_key_is_named() -> None:
    with pytest.raises(InvalidInputError, match="workflowId: required"):
        parse_workflow_document({"databaseId": "demo", "steps": VALID["steps"]})


def test_a_bad_arity_is_named() -> None:
    broken = {**VALID, "steps": [{**VALID["steps"][0], "inputFileArity": "two"}]}  # type: ignore[dict-item]
    with pytest.raises(InvalidInputError, match=r"steps\[0\]\.inputFileArity"):
        parse_workflow_document(broken)


def test_a_top_level_list_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="expected a mapping"):
        parse_workflow_document(["not", "a", "mapping"])


def test_a_python_step_without_a_handler_is_refused_naming_the_step() -> None:
    broken = {**VALID, "steps": [{"pipelineId": "x", "executionType": "python"}]}
    with pytest.raises(InvalidInputError, match=r"^steps\[0\]: handler: a python step needs"):
        parse_workflow_document(broken)
