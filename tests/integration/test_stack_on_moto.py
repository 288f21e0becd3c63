"""The template as a stack on moto's CloudFormation: the tables come out with the keys and indexes
the black-box layout checks expect (tests/integration/table_layout.py), beside the bucket and the
functions; with an existing earlier table named, the stack leaves it alone and points at it."""

from __future__ import annotations

import ast
import dataclasses
import fnmatch
import io
import json
import zipfile
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
import yaml
from moto import mock_aws
from moto.cloudformation.models import Stack
from yaml.parser import ParserError
from yaml.scanner import ScannerError

from adapters.aws.stack.access import FUNCTIONS
from adapters.aws.stack.render import render_template
from adapters.aws.stack.template import deployment_template
from adapters.aws.stepfunctions import StepFunctionsDeployer
from adapters.tables import TableNames
from application.state_machines import state_machine_name
from domain.sub_process_reach import SubProcessReach
from entrypoints.settings import Settings
from tests.contract.builders import a_version
from tests.integration.table_layout import (
    EARLIER_TABLE,
    SEED_000_TABLES,
    indexes_of,
    key_names,
)
from tests.integration.test_dynamodb_schema import FAKE_CREDENTIALS

# moto warns of each resource type it does not emulate (the HTTP API, the bucket policy)
pytestmark = pytest.mark.filterwarnings("ignore:Tried to parse AWS")

PREFIX = "stack-"
CODE_BUCKET = "wfx-code"


def _parameters(**extra: str) -> list[dict[str, str]]:
    values = {
        "CodeBucket": CODE_BUCKET,
        "JwtIssuer": "https://issuer.example",
        "JwtAudience": "wfx",
    } | extra
    return [{"ParameterKey": key, "ParameterValue": value} for key, value in values.items()]


def _create_stack(name: str, prefix: str = PREFIX, **parameters: str) -> dict[str, str]:
    """Create the stack, its tables named with `prefix` (names are account-wide); its outputs."""
    cloudformation = boto3.client("cloudformation")
    cloudformation.create_stack(
        StackName=name,
        TemplateBody=render_template(deployment_template(TableNames(prefix=prefix))),
        Parameters=_parameters(**parameters),
        Capabilities=["CAPABILITY_IAM"],
    )
    (stack,) = cloudformation.describe_stacks(StackName=name)["Stacks"]
    assert stack["StackStatus"] == "CREATE_COMPLETE", stack.get("StackStatusReason")
    return {output["OutputKey"]: output["OutputValue"] for output in stack["Outputs"]}


class _TemplateLoader(yaml.CLoader if yaml.__with_libyaml__ else yaml.Loader):  # type: ignore[misc]
    """moto's template loader read in C: the same constructors and resolver, and moto's own
    constructor making the template's short forms long; its own class, so that no other
    reader of YAML in this process gets moto's constructor."""


def _parse_template(template: str) -> dict[str, Any]:
    """moto's `Stack.parse_template` with libyaml's parser (the pure-Python parser took
    ~0.5 s CPU of each stack's ~130 KB template)."""
    try:
        parsed: dict[str, Any] = yaml.load(template, Loader=_TemplateLoader)
    except (ParserError, ScannerError):
        parsed = json.loads(template)
    return parsed


@pytest.fixture(scope="module")
def aws() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as env:
        for name, value in FAKE_CREDENTIALS.items():
            env.setenv(name, value)
        if yaml.__with_libyaml__:
            from moto.cloudformation.utils import yaml_tag_constructor

            yaml.add_multi_constructor("", yaml_tag_constructor, Loader=_TemplateLoader)
            env.setattr(Stack, "parse_template", staticmethod(_parse_template))
        with mock_aws():
            s3 = boto3.client("s3")
            s3.create_bucket(Bucket=CODE_BUCKET)
            package = io.BytesIO()
            with zipfile.ZipFile(package, "w") as archive:
                archive.writestr("entrypoints/__init__.py", "")
            s3.put_object(Bucket=CODE_BUCKET, Key="wfx-lambda.zip", Body=package.getvalue())
            yield


@pytest.fixture(scope="module")
def outputs(aws: None) -> dict[str, str]:
    return _create_stack("wfx")


def _describe(name: str) -> Any:
    return boto3.client("dynamodb").describe_table(TableName=name)["Table"]


