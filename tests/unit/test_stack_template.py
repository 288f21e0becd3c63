"""The deployable stack: cfn-lint finds nothing, every function has its role, log group and
environment, the earlier table can be an existing one, the bucket and the API are locked down."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from cfnlint.config import ConfigMixIn
from cfnlint.decode.decode import decode_str
from cfnlint.helpers import REGION_PRIMARY
from cfnlint.runner import Runner

from adapters.aws.stack.access import FUNCTIONS, FunctionAccess
from adapters.aws.stack.render import render_template
from adapters.aws.stack.template import deployment_template
from adapters.tables import CREATED_TABLES, TABLES, TableNames
from domain.registration import MAX_SOURCE_PREFIX_LENGTH
from domain.sub_process_reach import SubProcessReach
from entrypoints.settings import Settings

Template = dict[str, Any]


@pytest.fixture(scope="module")
def template() -> Template:
    return deployment_template(TableNames(prefix="prod-"), "acme")


# cfn-lint's schemas load once a process: the two lints run in one worker
CFN_LINT = pytest.mark.xdist_group("cfn-lint")
CfnLint = Callable[[str], list[str]]
# a property of the wrong type: what the rules still report after a lint (E3012)
_BROKEN = """AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Bucket:
    Type: AWS::S3::Bucket
    Properties:
      VersioningConfiguration: true
