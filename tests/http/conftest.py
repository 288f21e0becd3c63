"""The HTTP service on each store (SQLite file, DynamoDB on moto), runs executed inline, driven
through an in-process client with real tokens and real stored roles.

`world` holds one finished run that read `http/inputs` and wrote `http/results`, started by the
admin; tests grant roles to other users through the authorization store, as `wfx auth` does.
"""

from __future__ import annotations

import copy
import shutil
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi import FastAPI
from fastapi.testclient import TestClient

from application.use_cases.import_asset_files import ImportAssetFilesCommand, ImportedFile
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from domain.authorization import Action
from domain.constraints import (
    Constraint,
    Criterion,
    Effect,
    Operator,
    Permission,
    Role,
    RoleAssignment,
)

WORKFLOW_FILE = Path(__file__).parents[2] / "features" / "workflows" / "three_steps.yaml"
DATABASE = "http"
WORKFLOW = {**yaml.safe_load(WORKFLOW_FILE.read_text()), "databaseId": DATABASE}
INPUTS = "inputs"
RESULTS = "results"
ADMIN = "root"


@dataclass
class Service:
    container: Any
    app: FastAPI
    client: TestClient
    execution_id: str
    tokens: dict[str, str] = field(default_factory=dict)

    def token(self, user: str, roles: Sequence[str] = ()) -> str:
        issued: str = self.container.token_issuer().issue(user, timedelta(hours=1), roles)
        return issued

    def as_user(self, user: str, roles: Sequence[str] = ()) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token(user, roles)}"}

    def viewer_page(self, path: str) -> Any:
        """A page of the web viewer (the app built with its sessions), read as the admin logged
        in through `/login`."""
        from entrypoints.http.app import create_app
        from entrypoints.http.identity import verified_by

        verifier = self.container.token_verifier()
        app = create_app(self.container, verified_by(verifier), sessions=verifier)
        with TestClient(app, raise_server_exceptions=False, follow_redirects=False) as viewer:
            login = viewer.get("/login", params={"token": self.token(ADMIN, ("admin",))})
            assert login.status_code == 303, login.text
            return viewer.get(path)

    def grant(self, user: str, role: str, constraints: Sequence[Constraint]) -> None:
        store = self.container.authorization_store()
        store.add_role(Role(name=role))
        store.put_constraints(list(constraints))
        store.assign(RoleAssignment(user_id=user, role=role))

    def launch(self, user: str = ADMIN) -> str:
        command = LaunchExecutionCommand(
            workflow_database_id=DATABASE,
            workflow_id=WORKFLOW["workflowId"],
            inputs=(f"{DATABASE}/{INPUTS}",),
            output=f"{DATABASE}/{RESULTS}",
            user_id=user,
        )
        launched = self.container.launch_execution().execute(command)
        return str(launched.execution.workflow_execution_id)


def allow(
    role: str,
    name: str,
    object_type: str,
    action: Action,
    operator: Operator = Operator.EQUALS,
    **fields: str,
) -> Constraint:
    """A constraint allowing exactly `action` on the objects whose fields are `fields` (the
    operator's way: equal by default; the value is taken literally, not as a pattern)."""
    import re

    return Constraint(
        role=role,
        constraint_id=name,
        object_type=object_type,
        criteria_and=tuple(
            Criterion(field=key, operator=operator, value=re.escape(value))
            for key, value in fields.items()
        ),
        permissions=(Permission(action=action, effect=Effect.ALLOW),),
    )


@dataclass(frozen=True)
class _World:
    """The world as the first test on a store made it, in this process: a copy of its home,
    of its SQLite file (taken by SQLite's backup) and, on DynamoDB, of moto's tables."""

    folder: Path  # home/ and wfx.db
    execution_id: str
    tables: dict[str, Any] | None


_WORLDS: dict[str, _World] = {}  # by store: every later test gets the world back as it was