@pytest.mark.parametrize("seed_name", sorted(SEED_000_TABLES))
def test_every_seed_table_has_the_seed_keys_and_exactly_its_indexes(
    outputs: dict[str, str], seed_name: str
) -> None:
    keys, indexes = SEED_000_TABLES[seed_name]
    table = _describe(f"{PREFIX}{seed_name}")
    assert key_names(table["KeySchema"]) == keys
    assert indexes_of(table, "GlobalSecondaryIndexes") == {
        name: (index_keys, "ALL") for name, index_keys in indexes.items()
    }
    assert not table.get("LocalSecondaryIndexes")
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"


def test_the_earlier_table_is_not_created_when_none_is_named(outputs: dict[str, str]) -> None:
    names = boto3.client("dynamodb").list_tables()["TableNames"]
    assert f"{PREFIX}{EARLIER_TABLE}" not in names
    assert "WorkflowExecutionsV1TableName" not in outputs


def test_the_bucket_and_one_function_per_handler_are_created(outputs: dict[str, str]) -> None:
    s3 = boto3.client("s3")
    s3.head_bucket(Bucket=outputs["BucketName"])
    encryption = s3.get_bucket_encryption(Bucket=outputs["BucketName"])
    assert encryption["ServerSideEncryptionConfiguration"]["Rules"]
    functions = {f["FunctionName"]: f for f in boto3.client("lambda").list_functions()["Functions"]}
    for function in FUNCTIONS:
        deployed = functions[f"wfx-{function.name}"]
        assert deployed["Handler"] == function.handler
        variables = deployed["Environment"]["Variables"]
        assert variables["WFX_S3_BUCKET"] == outputs["BucketName"]
        assert variables["WFX_TABLE_WORKFLOW_EXECUTIONS"] == (
            f"{PREFIX}WorkflowExecutionsStorageTableV2"
        )


@pytest.mark.xfail(
    strict=True,
    reason="moto 5.2.5's CloudFormation ignores VersioningConfiguration (s3/models.py "
    "create_from_cloudformation_json reads BucketEncryption and Tags only); the template's "
    "property is checked in tests/unit/test_stack_template.py",
)
def test_the_bucket_is_versioned(outputs: dict[str, str]) -> None:
    versioning = boto3.client("s3").get_bucket_versioning(Bucket=outputs["BucketName"])
    assert versioning.get("Status") == "Enabled"


