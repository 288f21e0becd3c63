"""The shipped templates applied as `wfx auth templates apply` does, then used over HTTP; and a
permanent DELETE, checked by scanning every table of the store and every file under the home."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.authz.shipped_templates import load_template
from domain.authorization import Subject
from domain.constraints import RoleAssignment
from tests.http.conftest import ADMIN, DATABASE, Service
from tests.http.snapshots import snapshot

CONFIRMED = {"confirmDelete": True}
READERS = ["Database User", "Database Read-Only", "Global Read-Only"]


def _holding(service: Service, template: str, user: str) -> dict[str, str]:
    admin = Subject(user_id=ADMIN, roles=("admin",))
    roles = service.container.administer_roles()
    loaded = load_template(template)
    database = DATABASE if "DATABASE_ID" in loaded.placeholders() else None  # Global: none
    roles.apply_template(admin, loaded, f"{user}-role", database_id=database)
    roles.assign(admin, RoleAssignment(user_id=user, role=f"{user}-role"))
    return service.as_user(user)


@pytest.mark.parametrize("template", READERS)
def test_a_reader_template_reads_the_run_but_not_its_logs(service: Service, template: str) -> None:
    headers = _holding(service, template, "reader")
    run = f"/workflows/executions/{service.execution_id}"

    for path in (run, f"{run}/details", f"{run}/describe", "/workflows/executions"):
        answer = service.client.get(path, headers=headers)
        assert answer.status_code == 200, (path, answer.text)
    listed = service.client.get("/workflows/executions", headers=headers).json()["message"]
    assert [item["workflowExecutionId"] for item in listed["Items"]] == [service.execution_id]

    logs = service.client.get(f"{run}/logs", headers=headers)
    assert logs.status_code == 403
    # nor does the log's text come through another route (a step's summary, the list, describe)
    admin = service.as_user(ADMIN, ("admin",))
    read = service.client.get(f"{run}/logs", headers=admin).json()["message"]
    # what the steps printed (the log text), not the ids and statuses around it
    lines = {line for line in _texts(read) if " " in line.strip() and "=====" not in line}
    assert any("prepared names" in line for line in lines), read
    for path in (run, f"{run}/details", f"{run}/describe", "/workflows/executions"):
        body = service.client.get(path, headers=headers).text
        assert not [line for line in lines if line in body], path
    audit = (Path(service.container.config.home()) / "audit.log").read_text(encoding="utf-8")
    assert f"{run}/logs" in audit and '"reader"' in audit


def _texts(found: object) -> list[str]:
    """Every line of every text in a JSON document."""
    if isinstance(found, str):
        return found.splitlines()
    if isinstance(found, dict):
        return [line for value in found.values() for line in _texts(value)]
    if isinstance(found, list):
        return [line for value in found for line in _texts(value)]
    return []


def test_a_database_admin_reads_the_logs_too(service: Service) -> None:
    headers = _holding(service, "Database Admin", "keeper")
    logs = service.client.get(f"/workflows/executions/{service.execution_id}/logs", headers=headers)
    assert logs.status_code == 200, logs.text


def test_a_template_for_another_database_shows_nothing(service: Service) -> None:
    admin = Subject(user_id=ADMIN, roles=("admin",))
    roles = service.container.administer_roles()
    roles.apply_template(admin, load_template("Database User"), "elsewhere", database_id="other")
    roles.assign(admin, RoleAssignment(user_id="outsider", role="elsewhere"))
    headers = service.as_user("outsider")
    listed = service.client.get("/workflows/executions", headers=headers)
    assert listed.json()["message"]["Items"] == []
    one = service.client.get(f"/workflows/executions/{service.execution_id}", headers=headers)
    assert one.status_code == 403


def _mentions(found: object, execution_id: str) -> bool:
    return execution_id in repr(found)


def test_delete_leaves_no_row_and_no_file_of_the_run(service: Service) -> None:
    kept = service.launch()
    gone = service.execution_id
    before = snapshot(service.container)
    assert _mentions(before["tables"], gone) and _mentions(before["files"], gone)
    headers = service.as_user(ADMIN, ("admin",))

    answer = service.client.request(
        "DELETE", f"/workflows/executions/{gone}/permanent", json=CONFIRMED, headers=headers
    )
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"message": "Execution records permanently deleted"}

    after = snapshot(service.container)
    for table, rows in after["tables"].items():
        assert not [row for row in rows if gone in repr(row)], table
    assert not [name for name in after["files"] if gone in name]
    assert _mentions(after["tables"], kept)  # the other run is whole
    again = service.client.request(
        "DELETE", f"/workflows/executions/{gone}/permanent", json=CONFIRMED, headers=headers
    )
    assert again.status_code == 404, again.text
    missing = service.client.get(f"/workflows/executions/{gone}", headers=headers)
    assert missing.status_code == 404


def _keys(found: object) -> set[str]:
    """Every key of every mapping in a JSON document."""
    if isinstance(found, dict):
        return set(found).union(*(_keys(value) for value in found.values()))
    if isinstance(found, list):
        return set().union(*(_keys(value) for value in found))
    return set()


@pytest.mark.parametrize("template", READERS)
def test_a_reader_denied_the_logs_route_finds_the_run_log_on_no_other_route(
    service: Service, template: str
) -> None:
    run = f"/workflows/executions/{service.execution_id}"
    admin = service.as_user(ADMIN, ("admin",))
    logged = service.client.get(f"{run}/logs", headers=admin).json()["message"]["executionLog"]
    assert logged  # the run has a log: its absence below is withheld, not empty
    headers = _holding(service, template, "reader")

    for path in ("/workflows/executions", run, f"{run}/details", f"{run}/describe"):
        answer = service.client.get(path, headers=headers)
        assert answer.status_code == 200, (path, answer.text)
        assert "executionLog" not in _keys(answer.json()), path
    page = service.client.get("/workflows/executions", headers=headers).json()["message"]
    assert [row["executionStatus"] for row in page["Items"]] == ["SUCCEEDED"]
