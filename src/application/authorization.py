"""Seed 000's two authorization tiers, over the ports only.

Tier 1 is the route: `{object__type: api, route__path}` with the HTTP method. Tier 2 is what a
request touches; an execution is allowed when its workflow is, every asset it read and the asset
it wrote to are (the same action), and every database it took metadata from allows GET
(`authorize_execution_access`). A caller's roles are those its identity names and those
assigned in the store. Every refusal is written to the audit log before NotAuthorizedError.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

from application.ports import AuditLog, AuthorizationStore, Authorizer, ExecutionStore
from domain.authorization import (
    AccessDecision,
    AccessFacts,
    Action,
    AssetKey,
    Subject,
    is_administrator,
)
from domain.errors import InvalidInputError, NotAuthorizedError
from domain.execution import WorkflowExecution

Obj = dict[str, Any]


def route_object(route_path: str) -> Obj:
    return {"object__type": "api", "route__path": route_path}


def workflow_object(database_id: str, workflow_id: str) -> Obj:
    return {"object__type": "workflow", "databaseId": database_id, "workflowId": workflow_id}


def asset_object(asset: AssetKey) -> Obj:
    # wfx's asset id is the asset's name: VAMS's constraints test `assetName`.
    return {
        "object__type": "asset",
        "databaseId": asset.database_id,
        "assetId": asset.asset_id,
        "assetName": asset.asset_id,
    }


def database_object(database_id: str) -> Obj:
    return {"object__type": "database", "databaseId": database_id}


def execution_objects(facts: AccessFacts, action: Action) -> list[tuple[Obj, Action]]:
    """What `authorize_execution_access` asks of one execution, workflow first."""
    checks = [(workflow_object(facts.workflow_database_id, facts.workflow_id), action)]
    assets = [*facts.read_assets, *([facts.written_asset] if facts.written_asset else [])]
    checks.extend((asset_object(asset), action) for asset in assets)
    checks.extend((database_object(db), Action.GET) for db in facts.metadata_databases)
    return checks


def _key(obj: Mapping[str, Any], action: Action) -> Hashable:
    return (tuple(sorted(obj.items())), action)


class _Decisions:
    """One request's decisions, memoised: a page of runs of one workflow asks about the same
    workflow and assets again and again (roles are fixed for the request)."""

    def __init__(self, authorizer: Authorizer, subject: Subject) -> None:
        self._authorizer, self._subject = authorizer, subject
        self._memo: dict[Hashable, AccessDecision] = {}

    def first_denial(
        self, checks: Iterable[tuple[Obj, Action]]
    ) -> tuple[Obj, AccessDecision] | None:
        for obj, action in checks:
            key = _key(obj, action)
            decision = self._memo.get(key)
            if decision is None:
                decision = self._memo[key] = self._authorizer.decide(self._subject, obj, action)
            if not decision.allowed:
                return obj, decision
        return None


def parse_action(method: str) -> Action:
    try:
        return Action(method.upper())
    except ValueError:
        allowed = ", ".join(action.value for action in Action)
        raise InvalidInputError(f"method: must be one of {allowed}, got {method!r}") from None


class AccessControl:
    """Both tiers for the entrypoints and use cases: require_* raise NotAuthorizedError,
    readable() filters a page."""

    def __init__(
        self,
        authorizer: Authorizer,
        roles: AuthorizationStore,
        executions: ExecutionStore,
        audit: AuditLog,
    ) -> None:
        self._authorizer, self._roles = authorizer, roles
        self._executions, self._audit = executions, audit

    def subject_with_roles(self, subject: Subject) -> Subject:
        """The subject holding its own roles and those assigned in the store (one read)."""
        if is_administrator(subject):
            return subject  # allowed everything already: no store read
        assigned = self._roles.roles_of(subject.user_id)
        roles = tuple(sorted({*subject.roles, *assigned}))
        return subject if roles == subject.roles else subject.model_copy(update={"roles": roles})

    def require_route(self, subject: Subject, route_path: str, method: str | Action) -> None:
        """Tier 1: the route with the method."""
        action = method if isinstance(method, Action) else parse_action(method)
        self._require(subject, route_path, [(route_object(route_path), action)])

    def require_execution(
        self, subject: Subject, facts: AccessFacts, action: Action, route: str = ""
    ) -> None:
        """Tier 2 `authorize_execution_access` for one execution."""
        self._require(subject, route, execution_objects(facts, action))

    def require_workflow(
        self, subject: Subject, database_id: str, workflow_id: str, action: Action, route: str = ""
    ) -> None:
        self._require(subject, route, [(workflow_object(database_id, workflow_id), action)])

    def require_launch(
        self,
        subject: Subject,
        workflow_database_id: str,
        workflow_id: str,
        input_assets: Sequence[AssetKey],
        output_asset: AssetKey | None,
        route: str = "",
    ) -> None:
        """POST on the workflow and on every asset it will read, PUT on the asset it will
        write."""
        checks = [(workflow_object(workflow_database_id, workflow_id), Action.POST)]
        checks.extend((asset_object(asset), Action.POST) for asset in input_assets)
        if output_asset is not None:
            checks.append((asset_object(output_asset), Action.PUT))
        self._require(subject, route, checks)

    def require(
        self, subject: Subject, obj: Mapping[str, Any], action: Action, route: str = ""
    ) -> None:
        """Tier 2 on any one object (a role, a user's roles, a database)."""
        self._require(subject, route, [(dict(obj), action)])

    def readable(
        self, subject: Subject, executions: Sequence[WorkflowExecution]
    ) -> list[WorkflowExecution]:
        """The executions the subject may GET, in order; the facts of the page in one batch.
        A row filtered out is not a refused request, so nothing is audited for it."""
        subject = self.subject_with_roles(subject)
        if not executions:
            return []
        if is_administrator(subject):
            return list(executions)
        if not subject.roles:
            return []  # no role allows anything: no store read for the facts
        facts = self._executions.access_facts([e.workflow_execution_id for e in executions])
        decisions = _Decisions(self._authorizer, subject)
        return [
            execution
            for execution in executions
            if (fact := facts.get(execution.workflow_execution_id)) is not None
            and decisions.first_denial(execution_objects(fact, Action.GET)) is None
        ]

    def _require(self, subject: Subject, route: str, checks: list[tuple[Obj, Action]]) -> None:
        subject = self.subject_with_roles(subject)
        denied = _Decisions(self._authorizer, subject).first_denial(checks)
        if denied is None:
            return
        obj, decision = denied
        self._audit.denied(subject, route, obj, decision)
        action = next(action for checked, action in checks if checked is obj)
        raise NotAuthorizedError(
            f"not authorized: {action.value} on this {obj.get('object__type', 'object')}"
        )