def test_an_existing_earlier_table_is_kept_and_named_to_the_functions(aws: None) -> None:
    dynamodb = boto3.client("dynamodb")
    dynamodb.create_table(
        TableName="vams-2-5-executions",
        KeySchema=[
            {"AttributeName": "databaseId:assetId", "KeyType": "HASH"},
            {"AttributeName": "executionId", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": "databaseId:assetId", "AttributeType": "S"},
            {"AttributeName": "executionId", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    resources_before = set(dynamodb.list_tables()["TableNames"])

    outputs = _create_stack(
        "wfx-imported", "imported-", ExistingEarlierTableName="vams-2-5-executions"
    )

    assert outputs["WorkflowExecutionsV1TableName"] == "vams-2-5-executions"
    summaries = boto3.client("cloudformation").list_stack_resources(StackName="wfx-imported")
    logical_ids = {r["LogicalResourceId"] for r in summaries["StackResourceSummaries"]}
    assert "WorkflowExecutionsV1Table" not in logical_ids
    assert "vams-2-5-executions" in resources_before
    assert f"imported-{EARLIER_TABLE}" not in dynamodb.list_tables()["TableNames"]
    (tracking,) = (
        f
        for f in boto3.client("lambda").list_functions()["Functions"]
        if f["FunctionName"] == "wfx-imported-Tracking"
    )
    variables = tracking["Environment"]["Variables"]
    assert variables["WFX_TABLE_WORKFLOW_EXECUTIONS_V1"] == "vams-2-5-executions"


def _state_machine_actions(stack: str) -> dict[str, Any]:
    return _role_statements(stack, "StateMachineRole")


def _role_statements(stack: str, role_id: str) -> dict[str, Any]:
    """The statements of the stack's role `role_id`, by Sid, as IAM holds them."""
    iam = boto3.client("iam")
    resources = boto3.client("cloudformation").list_stack_resources(StackName=stack)
    (role,) = [
        r["PhysicalResourceId"]
        for r in resources["StackResourceSummaries"]
        if r["LogicalResourceId"] == role_id
    ]
    (policy,) = iam.list_role_policies(RoleName=role)["PolicyNames"]
    document = iam.get_role_policy(RoleName=role, PolicyName=policy)["PolicyDocument"]
    if isinstance(document, str):  # moto keeps the CloudFormation policy as Python's repr
        document = ast.literal_eval(document)
    return {s["Sid"]: s for s in document["Statement"] if s}


def test_the_lambda_steps_functions_named_may_be_invoked_by_the_state_machines(
    aws: None,
) -> None:
    step_function = "arn:aws:lambda:us-east-1:123456789012:function:convert-mesh"
    _create_stack("wfx-lambda-steps", "lambda-steps-", PipelineFunctionArns=step_function)
    named = _state_machine_actions("wfx-lambda-steps")
    assert named["InvokePipelineFunctions"]["Resource"] in (step_function, [step_function])
    _create_stack("wfx-no-lambda-steps", "no-lambda-steps-")
    assert "InvokePipelineFunctions" not in _state_machine_actions("wfx-no-lambda-steps")


# The statements naming wfx's own state machines (the sub-processes' name the account's).
_OWN_MACHINE_STATEMENTS = (
    "OwnStateMachines",
    "OwnExecutions",
    "AnswerOwnGates",
    "OwnStateMachineLogging",
)


def _deploy_with_outputs(outputs: dict[str, str]) -> str:
    """What `wfx workflows deploy` does with the stack's outputs as its settings: the ARN."""
    settings = Settings.from_environment(
        {"WFX_STATE_MACHINE_PREFIX": outputs["StateMachineNamePrefix"]}
    )
    name = state_machine_name(a_version(1, workflow="demo:mesh"), settings.state_machine_prefix)
    definition = {
        "Comment": "wfx demo/mesh v1",
        "StartAt": "A",
        "States": {"A": {"Type": "Succeed"}},
    }
    deployer = StepFunctionsDeployer(boto3.client("stepfunctions"))
    return deployer.deploy(
        name, definition, outputs["StateMachineRoleArn"], outputs["StateMachineLogGroupArn"]
    )


def test_two_stacks_deploy_one_workflow_as_two_machines_each_reached_by_its_own_functions_only(
    aws: None,
) -> None:
    """Staging beside production in one account: the same workflow deployed from each stack's
    outputs makes two machines, and no function of one may start, stop, redrive or answer the
    other's runs (its own statements match its machine, never the other's)."""
    stacks = {
        "staging": _create_stack("staging", "staging-"),
        "production": _create_stack("production", "production-"),
    }
    machines = {stack: _deploy_with_outputs(outputs) for stack, outputs in stacks.items()}
    assert machines["staging"] != machines["production"]
    assert {
        m["stateMachineArn"]
        for m in boto3.client("stepfunctions").list_state_machines()["stateMachines"]
    } >= set(machines.values())

    for stack, other in (("staging", "production"), ("production", "staging")):

        def targets(arn: str) -> tuple[str, str]:
            execution = arn.replace(":stateMachine:", ":execution:") + ":0123456789abcdef"
            return arn, execution

        reached = 0
        for function in FUNCTIONS:
            statements = _role_statements(stack, f"{function.name}Role")
            for sid in _OWN_MACHINE_STATEMENTS:
                if sid not in statements:
                    continue
                resources = statements[sid]["Resource"]
                listed = resources if isinstance(resources, list) else [resources]
                # moto leaves an AWS::NoValue (no earlier machines named) as None in a list
                patterns = [pattern for pattern in listed if pattern is not None]
                assert not any(
                    fnmatch.fnmatchcase(target, pattern)
                    for pattern in patterns
                    for target in targets(machines[other])
                ), (stack, function.name, sid, patterns)
                assert any(
                    fnmatch.fnmatchcase(target, pattern)
                    for pattern in patterns
                    for target in targets(machines[stack])
                ), (stack, function.name, sid, patterns)
                reached += 1
        assert reached >= len(_OWN_MACHINE_STATEMENTS)


def test_an_upgraded_stack_still_reaches_the_runs_of_its_earlier_machine_names_when_given(
    aws: None,
) -> None:
    """Runs launched before the prefix keep their stored execution ARNs (`wfx-demo-mesh-v1`):
    named as EarlierStateMachinePattern, the roles may still describe, abort and redrive them;
    not named, no role reaches them."""
    earlier = "arn:aws:states:us-east-1:123456789012:execution:wfx-demo-mesh-v1:0123456789abcdef"

    def reached(stack: str) -> bool:
        statements = _role_statements(stack, "HttpApiRole")
        patterns = [p for p in statements["OwnExecutions"]["Resource"] if p is not None]
        return any(fnmatch.fnmatchcase(earlier, pattern) for pattern in patterns)

    _create_stack("upgraded", "upgraded-", EarlierStateMachinePattern="wfx-demo-*")
    _create_stack("fresh", "fresh-")
    assert reached("upgraded")
    assert not reached("fresh")


_ACCOUNT = "us-east-1:123456789012"
# A sub-process of each kind the roles stop or read, where a pipeline could start it.
_SUB_PROCESSES = {
    "named machine's run": f"arn:aws:states:{_ACCOUNT}:execution:render-v2:run-1",
    "named machine": f"arn:aws:states:{_ACCOUNT}:stateMachine:render-v2",
    "Batch job": f"arn:aws:batch:{_ACCOUNT}:job/8a1c7f0e-0000-4000-8000-000000000001",
    "named farm's job": f"arn:aws:deadline:{_ACCOUNT}:farm/farm-0a1/queue/queue-1/job/job-1",
    "named log group": f"arn:aws:logs:{_ACCOUNT}:log-group:/aws/lambda/render-v2:log-stream:s",
}
_NEVER = {
    "other machine's run": f"arn:aws:states:{_ACCOUNT}:execution:billing-v1:run-1",
    "other machine": f"arn:aws:states:{_ACCOUNT}:stateMachine:billing-v1",
    "other farm's job": f"arn:aws:deadline:{_ACCOUNT}:farm/farm-9f/queue/queue-1/job/job-1",
    "other log group": f"arn:aws:logs:{_ACCOUNT}:log-group:/aws/lambda/billing:log-stream:s",
}
_SUB_PROCESS_STATEMENTS = (
    "StopRegisteredSubProcesses",
    "StopRegisteredBatchJobs",
    "StopRegisteredDeadlineJobs",
    "ReadRegisteredSubExecutions",
    "ReadRegisteredStateMachines",
    "ReadRegisteredLogs",
)


def _sub_processes_reached(stack: str) -> set[str]:
    """What the roles' sub-process statements reach, of _SUB_PROCESSES and _NEVER, by name."""
    reached = set()
    for function in FUNCTIONS:
        statements = _role_statements(stack, f"{function.name}Role")
        for sid in _SUB_PROCESS_STATEMENTS:
            if sid not in statements:
                continue
            resources = statements[sid]["Resource"]
            listed = resources if isinstance(resources, list) else [resources]
            patterns = [pattern for pattern in listed if pattern is not None]
            reached |= {
                what
                for what, arn in (_SUB_PROCESSES | _NEVER).items()
                if any(fnmatch.fnmatchcase(arn, pattern) for pattern in patterns)
            }
    return reached


def test_the_roles_reach_the_sub_processes_the_parameters_name_and_none_by_default(
    aws: None,
) -> None:
    """An audit: a wfx service could stop any run, Batch job or Deadline job of the account. The
    roles now stop and read only what SubProcess* names (the stack's own machines always), and
    the functions are told the same, so that registration drops anything else."""
    _create_stack(
        "reaching",
        "reaching-",
        SubProcessStateMachinePattern="render-*",
        SubProcessBatchJobs="any",
        SubProcessDeadlineFarmPattern="farm-0a*",
        SubProcessLogGroupPattern="/aws/lambda/render-*",
    )
    _create_stack("least", "least-")

    assert _sub_processes_reached("reaching") == set(_SUB_PROCESSES)
    assert _sub_processes_reached("least") == set()
    functions = {f["FunctionName"]: f for f in boto3.client("lambda").list_functions()["Functions"]}
    told = {
        stack: Settings.from_environment(
            functions[f"{stack}-Registration"]["Environment"]["Variables"]
        ).sub_process_reach
        for stack in ("reaching", "least")
    }
    least = SubProcessReach(region="us-east-1", account="123456789012")
    assert told["least"] == least
    assert told["reaching"] == dataclasses.replace(
        least, state_machines=("render-*",), batch_jobs=True, deadline_farms=("farm-0a*",)
    )
