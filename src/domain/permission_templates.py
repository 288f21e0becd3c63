"""VAMS-format permission templates: a named set of constraints with `{{VARIABLE}}` placeholders,
applied to one role (and, for the database templates, one database).

The format is VAMS's template JSON: `metadata` (name, description, version), `variables` (the
placeholders it needs), optional `variableValues`, and `constraints`, each with `name`,
`objectType`, `criteriaAnd` / `criteriaOr` and `groupPermissions` (`action`, `type`).
`{{ROLE_NAME}}` is always the role the template is applied to.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from domain.authorization import Action
from domain.constraints import (
    REGEX_OPERATORS,
    Constraint,
    Criterion,
    Effect,
    Operator,
    Permission,
)
from domain.errors import InvalidInputError

ROLE_NAME_VARIABLE = "ROLE_NAME"
DATABASE_ID_VARIABLE = "DATABASE_ID"
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Z][A-Z0-9_]*)\s*\}\}")


class _TemplateModel(BaseModel):
    # VAMS templates carry fields wfx has no use for (userPermissions, dates): ignored, not refused.
    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True, defer_build=True)


class TemplateMetadata(_TemplateModel):
    name: str = Field(min_length=1, max_length=200)
    description: str = ""
    version: str = "1.0"


class TemplateVariable(_TemplateModel):
    name: str = Field(pattern=r"^[A-Z][A-Z0-9_]*$")
    required: bool = True
    description: str = ""


class TemplateCriterion(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    field: str
    operator: Operator
    value: str | list[str]


class TemplatePermission(_TemplateModel):
    action: Action
    type: Effect


class TemplateConstraint(_TemplateModel):
    name: str = Field(min_length=1)
    description: str = ""
    object_type: str = Field(alias="objectType")
    criteria_and: list[TemplateCriterion] = Field(default_factory=list, alias="criteriaAnd")
    criteria_or: list[TemplateCriterion] = Field(default_factory=list, alias="criteriaOr")
    group_permissions: list[TemplatePermission] = Field(min_length=1, alias="groupPermissions")


class PermissionTemplate(_TemplateModel):
    metadata: TemplateMetadata
    variables: list[TemplateVariable] = Field(default_factory=list)
    variable_values: dict[str, str] = Field(default_factory=dict, alias="variableValues")
    constraints: list[TemplateConstraint] = Field(min_length=1)

    @property
    def name(self) -> str:
        return self.metadata.name

    def placeholders(self) -> set[str]:
        """Every variable the constraints use."""
        return set(_PLACEHOLDER.findall(self.model_dump_json(include={"constraints"})))

    def instantiate(
        self, role: str, values: Mapping[str, str] | None = None
    ) -> tuple[Constraint, ...]:
        """The template's constraints for `role`; InvalidInputError naming the field when a
        variable has no value or a filled-in constraint breaks a rule."""
        given = {**self.variable_values, **(values or {}), ROLE_NAME_VARIABLE: role}
        needed = self.placeholders() | {v.name for v in self.variables if v.required}
        missing = sorted(name for name in needed if not given.get(name))
        if missing:
            hint = " (apply it with --database)" if DATABASE_ID_VARIABLE in missing else ""
            raise InvalidInputError(
                f"template {self.name!r}: no value for {', '.join(missing)}{hint}"
            )
        return tuple(
            _instantiated(self.name, index, constraint, role, given)
            for index, constraint in enumerate(self.constraints)
        )


def parse_template(document: object, source: str) -> PermissionTemplate:
    """A template from its parsed JSON; InvalidInputError naming the field and the rule."""
    try:
        return PermissionTemplate.model_validate(document)
    except ValidationError as error:
        raise InvalidInputError(f"template {source}: {_first_problem(error)}") from None


def _first_problem(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "(document)"
    return f"{where}: {first['msg']}"


def _filled(text: str, values: Mapping[str, str], escape: bool) -> str:
    def value_of(match: re.Match[str]) -> str:
        value = values[match.group(1)]
        # A database id is data, not a pattern: "db.1" must not match "dbx1".
        return re.escape(value) if escape else value

    return _PLACEHOLDER.sub(value_of, text)


def _criterion(criterion: TemplateCriterion, values: Mapping[str, str]) -> Criterion:
    escape = criterion.operator in REGEX_OPERATORS
    value: str | tuple[str, ...]
    if isinstance(criterion.value, str):
        value = _filled(criterion.value, values, escape)
    else:
        value = tuple(_filled(element, values, escape) for element in criterion.value)
    if criterion.operator in (Operator.IS_ONE_OF, Operator.IS_NOT_ONE_OF) and isinstance(
        value, str
    ):
        # VAMS writes a set of values as one comma-separated string.
        value = tuple(part.strip() for part in value.split(",") if part.strip())
    return Criterion(field=criterion.field, operator=criterion.operator, value=value)


def _instantiated(
    template: str,
    index: int,
    constraint: TemplateConstraint,
    role: str,
    values: Mapping[str, str],
) -> Constraint:
    try:
        return Constraint(
            role=role,
            constraint_id=_filled(constraint.name, values, escape=False),
            object_type=constraint.object_type,
            description=_filled(constraint.description, values, escape=False),
            criteria_and=tuple(_criterion(c, values) for c in constraint.criteria_and),
            criteria_or=tuple(_criterion(c, values) for c in constraint.criteria_or),
            permissions=tuple(
                Permission(action=p.action, effect=p.type) for p in constraint.group_permissions
            ),
        )
    except ValidationError as error:
        raise InvalidInputError(
            f"template {template!r}: constraints.{index}.{_first_problem(error)}"
        ) from None
