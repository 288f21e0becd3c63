"""Least privilege, held to the code: each function's declared stores and capabilities are what
the use cases its handler calls reach in the container, and its role names those tables only."""

from __future__ import annotations

import ast
import inspect
import json
from collections.abc import Iterable
from typing import Any

import pytest

from adapters.aws.stack import roles
from adapters.aws.stack.access import (
    COMPLETION,
    ERROR,
    FUNCTIONS,
    HTTP_API,
    STORE_TABLES,
    TRACKING,
    Capability,
    FunctionAccess,
    Store,
)
from adapters.aws.stack.template import deployment_template
from adapters.dynamodb.template import logical_id
from adapters.tables import ResourceKeys, TableNames
from entrypoints import lambda_handlers
from entrypoints.container import Container
from tests.source_trees import SRC, modules, nodes

# Container providers that are a store or an AWS capability, and what the role must hold for them.
STORE_PROVIDERS = {
    "execution_store": Store.EXECUTIONS,
    "workflow_catalog": Store.WORKFLOWS,
    "asset_catalog": Store.ASSETS,
    "authorization_store": Store.AUTHORIZATION,
    "cost_ledger": Store.COSTS,
}
CAPABILITY_PROVIDERS = {
    "object_store": Capability.OBJECTS,
    "delete_execution": Capability.DELETE_OBJECTS,
    "stepfunctions_orchestrator": Capability.ORCHESTRATE,
    "task_callbacks": Capability.ANSWER_TASKS,
    "sub_process_controller": Capability.STOP_SUB_PROCESSES,
    "sub_execution_reader": Capability.READ_SUB_EXECUTIONS,
    "cloudwatch_log_reader": Capability.READ_LOGS,
    "state_machine_run_log": Capability.READ_RUN_LOGS,
    # the use cases that write new versions of asset files (see ASSET_WRITERS below)
    "complete_execution": Capability.WRITE_ASSET_FILES,
    "import_asset_files": Capability.WRITE_ASSET_FILES,
}
# Providers whose capability covers everything they are built on: the run-log reader holds a
# Step Functions client for DescribeStateMachine alone, not to start or stop runs.
COVERS_ITS_DEPENDENCIES = frozenset({"state_machine_run_log"})
# In Lambda runs start on Step Functions (WFX_RUNNER=stepfunctions): the local runner, and the
# event bus it publishes registrations on, are never started there.
NOT_IN_LAMBDA = frozenset({"local_runner"})


def _provider_names() -> dict[int, str]:
    return {id(provider): name for name, provider in Container.providers.items()}


def reached(provider_names: Iterable[str]) -> set[str]:
    """Every container provider the named ones depend on, directly or not."""
    names = _provider_names()
    seen: set[str] = set()
    pending = [Container.providers[name] for name in provider_names]
    while pending:
        provider = pending.pop()
        name = names.get(id(provider))
        if name in NOT_IN_LAMBDA or (name is not None and name in seen):
            continue
        if name is not None:
            seen.add(name)
        if name not in COVERS_ITS_DEPENDENCIES:
            pending.extend(provider.related)
    return seen


def _receiver(node: ast.expr) -> str | None:
    """`container` / `wfx` in `container.x(...)`, and in `page.wfx.x(...)` too."""
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


def _container_calls(walked: Iterable[ast.AST], receivers: set[str]) -> set[str]:
    """`container.x(...)` / `wfx.x(...)`: the providers a function body calls."""
    return {
        node.func.attr
        for node in walked
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and _receiver(node.func.value) in receivers
    }


def handler_providers(function_name: str) -> set[str]:
    """What a Lambda handler of entrypoints/lambda_handlers.py calls on the container, through
    the module's own helpers it calls too."""
    module = ast.parse(inspect.getsource(lambda_handlers))
    bodies = {node.name: node for node in module.body if isinstance(node, ast.FunctionDef)}
    called, pending, done = set(), [function_name], set()
    while pending:
        name = pending.pop()
        if name in done:
            continue
        done.add(name)
        called |= _container_calls(ast.walk(bodies[name]), {"container"})
        pending.extend(
            node.func.id
            for node in ast.walk(bodies[name])
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in bodies
        )
    return called