"""


@pytest.fixture(scope="module")
def cfn_lint() -> CfnLint:
    """What `cfn-lint TEMPLATE` reports by default (cfnlint.api.lint's steps), one template text
    at a time, its rules made once (~0.9 s CPU a time) for the module's lints, as the command
    makes them once for all the templates it is given."""
    runner = Runner(ConfigMixIn(regions=[REGION_PRIMARY]))

    def findings(text: str) -> list[str]:
        template, errors = decode_str(text)
        matches = errors or ([] if template is None else runner.validate_template(template))
        return [str(match) for match in matches]

    return findings


def _still_reports(cfn_lint: CfnLint) -> bool:
    return any("E3012" in finding for finding in cfn_lint(_BROKEN))


@CFN_LINT
def test_cfn_lint_finds_no_error_or_warning(template: Template, cfn_lint: CfnLint) -> None:
    """What `cfn-lint template.yaml` reports by default (~9 s: it loads every rule and schema;
    the JSON form is the same template, checked below)."""
    assert cfn_lint(render_template(template)) == []
    assert _still_reports(cfn_lint)  # the rules shared with the other lint still find errors


def test_the_yaml_and_the_json_are_the_template_without_anchors(template: Template) -> None:
    text = render_template(template)
    assert "&id" not in text and "*id" not in text
    assert yaml.safe_load(text) == json.loads(render_template(template, "json")) == template


def _function(template: Template, function: FunctionAccess) -> Any:
    return template["Resources"][f"{function.name}Function"]["Properties"]


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.name)
def test_each_function_runs_its_handler_as_its_own_role_logging_to_its_own_group(
    template: Template, function: FunctionAccess
) -> None:
    properties = _function(template, function)
    assert properties["Handler"] == function.handler
    assert properties["Role"] == {"Fn::GetAtt": [f"{function.name}Role", "Arn"]}
    assert properties["Code"] == {"S3Bucket": {"Ref": "CodeBucket"}, "S3Key": {"Ref": "CodeKey"}}
    assert properties["LoggingConfig"] == {"LogGroup": {"Ref": f"{function.name}LogGroup"}}
    group = template["Resources"][f"{function.name}LogGroup"]["Properties"]
    assert group["RetentionInDays"] == {"Ref": "LogRetentionDays"}


def test_every_handler_of_the_code_has_a_function() -> None:
    handlers = {f.handler for f in FUNCTIONS}
    assert handlers == {
        "entrypoints.http.lambda_handler",
        "entrypoints.lambda_handlers.track_step",
        "entrypoints.lambda_handlers.complete_execution",
        "entrypoints.lambda_handlers.handle_execution_error",
        "entrypoints.lambda_handlers.register_pipeline_execution",
    }


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.name)
def test_the_environment_is_what_the_settings_read(
    template: Template, function: FunctionAccess
) -> None:
    variables = _function(template, function)["Environment"]["Variables"]
    for spec in TABLES:
        assert f"WFX_TABLE_{spec.key.value}" in variables
    # a Ref or Fn::Sub resolves at deploy time: any valid name stands in for it
    resolved = {n: v if isinstance(v, str) else "resolved-name" for n, v in variables.items()}
    reach = _with_defaults(template, variables["WFX_SUB_PROCESSES"]["Fn::Sub"])
    settings = Settings.from_environment(
        resolved | {"WFX_EVENT_BUS_NAME": "bus", "WFX_SUB_PROCESSES": reach}
    )
    assert (settings.store, settings.runner, settings.event_bus) == (
        "dynamodb",
        "stepfunctions",
        "eventbridge",
    )
    assert (settings.object_store, settings.s3_bucket) == ("s3", "resolved-name")
    assert settings.event_source_prefix == "acme"
    assert settings.jwt.jwks is None  # API Gateway verifies the tokens; the function reads claims
    # by default: its own machines only, of its region and account
    assert settings.sub_process_reach == SubProcessReach(region="eu-west-3", account="123456789012")


_PSEUDO = {"AWS::Region": "eu-west-3", "AWS::AccountId": "123456789012"}


def _with_defaults(template: Template, text: str) -> str:
    """An `Fn::Sub` string with each parameter's default in its place (a pseudo parameter's, a
    region's and an account's)."""
    defaults = {name: str(p.get("Default")) for name, p in template["Parameters"].items()}
    return re.sub(r"\$\{([\w:]+)\}", lambda m: (defaults | _PSEUDO)[m[1]], text)


def test_the_earlier_table_is_never_created_only_named(template: Template) -> None:
    resources = template["Resources"]
    assert "WorkflowExecutionsV1Table" not in resources
    assert template["Conditions"]["EarlierTableNamed"] == {
        "Fn::Not": [{"Fn::Equals": [{"Ref": "ExistingEarlierTableName"}, ""]}]
    }
    assert template["Parameters"]["ExistingEarlierTableName"]["Default"] == ""
    for function in FUNCTIONS:
        variables = _function(template, function)["Environment"]["Variables"]
        assert variables["WFX_TABLE_WORKFLOW_EXECUTIONS_V1"] == {"Ref": "ExistingEarlierTableName"}
    assert template["Outputs"]["WorkflowExecutionsV1TableName"]["Condition"] == "EarlierTableNamed"
    tables = [r for r in resources.values() if r["Type"] == "AWS::DynamoDB::Table"]
    assert not any("Condition" in r for r in tables)


def test_the_bucket_is_versioned_encrypted_private_and_tls_only(template: Template) -> None:
    bucket = template["Resources"]["DataBucket"]["Properties"]
    assert bucket["VersioningConfiguration"] == {"Status": "Enabled"}
    assert bucket["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    assert set(bucket["PublicAccessBlockConfiguration"].values()) == {True}
    (statement,) = template["Resources"]["DataBucketPolicy"]["Properties"]["PolicyDocument"][
        "Statement"
    ]
    assert (statement["Effect"], statement["Action"]) == ("Deny", "s3:*")
    assert statement["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}


def test_every_api_route_needs_a_token_of_the_named_issuer_and_audience(
    template: Template,
) -> None:
    resources = template["Resources"]
    routes = [r for r in resources.values() if r["Type"] == "AWS::ApiGatewayV2::Route"]
    assert routes and all(r["Properties"]["AuthorizationType"] == "JWT" for r in routes)
    authorizer = resources["HttpApiJwtAuthorizer"]["Properties"]
    assert authorizer["JwtConfiguration"] == {
        "Issuer": {"Ref": "JwtIssuer"},
        "Audience": {"Ref": "JwtAudience"},
    }
    integration = resources["HttpApiIntegration"]["Properties"]
    assert integration["PayloadFormatVersion"] == "2.0"


def test_a_step_may_publish_registrations_for_its_own_source_only(template: Template) -> None:
    policy = template["Resources"]["RegistrationPublisherPolicy"]["Properties"]
    (statement,) = policy["PolicyDocument"]["Statement"]
    assert statement["Action"] == "events:PutEvents"
    assert statement["Condition"]["StringLike"] == {
        "events:source": "acme.execution.${aws:PrincipalTag/wfxExecutionId}"
        ".pipeline.${aws:PrincipalTag/wfxPipelineExecutionId}"
    }
    rule = template["Resources"]["RegistrationRule"]["Properties"]
    assert rule["EventPattern"]["source"] == [{"prefix": "acme.execution."}]
    (target,) = rule["Targets"]
    assert target["Arn"] == {"Fn::GetAtt": ["RegistrationFunction", "Arn"]}


def test_the_outputs_name_the_api_the_bucket_and_every_table(template: Template) -> None:
    outputs = template["Outputs"]
    assert {"ApiUrl", "BucketName", "StateMachineRoleArn", "StateMachineLogGroupArn"} <= set(
        outputs
    )
    assert sum(name.endswith("TableName") for name in outputs) == len(TABLES)


def test_revoked_tokens_expire_on_their_expiry_and_nothing_else_does(template: Template) -> None:
    """`expiresAt` (epoch seconds) on the authorization table, as SQLite prunes them; an
    approval's `expiresAt` is a date and a record: its table has no expiry."""
    expiries = {
        properties["TableName"]: properties.get("TimeToLiveSpecification")
        for resource in template["Resources"].values()
        if resource["Type"] == "AWS::DynamoDB::Table"
        for properties in [resource["Properties"]]
    }
    assert expiries.pop("prod-WfxAuthorizationTable") == {
        "AttributeName": "expiresAt",
        "Enabled": True,
    }
    assert set(expiries.values()) == {None}


