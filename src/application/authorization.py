"""Seed 000's two authorization tiers, over the ports only.

Tier 1 is the route: `{object__type: api, route__path}` with the HTTP method. Tier 2 is what a
request touches; an execution is allowed when its workflow is, every asset it read and the asset
it wrote to are (the same action), and every database it took metadata from allows GET
(`authorize_execution_access`). A caller's roles are those its identity names and those
assigned in the store. Every refusal is written to the audit log before NotAuthorizedError.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from application.ports.access import AuditLog, AuthorizationStore, Authorizer
from application.ports.executions import ExecutionQueries
from domain.authorization import (
    HOST_CODE_OBJECT_TYPE,
    AccessDecision,
    AccessFacts,
    Action,
    AssetKey,
    Subject,
    is_administrator,
)
from domain.errors import ExecutionNotFoundError, InvalidInputError, NotAuthorizedError
from domain.execution import WorkflowExecution
from domain.workflow import LOCAL_ONLY_TYPES

if TYPE_CHECKING:  # annotates only: a list checks no workflow document
    from application.workflow_documents import WorkflowDocument

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


def host_code_objects(document: WorkflowDocument) -> list[Obj]:
    """One object per step of the document that runs code on the service's machine."""
    return [
        {
            "object__type": HOST_CODE_OBJECT_TYPE,
            "databaseId": document.database_id,
            "workflowId": document.workflow_id,
            "pipelineId": step.pipeline_id,
            "executionType": step.execution_type.value,
        }
        for step in document.steps
        if step.execution_type in LOCAL_ONLY_TYPES
    ]


def refusal_message(obj: Mapping[str, Any], action: Action) -> str:
    """What a 403 says: the action and the kind of object; for host code, the right by name."""
    kind = obj.get("object__type", "object")
    if kind == HOST_CODE_OBJECT_TYPE:
        return (
            f"not authorized: {action.value} on {HOST_CODE_OBJECT_TYPE} - step "
            f"{obj.get('pipelineId')!r} is a {obj.get('executionType')} step, which runs code "
            "on the service's machine: a right of the admin role, or of a role granted it "
            "(the 'Host Code Publisher' template)"
        )
    return f"not authorized: {action.value} on this {kind}"


# An object named by a plain tuple (type, database, id): cheap to hash, built into the dict the
# authorizer reads only when a request has not asked about it yet.
Ref = tuple[str, str, str]


def execution_refs(
    facts: AccessFacts, action: Action, workflow_action: Action | None = None
) -> list[tuple[Ref, Action]]:
    """What `authorize_execution_access` asks of one execution, workflow first: `action` on
    everything, unless `workflow_action` names what the workflow needs."""
    checks: list[tuple[Ref, Action]] = [
        (("workflow", facts.workflow_database_id, facts.workflow_id), workflow_action or action)
    ]
    checks.extend((("asset", a.database_id, a.asset_id), action) for a in facts.read_assets)
    if facts.written_asset is not None:
        written = facts.written_asset
        checks.append((("asset", written.database_id, written.asset_id), action))
    checks.extend((("database", db, ""), Action.GET) for db in facts.metadata_databases)
    return checks


def ref_object(ref: Ref) -> Obj:
    kind, database_id, object_id = ref
    if kind == "workflow":
        return workflow_object(database_id, object_id)
    if kind == "asset":
        return asset_object(AssetKey(database_id=database_id, asset_id=object_id))
    return database_object(database_id)


def execution_objects(
    facts: AccessFacts, action: Action, workflow_action: Action | None = None
) -> list[tuple[Obj, Action]]:
    """The objects themselves, as the authorizer and the audit log see them."""
    refs = execution_refs(facts, action, workflow_action)
    return [(ref_object(ref), checked) for ref, checked in refs]


def _key(obj: Mapping[str, Any], action: Action) -> Hashable:
    # Not sorted: the builders above always give the same key order, and an object in another
    # order only misses the memo. Sorting per object was a tenth of a readable page's cost.
    return (tuple(obj.items()), action)


def _facts_key(facts: AccessFacts) -> Hashable:
    """What decides an execution's readability, without its id: runs of one workflow over the
    same assets share one answer."""
    written = facts.written_asset
    return (
        facts.workflow_database_id,
        facts.workflow_id,
        tuple((a.database_id, a.asset_id) for a in facts.read_assets),
        (written.database_id, written.asset_id) if written else None,
        facts.metadata_databases,
    )


