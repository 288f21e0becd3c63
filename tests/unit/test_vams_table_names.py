"""Table names: WFX_TABLE_<KEY> > VAMS's per-table variable > the VAMS deployment's SSM
parameter > WFX_TABLE_PREFIX plus the seed's name; SSM asked once, ten names a call."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import EndpointConnectionError

from adapters.dynamodb.vams_table_names import vams_table_names
from adapters.tables import TABLE_SPECS, VAMS_TABLES, ResourceKeys, TableNameError
from domain.errors import InvalidInputError
from entrypoints.settings import Settings

PREFIX = "/vams/prod"
EXECUTIONS = ResourceKeys.WORKFLOW_EXECUTIONS


class RecordingSsm:
    """GetParameters over a dict of parameters, recording each call's names."""

    def __init__(self, parameters: dict[str, str]) -> None:
        self.parameters = parameters
        self.calls: list[list[str]] = []

    def get_parameters(self, Names: list[str]) -> dict[str, Any]:  # noqa: N803  # boto3's name
        assert len(Names) <= 10, "GetParameters refuses more than ten names"
        self.calls.append(list(Names))
        found = [name for name in Names if name in self.parameters]
        return {
            "Parameters": [{"Name": name, "Value": self.parameters[name]} for name in found],
            "InvalidParameters": [name for name in Names if name not in self.parameters],
        }


class UnreachableSsm:
    def get_parameters(self, Names: list[str]) -> dict[str, Any]:  # noqa: N803
        raise EndpointConnectionError(endpoint_url="https://ssm.us-east-1.amazonaws.com/")


def _deployment() -> dict[str, str]:
    """Every VAMS table's parameter, valued `vams-<key>`."""
    return {
        f"{PREFIX}/{table.parameter}": f"vams-{key.value}" for key, table in VAMS_TABLES.items()
    }


def test_the_deployment_names_every_table_vams_has_in_two_calls_of_ten_names_at_most() -> None:
    ssm = RecordingSsm(_deployment())

    names = vams_table_names(ssm, PREFIX)

    for key in VAMS_TABLES:
        assert names.get_table_name(key) == f"vams-{key.value}"
    assert len(VAMS_TABLES) == 12
    assert [len(call) for call in ssm.calls] == [10, 2]
    asked = [name for call in ssm.calls for name in call]
    assert sorted(asked) == sorted(_deployment())


def test_the_eleven_execution_tables_and_the_earlier_one_have_vams_names() -> None:
    assert set(VAMS_TABLES) == {spec.key for spec in TABLE_SPECS.values() if spec.from_seed}
    assert VAMS_TABLES[EXECUTIONS].parameter == "dynamoTables/workflowExecutionsStorageV2"
    assert VAMS_TABLES[EXECUTIONS].variables == ("WORKFLOW_EXECUTION_STORAGE_TABLE_V2_NAME",)


def test_a_wfx_override_beats_a_vams_variable_which_beats_the_parameter() -> None:
    ssm = RecordingSsm(_deployment())
    names = vams_table_names(
        ssm,
        PREFIX,
        prefix="team-",
        overrides={EXECUTIONS: "MyExecutions", ResourceKeys.PIPELINE_LOGS: "MyLogs"},
        variables={EXECUTIONS: "VamsVariableExecutions", ResourceKeys.PIPELINE_EXECUTIONS: "Steps"},
    )

    assert names.get_table_name(EXECUTIONS) == "MyExecutions"
    assert names.get_table_name(ResourceKeys.PIPELINE_LOGS) == "MyLogs"
    assert names.get_table_name(ResourceKeys.PIPELINE_EXECUTIONS) == "Steps"
    assert names.get_table_name(ResourceKeys.PIPELINE_OUTPUT_FILES) == "vams-PIPELINE_OUTPUT_FILES"
    # wfx's own tables: no VAMS name, the prefix and wfx's name
    assert names.get_table_name(ResourceKeys.ARTIFACTS) == "team-WfxArtifactsTable"
    # SSM is asked only for what nothing else names
    asked = {name for call in ssm.calls for name in call}
    assert f"{PREFIX}/dynamoTables/workflowExecutionsStorageV2" not in asked
    assert f"{PREFIX}/dynamoTables/pipelineExecutionsStorage" not in asked
    assert len(asked) == 9 and len(ssm.calls) == 1


