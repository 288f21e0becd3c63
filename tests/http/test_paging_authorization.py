"""Page tokens never widen what a caller may read, on both stores (DynamoDB on moto): a user
whose role reads one workflow, handed every token an administrator's pages gave (each
positioned among another workflow's runs), or a token of another workflow's own index, pages
on and meets only the runs it may read. Rows are authorized one by one after the store reads
them (ListReadableExecutions), so a token is a position, never a permission."""

from __future__ import annotations

from typing import Any

from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from domain.authorization import Action
from tests.http.conftest import ADMIN, DATABASE, INPUTS, RESULTS, WORKFLOW, Service, allow

READABLE = WORKFLOW["workflowId"]
HIDDEN = "hidden-steps"
LIST = "/workflows/executions"


def _launch(service: Service, workflow_id: str) -> str:
    command = LaunchExecutionCommand(
        workflow_database_id=DATABASE,
        workflow_id=workflow_id,
        inputs=(f"{DATABASE}/{INPUTS}",),
        output=f"{DATABASE}/{RESULTS}",
        user_id=ADMIN,
    )
    launched = service.container.launch_execution().execute(command)
    return str(launched.execution.workflow_execution_id)


def _reader(service: Service) -> dict[str, str]:
    service.grant(
        "reader",
        "one-workflow",
        [
            allow("one-workflow", "route", "api", Action.GET, route__path=LIST),
            allow(
                "one-workflow",
                "workflow",
                "workflow",
                Action.GET,
                databaseId=DATABASE,
                workflowId=READABLE,
            ),
            *(
                allow("one-workflow", a, "asset", Action.GET, databaseId=DATABASE, assetName=a)
                for a in (INPUTS, RESULTS)
            ),
        ],
    )
    return service.as_user("reader")


def _pages(
    service: Service, headers: dict[str, str], token: str | None, **params: Any
) -> list[Any]:
    """Every page from `token` on (at most 20): each answer's JSON, or its status if refused."""
    pages: list[Any] = []
    for _ in range(20):
        query = {"maxItems": 1, **params} | ({"startingToken": token} if token else {})
        answer = service.client.get(LIST, params=query, headers=headers)
        if answer.status_code != 200:
            pages.append(answer.status_code)
            return pages
        message = answer.json()["message"]
        pages.append(message)
        token = message.get("NextToken")
        if not token:
            return pages
    raise AssertionError("the list did not end in 20 pages")


def _items(pages: list[Any]) -> list[dict[str, Any]]:
    return [item for page in pages if isinstance(page, dict) for item in page["Items"]]


def _workflows(pages: list[Any]) -> set[str]:
    return {item["workflowId"] for item in _items(pages)}


def test_an_administrators_tokens_page_a_reader_through_its_own_runs_only(
    service: Service,
) -> None:
    hidden = {**WORKFLOW, "workflowId": HIDDEN}
    service.container.publish_workflow_version().execute(
        PublishWorkflowVersionCommand(document=parse_workflow_document(hidden))
    )
    readable = {service.execution_id}
    for _ in range(2):  # interleaved: every admin page past the first starts beside a hidden run
        _launch(service, HIDDEN)
        readable.add(_launch(service, READABLE))
    _launch(service, HIDDEN)
    admin = service.as_user(ADMIN, ("admin",))
    admin_pages = _pages(service, admin, None)
    tokens = [page["NextToken"] for page in admin_pages if page.get("NextToken")]
    assert len(tokens) == 5 and _workflows(admin_pages) == {READABLE, HIDDEN}
    reader = _reader(service)

    for token in [None, *tokens]:
        seen = _pages(service, reader, token)
        ids = {item["workflowExecutionId"] for item in _items(seen)}
        assert _workflows(seen) <= {READABLE} and ids <= readable, (token, seen)
    everything = _items(_pages(service, reader, None))
    assert {item["workflowExecutionId"] for item in everything} == readable


def test_a_token_of_a_hidden_workflows_index_reads_none_of_its_runs(service: Service) -> None:
    hidden = {**WORKFLOW, "workflowId": HIDDEN}
    service.container.publish_workflow_version().execute(
        PublishWorkflowVersionCommand(document=parse_workflow_document(hidden))
    )
    for _ in range(3):
        _launch(service, HIDDEN)
    admin = service.as_user(ADMIN, ("admin",))
    by_hidden = {"workflowDatabaseId": DATABASE, "workflowId": HIDDEN}
    token = _pages(service, admin, None, **by_hidden)[0]["NextToken"]
    reader = _reader(service)

    on_hidden = _pages(service, reader, token, **by_hidden)
    on_readable = _pages(service, reader, token, workflowDatabaseId=DATABASE, workflowId=READABLE)
    on_all = _pages(service, reader, token)

    assert _workflows(on_hidden) == set(), on_hidden
    assert on_readable == [400] or _workflows(on_readable) <= {READABLE}, on_readable
    assert on_all == [400] or _workflows(on_all) <= {READABLE}, on_all