@CFN_LINT
def test_cfn_lint_finds_nothing_in_the_longest_names_the_options_take(cfn_lint: CfnLint) -> None:
    """The longest table prefix and event source prefix `wfx infra template` takes, as JSON."""
    longest = 255 - max(len(spec.default_name) for spec in CREATED_TABLES)
    template = deployment_template(TableNames(prefix="p" * longest), "s" * MAX_SOURCE_PREFIX_LENGTH)
    assert cfn_lint(render_template(template, "json")) == []
    assert _still_reports(cfn_lint)


def test_the_state_machines_may_invoke_the_lambda_steps_functions_named_and_no_other(
    template: Template,
) -> None:
    """A `lambda` step invokes its own `functionName`: the role allows exactly the functions the
    deployer names (none by default), beside the three step handlers."""
    parameter = template["Parameters"]["PipelineFunctionArns"]
    assert (parameter["Type"], parameter["Default"]) == ("CommaDelimitedList", "")
    role = template["Resources"]["StateMachineRole"]["Properties"]
    statements = role["Policies"][0]["PolicyDocument"]["Statement"]
    (named,) = [s for s in statements if isinstance(s, dict) and "Fn::If" in s]
    condition, statement, otherwise = named["Fn::If"]
    assert template["Conditions"][condition] == {
        "Fn::Not": [{"Fn::Equals": [{"Fn::Join": ["", {"Ref": "PipelineFunctionArns"}]}, ""]}]
    }
    assert statement == {
        "Sid": "InvokePipelineFunctions",
        "Effect": "Allow",
        "Action": "lambda:InvokeFunction",
        "Resource": {"Ref": "PipelineFunctionArns"},
    }
    assert otherwise == {"Ref": "AWS::NoValue"}