def test_every_table_named_by_the_environment_asks_ssm_nothing() -> None:
    ssm = RecordingSsm({})
    names = vams_table_names(ssm, PREFIX, overrides={key: f"own-{key}" for key in VAMS_TABLES})

    assert names.get_table_name(EXECUTIONS) == f"own-{EXECUTIONS}"
    assert ssm.calls == []


def test_a_missing_parameter_fails_only_the_table_it_names_and_says_which() -> None:
    parameters = _deployment()
    del parameters[f"{PREFIX}/dynamoTables/pipelineExecutionLogsStorage"]
    names = vams_table_names(RecordingSsm(parameters), PREFIX)

    assert names.get_table_name(EXECUTIONS) == f"vams-{EXECUTIONS.value}"
    with pytest.raises(TableNameError) as refused:
        names.get_table_name(ResourceKeys.PIPELINE_LOGS)
    message = str(refused.value)
    assert f"{PREFIX}/dynamoTables/pipelineExecutionLogsStorage does not exist" in message
    assert "PIPELINE_EXECUTION_LOGS_STORAGE_TABLE_NAME or WFX_TABLE_PIPELINE_LOGS" in message
    assert "\n" not in message


def test_ssm_unreachable_is_one_line_naming_the_parameter() -> None:
    with pytest.raises(TableNameError) as refused:
        vams_table_names(UnreachableSsm(), PREFIX)

    message = str(refused.value)
    assert message.startswith("VAMS_RESOURCE_PARAM_PREFIX (/vams/prod): cannot read the SSM")
    assert f"{PREFIX}/dynamoTables/" in message
    assert "Could not connect" in message
    assert "\n" not in message


def test_the_settings_read_the_prefix_the_overrides_and_vams_variables() -> None:
    settings = Settings.from_environment(
        {
            "VAMS_RESOURCE_PARAM_PREFIX": "/vams/prod/",
            "WFX_TABLE_PREFIX": "team-",
            "WFX_TABLE_ARTIFACTS": "Artifacts",
            "PIPELINE_EXECUTION_LOGS_STORAGE_TABLE_NAME": "VamsLogs",
            "WORKFLOW_STORAGE_TABLE_V2_NAME": "not one wfx reads",
        }
    )

    assert settings.tables.vams_parameter_prefix == "/vams/prod"
    assert settings.tables.prefix == "team-"
    assert settings.tables.overrides == {ResourceKeys.ARTIFACTS: "Artifacts"}
    assert settings.tables.vams_variables == {ResourceKeys.PIPELINE_LOGS: "VamsLogs"}


def test_vams_variables_name_their_tables_without_a_deployment_prefix_too() -> None:
    names = Settings.from_environment(
        {"PIPELINE_EXECUTIONS_STORAGE_TABLE_NAME": "VamsSteps", "WFX_TABLE_PREFIX": "p-"}
    ).tables.names()

    assert names.get_table_name(ResourceKeys.PIPELINE_EXECUTIONS) == "VamsSteps"
    assert names.get_table_name(EXECUTIONS) == "p-WorkflowExecutionsStorageTableV2"


def test_a_vams_deployment_picks_dynamodb_unless_the_store_is_named() -> None:
    vams = {"VAMS_RESOURCE_PARAM_PREFIX": PREFIX}

    assert Settings.from_environment(vams).store == "dynamodb"
    assert Settings.from_environment(vams | {"WFX_STORE": "dynamodb"}).store == "dynamodb"
    assert Settings.from_environment({}).store == "sqlite"
    with pytest.raises(InvalidInputError, match=r"^WFX_STORE: a VAMS deployment"):
        Settings.from_environment(vams | {"WFX_STORE": "sqlite"})


@pytest.mark.parametrize("prefix", ["vams/prod", "/vams/ prod", "/", "//"])
def test_a_prefix_ssm_cannot_take_is_refused_naming_the_variable(prefix: str) -> None:
    with pytest.raises(InvalidInputError, match=r"^VAMS_RESOURCE_PARAM_PREFIX: must be"):
        Settings.from_environment({"VAMS_RESOURCE_PARAM_PREFIX": prefix})
