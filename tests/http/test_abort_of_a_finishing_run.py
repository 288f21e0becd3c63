"""An abort of a run whose completion has begun finishing it (its results going into its output
asset): a 409 naming "finishing", on wfx's route and VAMS's, and the run stays as it was, with
no abort request stored."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from dependency_injector import providers

from application.ports.executions import ExecutionStore
from application.run_writes import end_run
from application.use_cases.abort_execution import (
    AbortExecution,
    AbortExecutionCommand,
    AbortResult,
)
from domain.errors import ExecutionNotFoundError
from domain.run_write import RunWrite
from domain.statuses import ExecutionStatus
from tests.http.conftest import ADMIN, Service
from tests.http.test_abort_meets_delete import launch_held


def _a_finishing_run(service: Service) -> str:
    execution_id = launch_held(service)
    store = service.container.execution_store()
    change = store.get_run(execution_id).begin_finishing(datetime(2026, 12, 5, 9, 0, tzinfo=UTC))
    assert change is not None and store.commit(RunWrite.of(execution_id, change=change))
    return execution_id


@pytest.mark.parametrize("route", ["POST {run}/abort", "DELETE {run}"])
def test_an_abort_of_a_finishing_run_is_a_409_naming_finishing(
    service: Service, route: str
) -> None:
    execution_id = _a_finishing_run(service)
    store = service.container.execution_store()
    before = store.get_execution(execution_id)
    method, path = route.format(run=f"/workflows/executions/{execution_id}").split()

    answer = service.client.request(
        method, path, headers=service.as_user(ADMIN, ("admin",)), json={}
    )

    assert answer.status_code == 409, answer.text
    assert answer.json()["message"] == (
        f"execution {execution_id} is finishing (its results have been going into its output "
        "asset since 2026-12-05T09:00:00Z): it can no longer be aborted"
    )
    assert store.get_execution(execution_id) == before


def test_a_forced_permanent_delete_of_a_finishing_run_is_a_409_saying_to_wait(
    service: Service,
) -> None:
    execution_id = _a_finishing_run(service)
    store = service.container.execution_store()
    before = store.get_execution(execution_id)

    answer = service.client.request(
        "DELETE",
        f"/workflows/executions/{execution_id}/permanent?force=true",
        headers=service.as_user(ADMIN, ("admin",)),
        json={"confirmDelete": True},
    )

    assert answer.status_code == 409, answer.text
    assert answer.json()["message"] == (
        f"execution {execution_id} is finishing (its results have been going into its output "
        "asset since 2026-12-05T09:00:00Z): wait for it to end, then delete it"
    )
    assert store.get_execution(execution_id) == before


class _AbortThatLosesToTheCompletion:
    """The forced delete's abort: it finds the run finishing, and before the delete reads it
    again the completion, in another process, ends it SUCCEEDED."""

    def __init__(self, service: Service, execution_id: str) -> None:
        self._abort: AbortExecution = service.container.abort_execution()
        self._store: ExecutionStore = service.container.execution_store()
        self._execution_id = execution_id

    def execute(self, command: AbortExecutionCommand) -> AbortResult:
        try:
            return self._abort.execute(command)
        finally:
            ended = end_run(
                self._store,
                self._execution_id,
                lambda run: run.complete(ExecutionStatus.SUCCEEDED, _ENDED, None, "", None),
            )
            assert ended.status is ExecutionStatus.SUCCEEDED


_ENDED = datetime(2026, 12, 5, 9, 1, tzinfo=UTC)


def test_a_forced_permanent_delete_of_a_run_that_ends_while_it_is_refused_deletes_it(
    service: Service,
) -> None:
    """The run's end was what the refusal asked to wait for: it has come, and the delete goes on
    (before, it answered "wait for it to end" about a run that had ended)."""
    execution_id = _a_finishing_run(service)
    store = service.container.execution_store()
    service.container.abort_execution.override(
        providers.Object(_AbortThatLosesToTheCompletion(service, execution_id))
    )
    try:
        answer = service.client.request(
            "DELETE",
            f"/workflows/executions/{execution_id}/permanent?force=true",
            headers=service.as_user(ADMIN, ("admin",)),
            json={"confirmDelete": True},
        )
    finally:
        service.container.abort_execution.reset_override()

    assert answer.status_code == 200, answer.text
    assert answer.json() == {"message": "Execution records permanently deleted"}
    with pytest.raises(ExecutionNotFoundError):
        store.get_execution(execution_id)