def _states_resources(template: Template) -> list[tuple[str, str]]:
    """(role, resource as JSON text) of every Step Functions resource a role names."""
    found = []
    for role_id, resource in template["Resources"].items():
        if resource["Type"] != "AWS::IAM::Role":
            continue
        for policy in resource["Properties"]["Policies"]:
            for statement in policy["PolicyDocument"]["Statement"]:
                if "Fn::If" in statement:
                    continue  # the pipeline functions' statement: lambda:InvokeFunction alone
                resources = statement["Resource"]
                for one in resources if isinstance(resources, list) else [resources]:
                    text = json.dumps(one)
                    if ":states:" in text:
                        found.append((role_id, text))
    return found


def test_no_role_reaches_the_state_machines_of_another_stack_in_the_account(
    template: Template,
) -> None:
    """`wfx-*` spans every stack of the account: staging's functions could start, stop, redrive or
    answer production's runs. wfx's own machines are named under the stack's prefix instead (the
    first part of its stack id), and a role names that prefix, or the account's sub-processes."""
    resources = _states_resources(template)
    assert resources
    for role, text in resources:
        assert "wfx-*" not in text, (role, text)
        own = "${StateMachinePrefix}" in text or "${EarlierStateMachinePattern}" in text
        named = "${SubProcessStateMachinePattern}" in text  # where sub-processes are started
        assert own or named, (role, text)
    http = [text for role, text in resources if role == "HttpApiRole"]
    assert any("stateMachine:${StateMachinePrefix}*" in text for text in http)
    assert any("execution:${StateMachinePrefix}*:*" in text for text in http)


def test_every_function_and_the_deploy_read_the_stack_s_state_machine_prefix(
    template: Template,
) -> None:
    prefix = template["Outputs"]["StateMachineNamePrefix"]
    assert prefix["Description"] == "WFX_STATE_MACHINE_PREFIX"
    for function in FUNCTIONS:
        variables = _function(template, function)["Environment"]["Variables"]
        assert variables["WFX_STATE_MACHINE_PREFIX"] == prefix["Value"]
    stack_id_part = {
        "Fn::Select": [
            0,
            {
                "Fn::Split": [
                    "-",
                    {"Fn::Select": [2, {"Fn::Split": ["/", {"Ref": "AWS::StackId"}]}]},
                ]
            },
        ]
    }
    assert prefix["Value"] == {"Fn::Join": ["", ["wfx_", stack_id_part, "-"]]}


def test_a_first_create_that_fails_leaves_no_table_or_bucket_behind_to_block_its_retry(
    template: Template,
) -> None:
    """A stack name past 51 characters makes a function name Lambda refuses (64), and the first
    create rolls back. A `Retain` table or bucket made by that create outlived the rollback, so the
    retry with a good name failed on tables that already exist. The data outlives the stack once
    it is created (`RetainExceptOnCreate`: deleted only by the rollback of the create that made
    it), and a replacement never deletes it."""
    kept = {
        logical_id: resource
        for logical_id, resource in template["Resources"].items()
        if resource["Type"] in ("AWS::DynamoDB::Table", "AWS::S3::Bucket")
    }
    assert len(kept) == len(CREATED_TABLES) + 1
    for logical_id, resource in kept.items():
        assert resource["DeletionPolicy"] == "RetainExceptOnCreate", logical_id
        assert resource["UpdateReplacePolicy"] == "Retain", logical_id


def test_the_function_names_leave_the_stack_name_51_characters_as_the_docs_say(
    template: Template,
) -> None:
    """Lambda takes 64 characters; `<stack>-<Name>` keeps the names a stack deployed before
    (renaming replaces the functions, whose ARNs the deployed state machines call)."""
    longest = max(len(function.name) for function in FUNCTIONS)
    assert 64 - len("-") - longest == 51
    for function in FUNCTIONS:
        name = _function(template, function)["FunctionName"]
        assert name == {"Fn::Sub": f"${{AWS::StackName}}-{function.name}"}


