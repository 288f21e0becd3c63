"""A publish that loses every round to rival publishers of the same workflow (on SQLite and
DynamoDB on moto): after its tries it answers a conflict the caller can retry (HTTP 409, one
line on the CLI), never a bare RuntimeError (a 500), and nothing of it is stored."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.system import SystemClock
from application.use_cases.publish_workflow_version import (
    PublishWorkflowVersion,
    PublishWorkflowVersionCommand,
)
from application.workflow_documents import parse_workflow_document
from domain.errors import ConflictError


def _command(description: str) -> PublishWorkflowVersionCommand:
    document = {
        "databaseId": "race",
        "workflowId": "wf",
        "description": description,
        "steps": [{"pipelineId": "step", "executionType": "command", "command": ["true"]}],
    }
    return PublishWorkflowVersionCommand(
        document=parse_workflow_document(document), published_by="loser"
    )


class _RivalFirst:
    """The definitions port, through which a rival publish of the same workflow lands between
    each read of the definition and this publisher's conditional write."""

    def __init__(self, definitions: Any, rival: PublishWorkflowVersion) -> None:
        self._definitions, self._rival = definitions, rival
        self.rivals = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._definitions, name)

    def publish(self, definition: Any, version: Any) -> bool:
        self.rivals += 1
        self._rival.execute(_command(f"rival {self.rivals}"))
        return bool(self._definitions.publish(definition, version))


@pytest.mark.parametrize("backend", ["sqlite_file", "dynamodb"])
def test_a_publish_that_always_loses_the_race_answers_a_conflict(
    backend: str, request: pytest.FixtureRequest
) -> None:
    catalog = request.getfixturevalue(f"{backend}_workflow_catalog")
    definitions = request.getfixturevalue(f"{backend}_workflow_definitions")
    rival = PublishWorkflowVersion(definitions, catalog, SystemClock())
    contended = _RivalFirst(definitions, rival)

    with pytest.raises(ConflictError, match=r"race/wf: .*try again"):
        PublishWorkflowVersion(contended, catalog, SystemClock()).execute(_command("mine"))

    latest = definitions.find_definition("race", "wf").latest_version
    assert latest == contended.rivals  # every number is a rival's
    descriptions = {catalog.get_version("race", "wf", n).description for n in range(1, latest + 1)}
    assert "mine" not in descriptions