def http_providers() -> set[str]:
    """What the HTTP routes, dependencies and viewer pages call on the container (`wfx` /
    `container`, `page.wfx` in the viewer)."""
    called: set[str] = set()
    for path in modules("entrypoints/http"):
        called |= _container_calls(nodes(path), {"wfx", "container"})
    return called


def providers_of(function: FunctionAccess) -> set[str]:
    if function is HTTP_API:
        return http_providers()
    return handler_providers(function.handler.rsplit(".", 1)[1])


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.name)
def test_the_declared_stores_are_those_the_handler_reaches(function: FunctionAccess) -> None:
    providers = reached(providers_of(function))
    assert {STORE_PROVIDERS[p] for p in providers if p in STORE_PROVIDERS} == function.stores


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.name)
def test_the_declared_capabilities_are_those_the_handler_reaches(
    function: FunctionAccess,
) -> None:
    providers = reached(providers_of(function))
    assert {
        CAPABILITY_PROVIDERS[p] for p in providers if p in CAPABILITY_PROVIDERS
    } == function.capabilities


def test_the_handlers_are_found_calling_the_use_cases() -> None:
    """The AST walk sees what it should: a guard against a scan that finds nothing."""
    assert handler_providers("track_step") == {
        *("start_step", "finish_step", "retry_step"),
        *("open_task_gate", "end_gate_step"),
    }
    assert {"launch_execution", "abort_execution", "delete_execution"} <= http_providers()
    # the viewer's own calls (`page.wfx.x()`) are seen too
    assert "decide_approval" in _container_calls(
        nodes(SRC / "entrypoints" / "http" / "viewer" / "actions.py"), {"wfx"}
    )


def _named_tables(statement_resources: Any) -> set[str]:
    """The table logical ids a statement's resources name (through Ref and Fn::If)."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if "Ref" in value and str(value["Ref"]).endswith("Table"):
                found.add(value["Ref"])
            for element in value.values():
                walk(element)
        elif isinstance(value, list):
            for element in value:
                walk(element)

    walk(statement_resources)
    return found


def _statements(document: dict[str, Any]) -> list[dict[str, Any]]:
    """A policy's statements as the widest parameters make them: a statement a condition adds
    (`Fn::If`, such as the registered Batch jobs') taken as added."""
    statements = []
    for statement in document["Statement"]:
        if "Fn::If" in statement:
            _, statement, _ = statement["Fn::If"]
        statements.append(statement)
    return statements


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.name)
def test_each_role_names_only_the_tables_of_its_stores(function: FunctionAccess) -> None:
    template = deployment_template(TableNames())
    role = template["Resources"][roles.role_id(function)]["Properties"]
    (policy,) = role["Policies"]
    named = set()
    for statement in _statements(policy["PolicyDocument"]):
        named |= _named_tables(statement["Resource"])
        if statement["Resource"] == "*":  # only a call that takes no resource-level permission
            assert statement["Action"] == ["batch:DescribeJobs"]
    expected = {logical_id(key) for store in function.stores for key in STORE_TABLES[store]}
    assert named == expected


def test_the_functions_recording_or_deleting_outputs_may_write_the_artifacts() -> None:
    """Seed 003 ARTIFACT: written with the output files by a finish, a retry and a completion
    (the tracking and completion functions), deleted with the run (the HTTP function)."""
    for function in (TRACKING, COMPLETION, HTTP_API):
        assert ResourceKeys.ARTIFACTS in function.tables, function.name


def test_no_function_may_touch_the_earlier_table() -> None:
    """Seed 000: no handler reads it; the migration runs with an operator's credentials."""
    assert all(
        "WorkflowExecutionsV1Table"
        not in _named_tables(deployment_template(TableNames())["Resources"][roles.role_id(f)])
        for f in FUNCTIONS
    )


def test_only_the_http_function_may_delete_objects_or_start_runs() -> None:
    for function in FUNCTIONS:
        privileged = {Capability.DELETE_OBJECTS, Capability.ORCHESTRATE} & function.capabilities
        assert bool(privileged) == (function is HTTP_API)