@pytest.mark.parametrize(
    ("pattern", "taken"),
    [
        ("", True),
        ("wfx-*", True),
        ("wfx-demo-*", True),
        ("wfx-demo-mesh-v1", True),
        ("*", False),  # every machine of the account, not only the earlier wfx ones
        ("*-v1", False),
        ("wfx demo", False),
        ("w" * 81, False),
    ],
)
def test_the_earlier_machine_names_are_a_name_or_a_pattern_that_starts_with_one(
    template: Template, pattern: str, taken: bool
) -> None:
    """CloudFormation refuses a value its AllowedPattern does not match, before any change."""
    parameter = template["Parameters"]["EarlierStateMachinePattern"]
    assert parameter["Default"] == ""
    assert (re.fullmatch(parameter["AllowedPattern"], pattern) is not None) is taken


@pytest.mark.parametrize(
    ("parameter", "value", "taken"),
    [
        ("SubProcessStateMachinePattern", "", True),
        ("SubProcessStateMachinePattern", "render-*", True),
        ("SubProcessStateMachinePattern", "*", True),  # every machine: an explicit choice
        ("SubProcessStateMachinePattern", "*-v1", False),
        ("SubProcessStateMachinePattern", "render v1", False),
        ("SubProcessStateMachinePattern", "r" * 81, False),
        ("SubProcessDeadlineFarmPattern", "farm-0a1b*", True),
        ("SubProcessDeadlineFarmPattern", "farm-1/queue-2", False),
        ("SubProcessLogGroupPattern", "/aws/lambda/render-*", True),
        ("SubProcessLogGroupPattern", "/aws/lambda/a b", False),
        ("SubProcessLogGroupPattern", "g" * 513, False),
    ],
)
def test_where_sub_processes_run_is_empty_a_name_a_pattern_or_everything(
    template: Template, parameter: str, value: str, taken: bool
) -> None:
    """Empty by default (the stack's own machines only); a value breaking the rule is refused by
    CloudFormation, naming the rule (ConstraintDescription), before any change."""
    declared = template["Parameters"][parameter]
    assert declared["Default"] == ""
    assert declared["ConstraintDescription"]
    assert (re.fullmatch(declared["AllowedPattern"], value) is not None) is taken


def test_batch_jobs_and_every_registered_reach_beyond_the_stack_are_conditions(
    template: Template,
) -> None:
    """Terminating Batch jobs is all of the account's or none (a job's ARN names no queue): none
    unless SubProcessBatchJobs is any; every other reach is a named parameter's."""
    batch = template["Parameters"]["SubProcessBatchJobs"]
    assert (batch["Default"], batch["AllowedValues"]) == ("none", ["none", "any"])
    role = template["Resources"]["HttpApiRole"]["Properties"]["Policies"][0]["PolicyDocument"]
    conditional = {
        s["Fn::If"][1]["Sid"]: s["Fn::If"][0] for s in role["Statement"] if "Fn::If" in s
    }
    assert conditional == {
        "StopRegisteredBatchJobs": "SubProcessBatchJobsAllowed",
        "DescribeBatchJobs": "SubProcessBatchJobsAllowed",
        "StopRegisteredDeadlineJobs": "SubProcessDeadlineFarmsNamed",
        "ReadRegisteredLogs": "SubProcessLogGroupsNamed",
    }
    assert template["Conditions"]["SubProcessBatchJobsAllowed"] == {
        "Fn::Equals": [{"Ref": "SubProcessBatchJobs"}, "any"]
    }
    text = json.dumps(role)
    assert 'execution:*:*"' not in text and 'stateMachine:*"' not in text
    assert 'log-group:*"' not in text
