"""`wfx workflows list|show|versions`: the definitions, one workflow, its versions, page by page."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.cli import USER, Wfx

# One worker for the module under xdist: the published home is set up once.
pytestmark = pytest.mark.xdist_group("e2e-cli-workflows-list")


def _publish(wfx: Wfx, database_id: str, workflow_id: str, revision: int = 1) -> None:
    """A one-step workflow; a new revision changes its command, so it publishes a new version."""
    document = {
        "databaseId": database_id,
        "workflowId": workflow_id,
        "description": f"{workflow_id} revision {revision}",
        "steps": [
            {
                "pipelineId": "step",
                "executionType": "command",
                "command": [sys.executable, "-c", f"print({revision})"],
                "inputFileArity": "none",
            }
        ],
    }
    path = wfx.home / f"{database_id}-{workflow_id}-{revision}.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    wfx.ok("workflows", "publish", str(path))


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Wfx:
    """demo/a at version 2, demo/b, and demo2/a: "demo" is a prefix of another database id."""
    wfx = Wfx(tmp_path_factory.mktemp("catalog") / "home")
    _publish(wfx, "demo2", "a")
    _publish(wfx, "demo", "b")
    _publish(wfx, "demo", "a")
    _publish(wfx, "demo", "a", revision=2)
    return wfx


def _keys(page: dict[str, Any]) -> list[str]:
    """Each item as "db/wf@N": a version's number, or a definition's latest."""
    keys = []
    for v in page["Items"]:
        number = v.get("workflowVersion", v.get("latestVersion"))
        keys.append(f"{v['workflowDatabaseId']}/{v['workflowId']}@{number}")
    return keys


def test_the_list_gives_each_workflow_definition_at_its_latest_version_in_order(
    published: Wfx,
) -> None:
    page = published.json("workflows", "list")

    assert _keys(page) == ["demo/a@2", "demo/b@1", "demo2/a@1"]
    assert page["NextToken"] is None
    first = page["Items"][0]
    assert first["description"] == "a revision 2"
    assert first["ownerUserId"] == USER
    assert first["createdDate"].endswith("Z")
    assert "workflowListPartition" not in first  # storage keys never leave


def test_show_gives_the_definition_a_versions_step_definitions_and_the_versions(
    published: Wfx,
) -> None:
    latest = published.json("workflows", "show", "demo/a")
    first = published.json("workflows", "show", "demo/a", "--version", "1")

    assert (latest["latestVersion"], latest["version"]["workflowVersion"]) == (2, 2)
    assert _keys(latest) == ["demo/a@2", "demo/a@1"]
    (step,) = first["version"]["steps"]
    assert (step["stepDefinitionId"], step["stepIndex"]) == ("demo:a:1:0", 0)
    assert step["command"][-1] == "print(1)"
    shown = published.ok("workflows", "show", "demo/a").stdout
    assert "Version 2" in shown and "demo/step" in shown and USER in shown


def test_show_of_an_unknown_version_is_one_error_line(published: Wfx) -> None:
    outcome = published("workflows", "show", "demo/a", "--version", "9")

    assert outcome.code != 0
    assert outcome.stderr_lines == ["error: workflow demo/a version 9 not found"]


def test_paging_the_list_gives_each_workflow_once(published: Wfx) -> None:
    first = published.json("workflows", "list", "--limit", "2")
    second = published.json(
        "workflows", "list", "--limit", "2", "--starting-token", first["NextToken"]
    )

    assert _keys(first) + _keys(second) == ["demo/a@2", "demo/b@1", "demo2/a@1"]
    assert second["NextToken"] is None


def test_the_database_filter_takes_only_that_database(published: Wfx) -> None:
    assert _keys(published.json("workflows", "list", "--database", "demo")) == [
        "demo/a@2",
        "demo/b@1",
    ]


def test_the_versions_of_a_workflow_come_newest_first(published: Wfx) -> None:
    page = published.json("workflows", "versions", "demo/a")

    assert _keys(page) == ["demo/a@2", "demo/a@1"]
    assert page["NextToken"] is None


def test_the_table_names_each_workflow_and_the_next_page(published: Wfx) -> None:
    shown = published.ok("workflows", "list", "--limit", "2").stdout

    assert "demo/a" in shown and "demo/b" in shown and "demo2/a" not in shown
    assert "Next page: --starting-token " in shown


def test_an_unknown_workflow_is_one_error_line(published: Wfx) -> None:
    outcome = published("workflows", "versions", "demo/nope")

    assert outcome.code != 0
    assert outcome.stderr_lines == ["error: workflow demo/nope not found"]


def test_a_tampered_token_is_refused_naming_it(published: Wfx) -> None:
    outcome = published("workflows", "list", "--starting-token", "bm90IGEgdG9rZW4")

    assert outcome.code == 2
    assert outcome.stderr_lines == ["error: startingToken: not a token issued by this list"]


def test_a_fresh_home_lists_no_workflows(tmp_path: Path) -> None:
    wfx = Wfx(tmp_path / "home")

    assert wfx.json("workflows", "list") == {"Items": [], "NextToken": None}
    assert wfx.ok("workflows", "list").stdout.strip() == "No workflows."