def test_the_tracking_and_http_functions_may_answer_wfxs_gates_and_no_others() -> None:
    """A decision (HTTP) or a task reaching a decided gate (tracking) answers its token."""
    template = deployment_template(TableNames())["Resources"]
    for function in FUNCTIONS:
        role = template[roles.role_id(function)]["Properties"]["Policies"][0]["PolicyDocument"]
        answering = [s for s in _statements(role) if "states:SendTaskSuccess" in s["Action"]]
        if function.name not in ("Tracking", "HttpApi"):
            assert answering == []
            continue
        (statement,) = answering
        assert statement["Action"] == ["states:SendTaskSuccess", "states:SendTaskFailure"]
        named = json.dumps(statement["Resource"])  # the stack's machines, not the account's
        assert "stateMachine:${StateMachinePrefix}*" in named, named
        assert "execution:${StateMachinePrefix}*:*" in named, named
        assert "wfx-*" not in named, named


# The IAM actions behind each S3 call of the object store (get_object with a VersionId needs
# s3:GetObjectVersion; the paginator lists versions).
S3_CALL_ACTIONS = {
    "get_bucket_versioning": {"s3:GetBucketVersioning"},
    "put_object": {"s3:PutObject"},
    "get_object": {"s3:GetObject", "s3:GetObjectVersion"},
    "list_object_versions": {"s3:ListBucketVersions"},
    "get_paginator": {"s3:ListBucketVersions"},
    "delete_objects": {"s3:DeleteObject", "s3:DeleteObjectVersion"},
}


def _s3_calls() -> set[str]:
    from adapters.aws import s3_object_store

    tree = ast.parse(inspect.getsource(s3_object_store))
    return {
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in S3_CALL_ACTIONS
    }


def test_the_object_roles_allow_every_s3_call_the_object_store_makes() -> None:
    calls = _s3_calls()
    assert {"put_object", "get_object", "get_bucket_versioning"} <= calls  # the scan sees them
    allowed = {
        action
        for capability in (Capability.OBJECTS, Capability.DELETE_OBJECTS)
        for statement in roles.CAPABILITY_STATEMENTS[capability]()
        for action in statement["Action"]
    }
    assert set().union(*(S3_CALL_ACTIONS[call] for call in calls)) <= allowed


# The providers through which a store is written, where a function may only read it: the
# workflow versions are written by a publish (WorkflowDefinitions.publish) and a deploy
# (WorkflowCatalog.record_deployment) alone.
STORE_WRITERS = {Store.WORKFLOWS: frozenset({"workflow_definitions", "deploy_workflow_version"})}
WRITE_CALLS = {
    "record_deployment": "deploy_workflow_version.py",
    "publish": "publish_workflow_version.py",
}


def test_the_workflow_stores_writes_are_made_by_the_writers_named() -> None:
    """A guard for STORE_WRITERS: an application module that starts writing the workflow
    versions fails here until it is named there."""
    callers: dict[str, set[str]] = {call: set() for call in WRITE_CALLS}
    for path in modules("application"):
        for node in nodes(path):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in WRITE_CALLS
                and isinstance(node.func.value, ast.Attribute)
                and node.func.value.attr in ("_catalog", "_definitions")
            ):
                callers[node.func.attr].add(path.name)
    assert callers == {call: {module} for call, module in WRITE_CALLS.items()}


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.name)
def test_a_store_a_function_only_reads_is_never_written_on_its_path(
    function: FunctionAccess,
) -> None:
    providers = reached(providers_of(function))
    for store in function.reads_only:
        assert not providers & STORE_WRITERS[store], (function.name, store)


def test_the_tracking_function_only_reads_the_workflow_versions() -> None:
    """It reads a gate's approvers and timeout; it may not rewrite a published version."""
    assert TRACKING.reads_only == {Store.WORKFLOWS}
    template = deployment_template(TableNames())["Resources"]
    role = template[roles.role_id(TRACKING)]["Properties"]["Policies"][0]["PolicyDocument"]
    (statement,) = [s for s in _statements(role) if s["Sid"] == "WorkflowsTables"]
    assert statement["Action"] == list(roles.TABLE_READS)
    others = [s for s in _statements(role) if s["Sid"] != "WorkflowsTables"]
    assert not any(
        _named_tables(s["Resource"]) & _named_tables(statement["Resource"]) for s in others
    )


