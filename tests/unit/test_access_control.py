"""AccessControl: both tiers, roles from the store, audit before refusal; the shipped templates;
the full-page readable list. On SQLite in memory (the stores' contracts hold on every backend)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from adapters.authz.audit_log import JsonLinesAuditLog
from adapters.authz.casbin_authorizer import CasbinAuthorizer
from adapters.authz.shipped_templates import load_template, shipped_templates
from adapters.sqlite.authorization_store import SqliteAuthorizationStore
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.tables import TableNames
from application.authorization import AccessControl
from application.use_cases.list_executions import ListExecutions, ListExecutionsQuery
from application.use_cases.list_readable_executions import (
    ListReadableExecutions,
    ListReadableExecutionsQuery,
)
from application.workflow_documents import WorkflowDocument, parse_workflow_document
from conftest import sqlite_tables_from_template
from domain.authorization import SYSTEM_USER, AccessDecision, AccessFacts, Action, AssetKey, Subject
from domain.constraints import Role, RoleAssignment
from domain.errors import InvalidInputError, NotAuthorizedError
from tests.contract.builders import a_launch, at, write_launch

LOGS_ROUTE = "/workflows/executions/{executionId}/logs"
EXECUTION_ROUTE = "/workflows/executions/{executionId}"


class FixedClock:
    def now(self) -> datetime:
        return datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


class RecordedAudit:
    def __init__(self) -> None:
        self.denials: list[tuple[str, str, dict[str, Any], AccessDecision]] = []

    def denied(
        self, subject: Subject, route: str, obj: Mapping[str, Any], decision: AccessDecision
    ) -> None:
        self.denials.append((subject.user_id, route, dict(obj), decision))


class World:
    def __init__(self) -> None:
        self.database = SqliteDatabase(None)
        sqlite_tables_from_template(self.database)  # a copy, ~1 ms, where making them is ~45
        self.roles = SqliteAuthorizationStore(self.database, TableNames())
        self.executions = SqliteExecutionStore(self.database, TableNames())
        self.roles.create_tables()
        self.executions.create_tables()
        self.audit = RecordedAudit()
        authorizer = CasbinAuthorizer(self.roles, max_age_seconds=0)
        self.access = AccessControl(authorizer, self.roles, self.executions, self.audit)

    def grant(self, user: str, role: str, template: str, database: str | None = None) -> None:
        if role not in {r.name for r in self.roles.list_roles()}:
            self.roles.add_role(Role(name=role))
        values = {"DATABASE_ID": database} if database else {}
        self.roles.put_constraints(load_template(template).instantiate(role, values))
        self.roles.assign(RoleAssignment(user_id=user, role=role))


@pytest.fixture
def world() -> Iterator[World]:
    built = World()
    yield built
    built.database.close()


def facts(database: str = "db1", written: str | None = "db1") -> AccessFacts:
    return AccessFacts(
        workflow_execution_id="e1",
        workflow_database_id=database,
        workflow_id="wf1",
        read_assets=(AssetKey(database_id=database, asset_id="scans"),),
        written_asset=AssetKey(database_id=written, asset_id="out") if written else None,
        metadata_databases=(database,),
    )


TEMPLATE_CASES = [
    ("Database Admin", "db1"),
    ("Database User", "db1"),
    ("Database Read-Only", "db1"),
    ("Global Read-Only", None),
    ("admin", None),
]


@pytest.mark.parametrize(("template", "database"), TEMPLATE_CASES)
def test_each_shipped_template_allows_reading_an_execution_of_its_database(
    world: World, template: str, database: str | None
) -> None:
    world.grant("ann", "team", template, database)
    ann = Subject(user_id="ann")
    world.access.require_route(ann, EXECUTION_ROUTE, "GET")
    world.access.require_execution(ann, facts("db1"), Action.GET)
    assert world.audit.denials == []


@pytest.mark.parametrize("template", ["Database User", "Database Read-Only", "Global Read-Only"])
def test_the_user_and_read_only_templates_deny_the_logs_route(world: World, template: str) -> None:
    world.grant("ann", "team", template, "db1")
    with pytest.raises(NotAuthorizedError, match="GET on this api"):
        world.access.require_route(Subject(user_id="ann"), LOGS_ROUTE, "GET")
    (user, route, obj, decision) = world.audit.denials[0]
    assert (user, route, obj["route__path"]) == ("ann", LOGS_ROUTE, LOGS_ROUTE)
    assert decision.rule == "team/team-deny-logs-route"


def test_the_shipped_templates_are_the_five_of_the_issue() -> None:
    assert [t.name for t in shipped_templates()] == [
        "admin",
        "Database Admin",
        "Database Read-Only",
        "Database User",
        "Global Read-Only",
        "Host Code Publisher",
    ]


def _document(execution_type: str) -> WorkflowDocument:
    targets: dict[str, dict[str, object]] = {
        "command": {"command": ["true"]},
        "python": {"handler": "tools.mesh:convert"},
        "approval": {"approvers": ["bob"]},
    }
    step = {"pipelineId": "convert", "executionType": execution_type, **targets[execution_type]}
    return parse_workflow_document({"databaseId": "db1", "workflowId": "wf1", "steps": [step]})


@pytest.mark.parametrize("execution_type", ["command", "python"])
def test_a_database_admin_may_not_publish_a_step_that_runs_code_on_the_host(
    world: World, execution_type: str
) -> None:
    world.grant("ann", "keepers", "Database Admin", "db1")

    with pytest.raises(NotAuthorizedError) as refused:
        world.access.require_publish(Subject(user_id="ann"), _document(execution_type))

    assert "PUT on hostCode" in str(refused.value) and execution_type in str(refused.value)
    (_, _, obj, decision) = world.audit.denials[0]
    assert obj["object__type"] == "hostCode" and decision.rule == "no constraint allows it"


def test_a_database_admin_publishes_a_step_that_runs_nothing_on_the_host(world: World) -> None:
    world.grant("ann", "keepers", "Database Admin", "db1")
    world.access.require_publish(Subject(user_id="ann"), _document("approval"))
    assert world.audit.denials == []


def test_the_host_code_right_is_granted_by_its_template_for_its_database_only(
    world: World,
) -> None:
    world.grant("ann", "keepers", "Database Admin", "db1")
    world.grant("ann", "coders", "Host Code Publisher", "db2")
    ann = Subject(user_id="ann")
    with pytest.raises(NotAuthorizedError, match="PUT on hostCode"):
        world.access.require_publish(ann, _document("command"))

    world.grant("ann", "coders", "Host Code Publisher", "db1")

    world.access.require_publish(ann, _document("command"))


def test_only_the_admin_template_holds_the_host_code_right(world: World) -> None:
    for template, database in TEMPLATE_CASES:
        world.grant("ann", f"r-{template}", template, database)
        ann = Subject(user_id="ann", roles=(f"r-{template}",))
        allowed = world.access.may(
            ann, {"object__type": "hostCode", "databaseId": "db1"}, Action.PUT
        )
        assert allowed is (template == "admin"), template


def test_a_database_template_needs_its_database(world: World) -> None:
    with pytest.raises(InvalidInputError, match="no value for DATABASE_ID"):
        load_template("database-user").instantiate("team", {})


def test_a_database_role_reads_only_runs_that_stay_in_its_database(world: World) -> None:
    world.grant("ann", "team", "Database Read-Only", "db1")
    ann = Subject(user_id="ann")
    with pytest.raises(NotAuthorizedError, match="GET on this asset") as refused:
        world.access.require_execution(ann, facts("db1", written="db2"), Action.GET, "/x")
    assert "db2" not in str(refused.value)  # the message names no object
    assert world.audit.denials[0][2]["databaseId"] == "db2"
    with pytest.raises(NotAuthorizedError, match="POST on this workflow"):
        world.access.require_launch(ann, "db1", "wf1", [], None)


def test_a_database_user_may_launch_into_its_database_only(world: World) -> None:
    world.grant("ann", "team", "Database User", "db1")
    ann = Subject(user_id="ann")
    scans = AssetKey(database_id="db1", asset_id="scans")
    world.access.require_launch(
        ann, "db1", "wf1", [scans], AssetKey(database_id="db1", asset_id="o")
    )
    with pytest.raises(NotAuthorizedError, match="PUT on this asset"):
        world.access.require_launch(
            ann, "db1", "wf1", [scans], AssetKey(database_id="db2", asset_id="o")
        )
    world.access.require_workflow(ann, "GLOBAL", "shared", Action.POST)


def test_roles_from_the_identity_and_from_the_store_add_up(world: World, tmp_path: Path) -> None:
    world.grant("ann", "readers", "Global Read-Only")
    world.roles.add_role(Role(name="blocked"))
    world.roles.put_constraints(load_template(_deny_db2_file(tmp_path)).instantiate("blocked", {}))
    ann = Subject(user_id="ann")
    world.access.require_execution(ann, facts("db2"), Action.GET)
    with pytest.raises(NotAuthorizedError):
        world.access.require_execution(
            Subject(user_id="ann", roles=("blocked",)), facts("db2"), Action.GET
        )


def _deny_db2_file(folder: Path) -> str:
    """A user's own VAMS template file, applied as a shipped one is."""
    template = {
        "metadata": {"name": "deny db2"},
        "constraints": [
            {
                "name": "deny-db2-workflows",
                "objectType": "workflow",
                "criteriaAnd": [{"field": "databaseId", "operator": "equals", "value": "db2"}],
                "groupPermissions": [{"action": "GET", "type": "deny"}],
            }
        ],
    }
    (folder / "deny.json").write_text(json.dumps(template))
    return str(folder / "deny.json")


