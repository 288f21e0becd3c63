"""A VAMS deployment's table names, as VAMS itself finds them: SSM parameters under the
deployment's prefix, read once (GetParameters, ten names a call) when the names are first needed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from adapters.tables import VAMS_TABLES, ResourceKeys, TableNameError, TableNames

PREFIX_VARIABLE = "VAMS_RESOURCE_PARAM_PREFIX"
_NAMES_PER_CALL = 10  # GetParameters' limit


def parameter_name(parameter_prefix: str, key: ResourceKeys) -> str:
    return f"{parameter_prefix.rstrip('/')}/{VAMS_TABLES[key].parameter}"


def vams_table_names(
    ssm: Any,
    parameter_prefix: str,
    prefix: str = "",
    overrides: Mapping[ResourceKeys, str] | None = None,
    variables: Mapping[ResourceKeys, str] | None = None,
) -> TableNames:
    """The names with the deployment's: WFX_TABLE_<KEY> (`overrides`), then VAMS's per-table
    variables, then the SSM parameters; SSM is asked only for the tables neither names."""
    overrides, variables = overrides or {}, variables or {}
    asked = [key for key in VAMS_TABLES if key not in overrides and key not in variables]
    found = _read_parameters(ssm, parameter_prefix, asked)
    unresolved = {
        key: _missing_parameter(parameter_prefix, key) for key in asked if key not in found
    }
    return TableNames(
        prefix=prefix,
        overrides=overrides,
        deployment={**found, **variables},
        unresolved=unresolved,
    )


def _read_parameters(
    ssm: Any, parameter_prefix: str, keys: Iterable[ResourceKeys]
) -> dict[ResourceKeys, str]:
    by_name = {parameter_name(parameter_prefix, key): key for key in keys}
    names = list(by_name)
    found: dict[ResourceKeys, str] = {}
    for start in range(0, len(names), _NAMES_PER_CALL):
        batch = names[start : start + _NAMES_PER_CALL]
        try:
            answer = ssm.get_parameters(Names=batch)
        except (BotoCoreError, ClientError) as error:
            raise TableNameError(
                f"{PREFIX_VARIABLE} ({parameter_prefix}): cannot read the SSM parameter "
                f"{batch[0]} (nor the other table names of the VAMS deployment): {error}; "
                "check the prefix, the region and the credentials, or name each table with "
                "WFX_TABLE_<KEY>"
            ) from None
        for parameter in answer.get("Parameters", []):
            found[by_name[parameter["Name"]]] = parameter["Value"]
    return found


def _missing_parameter(parameter_prefix: str, key: ResourceKeys) -> str:
    variable = VAMS_TABLES[key].variables[0]
    return (
        f"{PREFIX_VARIABLE} ({parameter_prefix}): the SSM parameter "
        f"{parameter_name(parameter_prefix, key)} does not exist, so the VAMS deployment's "
        f"{key.value} table has no name; check the prefix and the region, or name the table "
        f"with {variable} or WFX_TABLE_{key.value}"
    )