def _make_world(service: Service, source: Path) -> None:
    source.mkdir()
    for name in ("a.obj", "b.obj"):
        (source / name).write_text(f"v {name}\n", encoding="utf-8")
    service.container.import_asset_files().execute(
        ImportAssetFilesCommand(
            database_id=DATABASE,
            asset_id=INPUTS,
            files=tuple(ImportedFile(file_key=p.name, path=p) for p in sorted(source.iterdir())),
        )
    )
    service.container.publish_workflow_version().execute(
        PublishWorkflowVersionCommand(document=parse_workflow_document(WORKFLOW))
    )
    service.execution_id = service.launch()


def _keep_world(container: Any, home: Path, execution_id: str, folder: Path) -> _World:
    from conftest import dynamodb_tables_snapshot

    shutil.copytree(home, folder / "home", ignore=shutil.ignore_patterns("wfx.db*"))
    if container.config.store() == "dynamodb":
        return _World(folder, execution_id, dynamodb_tables_snapshot())
    _copy_database(Path(container.config.sqlite_path()), folder / "wfx.db")
    return _World(folder, execution_id, None)


def _restore_world(world: _World, container: Any, home: Path) -> None:
    from conftest import restore_dynamodb_tables

    shutil.copytree(world.folder / "home", home, dirs_exist_ok=True)
    if world.tables is not None:
        restore_dynamodb_tables(world.tables)
    else:
        _copy_database(world.folder / "wfx.db", Path(container.config.sqlite_path()))


def kept_world(
    service: Service,
    home: Path,
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    make: Callable[[Service], object],
) -> None:
    """`make` applied to the service's world, as `service` keeps its world: done by the first
    test of `name` on each store in this process, then kept, and restored for every later one
    (before its first request or token: the home's key is one of its files; the service's app
    reads the stores as any process would)."""
    container = service.container
    key = f"{container.config.store()}-{name}"
    world = _WORLDS.get(key)
    if world is not None:
        _restore_world(world, container, home)
        return
    make(service)
    folder = tmp_path_factory.mktemp(f"world-{key}")
    _WORLDS[key] = _keep_world(container, home, service.execution_id, folder)


_SCHEMAS: dict[str, dict[str, Any]] = {}  # by store: the OpenAPI schema the first app made


def _schema_made_once(app: FastAPI, store: str) -> None:
    """The app's /openapi.json (and `app.openapi()`) from the schema the first app on `store`
    made in this process, copied, where each app made it again (~0.4 s CPU: FastAPI walks
    every route's models). The app's own `openapi` still makes it, once a process: the schema
    is a function of the routes and their models, the same in every service app."""
    made = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None and store in _SCHEMAS:
            app.openapi_schema = copy.deepcopy(_SCHEMAS[store])
        schema = made()
        if store not in _SCHEMAS:
            _SCHEMAS[store] = copy.deepcopy(schema)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def _copy_database(source: Path, target: Path) -> None:
    """Every page of `source` into `target` (made or open, and then replaced whole)."""
    with closing(sqlite3.connect(source)) as reading, closing(sqlite3.connect(target)) as writing:
        reading.backup(writing)


@pytest.fixture
def service(
    inline_container: Any, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Service]:
    """The service over `world`: made by the first test on each store, and for every later one
    restored from a copy (the home's files, the SQLite file or moto's tables), as it was."""
    from dependency_injector import providers

    from adapters.authz.casbin_authorizer import CasbinAuthorizer
    from entrypoints.http.app import create_app
    from entrypoints.http.identity import verified_by

    container = inline_container
    # a role granted by a test holds for its very next request (the service looks again at
    # most once a second)
    authorizer = CasbinAuthorizer(container.authorization_store(), max_age_seconds=0)
    container.authorizer.override(providers.Object(authorizer))
    store = container.config.store()
    world = _WORLDS.get(store)
    if world is not None:
        _restore_world(world, container, tmp_path)
    app = create_app(container, verified_by(container.token_verifier()))
    _schema_made_once(app, store)
    with TestClient(app, raise_server_exceptions=False) as client:
        service = Service(container=container, app=app, client=client, execution_id="")
        if world is None:
            _make_world(service, tmp_path / "source")
            folder = tmp_path_factory.mktemp(f"world-{store}")
            _WORLDS[store] = _keep_world(container, tmp_path, service.execution_id, folder)
        else:
            service.execution_id = world.execution_id
        yield service