def test_admin_and_system_user_pass_with_no_store_data(world: World) -> None:
    world.access.require_route(Subject(user_id=SYSTEM_USER), LOGS_ROUTE, "DELETE")
    world.access.require_execution(Subject(user_id="a", roles=("admin",)), facts(), Action.PUT)
    with pytest.raises(NotAuthorizedError):
        world.access.require_route(Subject(user_id="nobody"), EXECUTION_ROUTE, "GET")
    with pytest.raises(InvalidInputError, match="method: must be one of"):
        world.access.require_route(Subject(user_id="a"), EXECUTION_ROUTE, "PATCH")


def test_the_audit_file_holds_one_redacted_json_line_per_denial(tmp_path: Path) -> None:
    audit = JsonLinesAuditLog(tmp_path / "audit.log", FixedClock())
    secret = "password=hunter2hunter2"
    obj = {"object__type": "api", "route__path": f"/x?{secret}"}
    audit.denied(Subject(user_id="ann"), "/x", obj, AccessDecision(allowed=False, rule="r/c"))
    audit.denied(Subject(user_id="bob"), "/y", obj, AccessDecision(allowed=False, rule="r/c"))
    lines = (tmp_path / "audit.log").read_text().splitlines()
    assert [json.loads(line)["userId"] for line in lines] == ["ann", "bob"]
    assert "hunter2" not in lines[0]
    assert json.loads(lines[0])["rule"] == "r/c"


