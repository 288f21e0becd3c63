"""AdministerRoles: roles, user-role assignments and permission templates, as VAMS's auth API.

One small class rather than seven one-line use cases: each method is one store call behind one
tier-2 check, on VAMS's `role` and `userRole` object types (admin passes; the CLI acts as admin).
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

from application.authorization import AccessControl
from application.ports.access import AuthorizationStore
from domain.authorization import Action, Subject
from domain.constraints import Constraint, Role, RoleAssignment, lookalike_problem
from domain.errors import InvalidInputError, RoleAlreadyExistsError
from domain.permission_templates import DATABASE_ID_VARIABLE, PermissionTemplate
from domain.workflow import IDENTIFIER_MAX_LENGTH, IDENTIFIER_PATTERN, IDENTIFIER_RULE


class AppliedTemplate(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    template: str
    role: str
    database_id: str | None = None
    role_created: bool
    constraints: tuple[Constraint, ...]


def _role(role_name: str) -> dict[str, str]:
    return {"object__type": "role", "roleName": role_name}


def _user_role(assignment: RoleAssignment) -> dict[str, str]:
    return {"object__type": "userRole", "userId": assignment.user_id, "roleName": assignment.role}


class AdministerRoles:
    """Create, list and delete roles; assign and unassign them; apply a template to a role."""

    def __init__(self, store: AuthorizationStore, access: AccessControl) -> None:
        self._store, self._access = store, access

    def create_role(self, subject: Subject, role: Role) -> Role:
        self._access.require(subject, _role(role.name), Action.POST)
        self._refuse_lookalike(role.name)
        self._store.add_role(role)
        return role

    def list_roles(self, subject: Subject) -> list[Role]:
        self._access.require(subject, {"object__type": "role"}, Action.GET)
        return self._store.list_roles()

    def delete_role(self, subject: Subject, role_name: str) -> None:
        self._access.require(subject, _role(role_name), Action.DELETE)
        self._store.delete_role(role_name)

    def assign(self, subject: Subject, assignment: RoleAssignment) -> RoleAssignment:
        self._access.require(subject, _user_role(assignment), Action.POST)
        self._store.assign(assignment)
        return assignment

    def unassign(self, subject: Subject, assignment: RoleAssignment) -> bool:
        self._access.require(subject, _user_role(assignment), Action.DELETE)
        return self._store.unassign(assignment)

    def list_assignments(
        self, subject: Subject, user_id: str | None = None
    ) -> list[RoleAssignment]:
        self._access.require(subject, {"object__type": "userRole"}, Action.GET)
        return self._store.list_assignments(user_id)

    def apply_template(
        self,
        subject: Subject,
        template: PermissionTemplate,
        role_name: str,
        database_id: str | None = None,
    ) -> AppliedTemplate:
        """The template's constraints for the role (created first when missing, described by
        the template); applying it again replaces the same constraints."""
        role = Role(name=role_name, description=template.metadata.description[:1000])
        self._access.require(subject, _role(role.name), Action.PUT)
        if database_id is not None and not _is_identifier(database_id):
            # constraints on a database no database can be named would grant nothing, silently
            raise InvalidInputError(f"database: {database_id!r} {IDENTIFIER_RULE}")
        takes = template.placeholders() | {variable.name for variable in template.variables}
        if database_id is not None and DATABASE_ID_VARIABLE not in takes:
            # applied anyway, it would grant on every database what was asked for one
            raise InvalidInputError(
                f"database: template {template.name!r} takes no database: it applies to every "
                "database; leave the database out, or apply a database template"
            )
        values = {DATABASE_ID_VARIABLE: database_id} if database_id else {}
        constraints = template.instantiate(role.name, values)  # refused before any write
        self._refuse_lookalike(role.name)
        # created, or found made: not looked for first, as another apply may make it in between
        try:
            self._store.add_role(role)
            created = True
        except RoleAlreadyExistsError:
            created = False
        self._store.put_constraints(constraints)
        return AppliedTemplate(
            template=template.name,
            role=role.name,
            database_id=database_id,
            role_created=created,
            constraints=constraints,
        )

    def _refuse_lookalike(self, role_name: str) -> None:
        # On the roles read now, so the built-in `admin` and a role older than the stores' name
        # items are named too; of two creates at once of `Foo` and `foo`, the store's write
        # refuses the later (the name item, AuthorizationStore.add_role).
        names = [r.name for r in self._store.list_roles()]
        problem = None if role_name in names else lookalike_problem(role_name, names)
        if problem is not None:
            raise InvalidInputError(f"role: {problem}")


def _is_identifier(text: str) -> bool:
    return len(text) <= IDENTIFIER_MAX_LENGTH and re.match(IDENTIFIER_PATTERN, text) is not None
