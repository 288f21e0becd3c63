"""Every route of the service and what it asks of the authorizer.

Tier 1 checks each route as `{object__type: api, route__path}` with its HTTP method. Tier 2 then
checks the objects the route touches: `execution` (seed 000 `authorize_execution_access`: the
action on the run's workflow and on every asset it read and wrote, GET on every database it took
metadata from), `abort` (the same, but GET on the workflow: seed 000 authorizes an abort as it
does a read, with POST on the assets), `launch` (POST on the workflow and each input asset, PUT
on the output asset), `workflow` (the action on the workflow), `publish` (PUT on the workflow,
and PUT on `hostCode` for each python or command step: running code on the service's machine),
`rerun` (GET on the run as `execution` asks, tier 1 on the run's workflow's execute route with
POST as VAMS asks, then `launch` on what the rerun launches),
`filter` (a list returns only what the caller may GET) or `approval` (the run the approval gates
may be read, or the caller is among its approvers; a decision is its approvers' alone, whatever
else they may do). The route x permission test is generated from this table.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from domain.authorization import Action


class Tier2(StrEnum):
    EXECUTION = "execution"
    ABORT = "abort"
    LAUNCH = "launch"
    WORKFLOW = "workflow"
    PUBLISH = "publish"
    FILTER = "filter"
    APPROVAL = "approval"
    # GET on the run it reruns (as `execution`), POST on its workflow's EXECUTE route (tier 1),
    # and `launch` on the new one
    RERUN = "rerun"


@dataclass(frozen=True)
class RouteRule:
    method: Action
    path: str
    tier2: Tier2
    action: Action  # what tier 2 asks for on the objects

    @property
    def key(self) -> tuple[str, str]:
        return (self.method.value, self.path)


EXECUTIONS = "/workflows/executions"
ONE_EXECUTION = EXECUTIONS + "/{executionId}"
RERUN = ONE_EXECUTION + "/rerun"
EXECUTE = "/workflows/{workflowDatabaseId}/{workflowId}/execute"
ASSET_EXECUTIONS = "/database/{databaseId}/assets/{assetId}/workflows/executions"

ROUTES: tuple[RouteRule, ...] = (
    RouteRule(Action.GET, EXECUTIONS, Tier2.FILTER, Action.GET),
    RouteRule(Action.POST, EXECUTIONS, Tier2.LAUNCH, Action.POST),
    RouteRule(Action.POST, EXECUTE, Tier2.LAUNCH, Action.POST),  # VAMS's launch
    # VAMS's asset lists: only the runs the caller may read, as the global list
    RouteRule(Action.GET, ASSET_EXECUTIONS, Tier2.FILTER, Action.GET),
    RouteRule(Action.GET, ASSET_EXECUTIONS + "/{workflowId}", Tier2.FILTER, Action.GET),
    RouteRule(Action.GET, ONE_EXECUTION, Tier2.EXECUTION, Action.GET),
    RouteRule(Action.GET, ONE_EXECUTION + "/details", Tier2.EXECUTION, Action.GET),
    RouteRule(Action.GET, ONE_EXECUTION + "/details/metadata", Tier2.EXECUTION, Action.GET),
    RouteRule(Action.GET, ONE_EXECUTION + "/logs", Tier2.EXECUTION, Action.GET),
    RouteRule(Action.GET, ONE_EXECUTION + "/events", Tier2.EXECUTION, Action.GET),
    RouteRule(Action.GET, ONE_EXECUTION + "/describe", Tier2.EXECUTION, Action.GET),
    RouteRule(Action.POST, ONE_EXECUTION + "/abort", Tier2.ABORT, Action.POST),
    RouteRule(Action.POST, ONE_EXECUTION + "/redrive", Tier2.EXECUTION, Action.POST),
    RouteRule(Action.POST, RERUN, Tier2.RERUN, Action.POST),
    # VAMS: the bare DELETE is the abort (`?groupId=`: a group's, member by member)
    RouteRule(Action.DELETE, ONE_EXECUTION, Tier2.ABORT, Action.POST),
    RouteRule(Action.DELETE, ONE_EXECUTION + "/permanent", Tier2.EXECUTION, Action.DELETE),
    RouteRule(Action.GET, "/workflows", Tier2.FILTER, Action.GET),
    RouteRule(
        Action.GET, "/database/{databaseId}/workflows/{workflowId}", Tier2.WORKFLOW, Action.GET
    ),
    RouteRule(Action.PUT, "/workflows", Tier2.PUBLISH, Action.PUT),
    # tier 2 on the execution named (`?execution=`); a wider scope counts only readable runs
    RouteRule(Action.GET, "/costs", Tier2.EXECUTION, Action.GET),
    RouteRule(Action.GET, "/approvals", Tier2.FILTER, Action.GET),
    RouteRule(Action.GET, "/approvals/{approvalId}", Tier2.APPROVAL, Action.GET),
    RouteRule(Action.POST, "/approvals/{approvalId}/decision", Tier2.APPROVAL, Action.POST),
)

RULES: dict[tuple[str, str], RouteRule] = {rule.key: rule for rule in ROUTES}