# -- the readable list -----------------------------------------------------------------------


def readable_list(world: World) -> ListReadableExecutions:
    listing = ListExecutions(world.executions, clock=FixedClock())
    return ListReadableExecutions(listing, world.access)


def all_pages(use_case: ListReadableExecutions, subject: Subject, limit: int) -> list[list[str]]:
    pages: list[list[str]] = []
    token: str | None = None
    while True:
        page = use_case.execute(
            ListReadableExecutionsQuery(
                subject=subject, listing=ListExecutionsQuery(limit=limit, starting_token=token)
            )
        )
        pages.append([e.workflow_execution_id for e in page.items])
        token = page.next_token
        if token is None:
            return pages


def launch_mixed(world: World, count: int) -> list[str]:
    """Runs newest last; every third one in db1, the others in db2. Returns db1's, newest first."""
    mine = []
    for index in range(count):
        database = "db1" if index % 3 == 0 else "db2"
        execution_id = f"e{index:02}"
        write_launch(
            world.executions,
            a_launch(
                execution_id,
                workflow=f"{database}:wf1",
                start=at(index),
                inputs=((f"{database}:scans", "a.obj"),),
                output_asset=f"{database}:out",
            ),
        )
        if database == "db1":
            mine.append(execution_id)
    return list(reversed(mine))