class AccessFactsCache:
    """Facts by execution id, kept across requests: a run's workflow, inputs, output target and
    metadata rows are all written at launch and never changed (seed 000), so a page seen once
    costs no facts query again. Bounded; the oldest entries go first."""

    def __init__(self, limit: int = 20_000) -> None:
        self._limit = limit
        self._facts: OrderedDict[str, tuple[AccessFacts, Hashable]] = OrderedDict()
        self._lock = threading.Lock()

    def get(
        self, store: ExecutionQueries, ids: Sequence[str]
    ) -> dict[str, tuple[AccessFacts, Hashable]]:
        with self._lock:
            found = {i: self._facts[i] for i in ids if i in self._facts}
        missing = [i for i in ids if i not in found]
        if missing:
            read = {i: (f, _facts_key(f)) for i, f in store.access_facts(missing).items()}
            found.update(read)
            with self._lock:
                self._facts.update(read)
                while len(self._facts) > self._limit:
                    self._facts.popitem(last=False)
        return found


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
        executions: ExecutionQueries,
        audit: AuditLog,
        facts: AccessFactsCache | None = None,
    ) -> None:
        self._authorizer, self._roles = authorizer, roles
        self._executions, self._audit = executions, audit
        self._facts = facts or AccessFactsCache()

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
        self,
        subject: Subject,
        facts: AccessFacts,
        action: Action,
        route: str = "",
        workflow_action: Action | None = None,
    ) -> None:
        """Tier 2 `authorize_execution_access` for one execution."""
        self._require(subject, route, execution_objects(facts, action, workflow_action))

    def require_workflow(
        self, subject: Subject, database_id: str, workflow_id: str, action: Action, route: str = ""
    ) -> None:
        self._require(subject, route, [(workflow_object(database_id, workflow_id), action)])

    def require_publish(
        self, subject: Subject, document: WorkflowDocument, route: str = ""
    ) -> None:
        """PUT on the workflow, and PUT on hostCode for each step that runs code on the
        service's machine."""
        checks = [(workflow_object(document.database_id, document.workflow_id), Action.PUT)]
        checks.extend((obj, Action.PUT) for obj in host_code_objects(document))
        self._require(subject, route, checks)

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

    def require_execution_access(
        self,
        subject: Subject,
        workflow_execution_id: str,
        action: Action,
        route: str = "",
        missing_ok: bool = False,
        workflow_action: Action | None = None,
    ) -> None:
        """Seed 000 `authorize_execution_access` by id: the run's facts read now (no cache), and
        ExecutionNotFoundError when it has no main row - unless `missing_ok` (a delete of what
        is already gone answers that nothing was left)."""
        if is_administrator(subject):
            return
        facts = self._executions.access_facts([workflow_execution_id]).get(workflow_execution_id)
        if facts is None:
            if missing_ok:
                return
            raise ExecutionNotFoundError(workflow_execution_id)
        self.require_execution(subject, facts, action, route, workflow_action)

    def require_abort(self, subject: Subject, workflow_execution_id: str, route: str = "") -> None:
        """Seed 000: an abort authorizes as a read does on the workflow (GET: the workflow is
        not changed), POST on every asset the run read and on the asset it wrote to (the abort
        changes what the run does to them), GET on every database it took metadata from."""
        self.require_execution_access(
            subject, workflow_execution_id, Action.POST, route, workflow_action=Action.GET
        )

    def may(self, subject: Subject, obj: Mapping[str, Any], action: Action) -> bool:
        """Whether the subject may, without auditing a no: for filtering what a list shows."""
        subject = self.subject_with_roles(subject)
        return _Decisions(self._authorizer, subject).first_denial([(dict(obj), action)]) is None

    def require(
        self, subject: Subject, obj: Mapping[str, Any], action: Action, route: str = ""
    ) -> None:
        """Tier 2 on any one object (a role, a user's roles, a database)."""
        self._require(subject, route, [(dict(obj), action)])

    def readable(
        self,
        subject: Subject,
        executions: Sequence[WorkflowExecution],
        roles_resolved: bool = False,
    ) -> list[WorkflowExecution]:
        """The executions the subject may GET, in order; the facts of the page in one batch.
        A row filtered out is not a refused request, so nothing is audited for it.
        `roles_resolved`: the subject came from subject_with_roles (no second store read)."""
        allowed = self.readable_ids(
            subject, [e.workflow_execution_id for e in executions], roles_resolved
        )
        return [e for e in executions if e.workflow_execution_id in allowed]

    def readable_ids(
        self, subject: Subject, workflow_execution_ids: Sequence[str], roles_resolved: bool = False
    ) -> set[str]:
        """readable() by execution id: the ids (with a main row) the subject may GET."""
        if not roles_resolved:
            subject = self.subject_with_roles(subject)
        if not workflow_execution_ids:
            return set()
        if is_administrator(subject):
            return set(workflow_execution_ids)
        if not subject.roles:
            return set()  # no role allows anything: no store read for the facts
        facts = self._facts.get(self._executions, workflow_execution_ids)
        decisions = _Decisions(self._authorizer, subject)
        by_facts: dict[Hashable, bool] = {}  # runs with the same facts share one answer
        by_ref: dict[tuple[Ref, Action], bool] = {}  # and rows share objects
        readable = set()
        for execution_id in workflow_execution_ids:
            found = facts.get(execution_id)
            if found is None:
                continue
            fact, key = found
            allowed = by_facts.get(key)
            if allowed is None:
                allowed = True
                for check in execution_refs(fact, Action.GET):
                    ok = by_ref.get(check)
                    if ok is None:
                        ref, action = check
                        denial = decisions.first_denial([(ref_object(ref), action)])
                        ok = by_ref[check] = denial is None
                    if not ok:
                        allowed = False
                        break
                by_facts[key] = allowed
            if allowed:
                readable.add(execution_id)
        return readable

    def _require(self, subject: Subject, route: str, checks: list[tuple[Obj, Action]]) -> None:
        subject = self.subject_with_roles(subject)
        denied = _Decisions(self._authorizer, subject).first_denial(checks)
        if denied is None:
            return
        obj, decision = denied
        self._audit.denied(subject, route, obj, decision)
        action = next(action for checked, action in checks if checked is obj)
        raise NotAuthorizedError(refusal_message(obj, action))