def _log_statements(function: FunctionAccess) -> list[Any]:
    template = deployment_template(TableNames())["Resources"]
    role = template[roles.role_id(function)]["Properties"]["Policies"][0]["PolicyDocument"]
    return [
        s
        for s in _statements(role)
        if s["Sid"] != "OwnLogGroup" and any(a.startswith("logs:") for a in s["Action"])
    ]


@pytest.mark.parametrize("function", [COMPLETION, ERROR], ids=lambda f: f.name)
def test_a_run_s_end_reads_the_stack_s_state_machine_log_group_and_no_other(
    function: FunctionAccess,
) -> None:
    """The run log is what the run's state machine logged to the group `wfx workflows deploy`
    gives it (WFX_SFN_LOG_GROUP_ARN, the stack's output): no other group in the account."""
    (statement,) = _log_statements(function)
    assert statement["Action"] == ["logs:FilterLogEvents"]
    group = "arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:"
    assert [r["Fn::Sub"] for r in statement["Resource"]] == [
        f"{group}${{StateMachineLogGroup}}",
        f"{group}${{StateMachineLogGroup}}:*",
    ]


# Every module that puts an object, and what it writes: the asset files' new versions are
# written by the two use cases CAPABILITY_PROVIDERS names; every other write is a run's
# (its log, offloaded bodies, a local runner's outputs, an archive's bodies).
OBJECT_WRITERS = {
    "application/use_cases/complete_execution.py": "asset files (a run's results)",
    "application/use_cases/import_asset_files.py": "asset files (an import)",
    "application/run_log.py": "a run's log (executions/)",
    "adapters/item_budget.py": "a row's offloaded body (executions/)",
    "adapters/run_archive.py": "an imported run's bodies (executions/; the CLI's import)",
    "adapters/local/output_folder.py": "a local step's outputs (the local runner)",
}


def test_the_modules_that_put_objects_are_those_named() -> None:
    """A guard for WRITE_ASSET_FILES: a module that starts putting objects fails here until
    it is named, and its use case mapped, if it writes asset files."""
    writers = set()
    for path in modules():
        for node in nodes(path):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("put_file", "put_bytes", "put_stream")
            ):
                writers.add(path.relative_to(SRC).as_posix())
    assert writers == set(OBJECT_WRITERS)


def _puts_on(function: FunctionAccess) -> set[str]:
    template = deployment_template(TableNames())["Resources"]
    role = template[roles.role_id(function)]["Properties"]["Policies"][0]["PolicyDocument"]
    return {
        resource["Fn::Sub"]
        for statement in _statements(role)
        if "s3:PutObject" in statement["Action"]
        for resource in statement["Resource"]
    }


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.name)
def test_only_a_function_writing_results_or_imports_may_put_asset_files(
    function: FunctionAccess,
) -> None:
    puts = _puts_on(function)
    if Capability.OBJECTS in function.capabilities:
        assert "${DataBucket.Arn}/executions/*" in puts
    writes_assets = Capability.WRITE_ASSET_FILES in function.capabilities
    assert ("${DataBucket.Arn}/assets/*" in puts) == writes_assets
    assert writes_assets == (function.name in ("Completion", "Error"))


def test_a_permanent_delete_removes_a_run_s_objects_and_never_an_asset_file() -> None:
    """The delete_prefix calls are on a run's prefix, and on one body key a refused `wfx import`
    (the CLI, the user's own credentials) stored under it; the role deletes under it alone."""
    calls = [
        (path.relative_to(SRC).as_posix(), ast.unparse(node.args[0]))
        for path in modules()
        for node in nodes(path)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "delete_prefix"
    ]
    assert calls == [
        ("adapters/run_archive.py", "key"),
        (
            "application/use_cases/delete_execution.py",
            "execution_object_prefix(execution_id)",
        ),
    ]
    (deletes,) = [
        s
        for s in roles.CAPABILITY_STATEMENTS[Capability.DELETE_OBJECTS]()
        if s["Sid"] == "BucketDeletes"
    ]
    assert deletes["Resource"] == [{"Fn::Sub": "${DataBucket.Arn}/executions/*"}]