@pytest.mark.parametrize("limit", [1, 2, 3, 5, 20])
def test_readable_pages_are_full_and_resume_right_after_the_last_row(
    world: World, limit: int
) -> None:
    expected = launch_mixed(world, 16)
    world.grant("ann", "team", "Database Read-Only", "db1")
    pages = all_pages(readable_list(world), Subject(user_id="ann"), limit)
    assert [row for page in pages for row in page] == expected
    assert all(len(page) == limit for page in pages[:-1])


def test_a_subject_with_no_role_sees_an_empty_list(world: World) -> None:
    launch_mixed(world, 4)
    page = readable_list(world).execute(ListReadableExecutionsQuery(subject=Subject(user_id="x")))
    assert page.items == () and page.next_token is None


def test_an_administrator_sees_every_run(world: World) -> None:
    launch_mixed(world, 5)
    pages = all_pages(readable_list(world), Subject(user_id=SYSTEM_USER), 2)
    assert [len(page) for page in pages] == [2, 2, 1]


def test_a_page_seen_once_costs_no_facts_query_again(world: World) -> None:
    launch_mixed(world, 6)
    world.grant("ann", "team", "Database Read-Only", "db1")
    asked: list[list[str]] = []
    read = world.executions.access_facts

    def counted(ids: Sequence[str]) -> dict[str, AccessFacts]:
        asked.append(list(ids))
        return read(ids)

    world.executions.access_facts = counted  # type: ignore[method-assign,assignment]
    use_case = readable_list(world)
    query = ListReadableExecutionsQuery(subject=Subject(user_id="ann"))
    first = use_case.execute(query)
    again = use_case.execute(query)
    assert first == again
    assert len(asked) == 1  # a run's facts are written at launch and never change


def test_the_logging_audit_writes_one_json_warning(caplog: pytest.LogCaptureFixture) -> None:
    from adapters.authz.audit_log import AUDIT_LOGGER, LoggingAuditLog

    obj = {"object__type": "workflow", "databaseId": "db1", "token": "ghp_" + "a" * 36}
    with caplog.at_level("WARNING", logger=AUDIT_LOGGER):
        LoggingAuditLog(FixedClock()).denied(
            Subject(user_id="ann"), "/r", obj, AccessDecision(allowed=False, rule="no role")
        )
    (record,) = caplog.records
    line = json.loads(record.getMessage())
    assert (line["event"], line["userId"], line["rule"]) == ("denied", "ann", "no role")
    assert "a" * 36 not in record.getMessage()


def _role(world: World, user: str, workflow: Action, assets: Action) -> Subject:
    """A role holding `workflow` on db1's workflows and `assets` on db1's assets and database."""
    from domain.constraints import Constraint, Criterion, Effect, Operator, Permission

    def allowing(object_type: str, action: Action) -> Constraint:
        return Constraint(
            role=f"{user}-role",
            constraint_id=f"{object_type}-{action.value}",
            object_type=object_type,
            criteria_and=(Criterion(field="databaseId", operator=Operator.EQUALS, value="db1"),),
            permissions=(Permission(action=action, effect=Effect.ALLOW),),
        )

    world.roles.add_role(Role(name=f"{user}-role"))
    world.roles.put_constraints(
        [
            allowing("workflow", workflow),
            allowing("asset", assets),
            allowing("database", Action.GET),
        ]
    )
    world.roles.assign(RoleAssignment(user_id=user, role=f"{user}-role"))
    return Subject(user_id=user)


def test_an_abort_asks_get_of_the_workflow_and_post_of_the_assets(world: World) -> None:
    launch_mixed(world, 1)  # e00: db1's workflow, read db1:scans, wrote db1:out
    reader_of_workflow = _role(world, "ann", workflow=Action.GET, assets=Action.POST)
    poster_not_reader = _role(world, "bob", workflow=Action.POST, assets=Action.POST)

    world.access.require_abort(reader_of_workflow, "e00")
    with pytest.raises(NotAuthorizedError, match="GET on this workflow"):
        world.access.require_abort(poster_not_reader, "e00")
    # a redrive keeps POST on the workflow: the seed says it of reads and aborts only
    with pytest.raises(NotAuthorizedError, match="POST on this workflow"):
        world.access.require_execution_access(reader_of_workflow, "e00", Action.POST)
