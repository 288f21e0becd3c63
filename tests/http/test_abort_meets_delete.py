"""An abort whose run another client deletes for good while the abort stops it: the abort answers
404 naming the run, as any request for a run no longer there does, and leaves no row behind.

Seen over a real `wfx serve` with an abort, a VAMS abort and two permanent deletes of one run
sent at once (1 in 6 tries): `pipeline execution <step id> not found in execution <id>`, a
step id the caller never sent. Here the delete lands at the same point every time: while the
abort stops the orchestrator."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from application.use_cases.delete_execution import DeleteExecutionCommand
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from entrypoints.dependency_injection import providers
from tests.http.conftest import ADMIN, DATABASE, Service

GATED = {
    "databaseId": DATABASE,
    "workflowId": "held",
    "steps": [{"pipelineId": "sign-off", "executionType": "approval", "approvers": ["carol"]}],
}


def launch_held(service: Service) -> str:
    """GATED published and launched by the admin: a run held open at its gate."""
    document = parse_workflow_document(yaml.safe_load(yaml.safe_dump(GATED)))
    service.container.publish_workflow_version().execute(
        PublishWorkflowVersionCommand(document=document, published_by=ADMIN)
    )
    launched = service.container.launch_execution().execute(
        LaunchExecutionCommand(workflow_database_id=DATABASE, workflow_id="held", user_id=ADMIN)
    )
    execution_id: str = launched.execution.workflow_execution_id
    return execution_id


class DeletedWhileStopping:
    """The orchestrator, but a second client's permanent delete lands while it stops a run."""

    def __init__(self, inner: Any, service: Service) -> None:
        self._inner, self._service = inner, service
        self._deleted = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def stop_execution(self, execution: Any, *args: Any, **kwargs: Any) -> Any:
        stopped = self._inner.stop_execution(execution, *args, **kwargs)
        if not self._deleted:
            self._deleted = True  # the delete's own abort (force) stops it through here too
            self._service.container.delete_execution().execute(
                DeleteExecutionCommand(
                    workflow_execution_id=execution.workflow_execution_id, force=True
                )
            )
        return stopped


@pytest.mark.parametrize("route", ["POST {run}/abort", "DELETE {run}"])
def test_an_abort_of_a_run_deleted_meanwhile_is_a_404_naming_the_run(
    service: Service, route: str
) -> None:
    execution_id = launch_held(service)
    orchestrator = service.container.orchestrator()
    service.container.orchestrator.override(
        providers.Object(DeletedWhileStopping(orchestrator, service))
    )
    method, path = route.format(run=f"/workflows/executions/{execution_id}").split()

    answer = service.client.request(
        method, path, headers=service.as_user(ADMIN, ("admin",)), json={}
    )

    assert answer.status_code == 404, answer.text
    assert answer.json()["message"] == f"execution {execution_id} not found"
    assert service.container.execution_store().list_steps(execution_id) == []
