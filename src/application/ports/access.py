"""The ports of authorization: the decision, its audit, tokens and the policy's store."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from domain.authorization import AccessDecision, Action, Subject
    from domain.constraints import AuthorizationPolicy, Constraint, Role, RoleAssignment


class Authorizer(Protocol):
    """Decides one (subject, object, action) by the roles' constraints; deny wins (seed 000's
    two tiers both ask it). `obj` holds the fields constraints test (`object__type`,
    `databaseId`, `workflowId`, `assetName`, `route__path`, ...)."""

    def decide(
        self, subject: Subject, obj: Mapping[str, Any], action: Action
    ) -> AccessDecision: ...


class AuditLog(Protocol):
    """Where denials are written: who, the route, the object, the rule; never a secret."""

    def denied(
        self, subject: Subject, route: str, obj: Mapping[str, Any], decision: AccessDecision
    ) -> None: ...


class TokenVerifier(Protocol):
    """A bearer token to the subject it names; raises NotAuthenticatedError for none, a bad one
    or an expired one."""

    def verify(self, token: str) -> Subject: ...


class RevokedTokens(Protocol):
    """Tokens refused before they expire (seconds since the epoch throughout): one token by
    its id, kept until it would expire anyway, or every token of a user issued up to a moment."""

    def revoke_token(self, token_id: str, expires_at: int) -> None: ...

    def revoke_user(self, user_id: str, issued_until: int) -> None: ...

    def is_revoked(self, token_id: str, user_id: str, issued_at: int) -> bool: ...


class AuthorizationStore(Protocol):
    """Roles, their constraints and user-role assignments. Every write of a role or constraint
    moves `revision()` on, so an authorizer keeps its compiled policy until it changes.
    add_role raises RoleAlreadyExistsError, or InvalidInputError for a name one letter case from
    a stored role's (checked by the write itself); a write naming a missing role,
    RoleNotFoundError."""

    def create_tables(self) -> None: ...

    def add_role(self, role: Role) -> None: ...

    def list_roles(self) -> list[Role]:
        """Every role, by name."""
        ...

    def delete_role(self, role_name: str) -> None:
        """The role, its constraints and every assignment of it."""
        ...

    def assign(self, assignment: RoleAssignment) -> None:
        """Idempotent: assigning a held role again changes nothing."""
        ...

    def unassign(self, assignment: RoleAssignment) -> bool:
        """False when the user did not hold the role."""
        ...

    def list_assignments(self, user_id: str | None = None) -> list[RoleAssignment]:
        """Every assignment (of one user), by user then role."""
        ...

    def roles_of(self, user_id: str) -> tuple[str, ...]:
        """The roles assigned to the user, by name; one consistent read."""
        ...

    def put_constraints(self, constraints: Sequence[Constraint]) -> None:
        """Add or replace each constraint (keyed by role and constraint id), all at once."""
        ...

    def list_constraints(self, role_name: str | None = None) -> list[Constraint]:
        """Every constraint (of one role), by role then id."""
        ...

    def revision(self) -> str:
        """Changes whenever a role or constraint is written; one small read."""
        ...

    def policy(self) -> AuthorizationPolicy:
        """Every role and constraint with the revision they are as of."""
        ...
