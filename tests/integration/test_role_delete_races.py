"""A role deleted on DynamoDB while another process assigns it or applies constraints to it: the
delete reads the role's assignments (a Scan) and constraints before it removes them, so a write
landing in between must be refused, not left behind to grant the role's rights again to whoever
held it once a role of that name is created again."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from adapters.dynamodb.authorization_store import DynamoDbAuthorizationStore
from adapters.tables import TableNames
from domain.authorization import Action
from domain.constraints import Constraint, Effect, Permission, Role, RoleAssignment
from domain.errors import RoleNotFoundError


def _constraint(role: str) -> Constraint:
    return Constraint(
        role=role,
        constraint_id="read-all",
        object_type="workflow",
        permissions=(Permission(action=Action.GET, effect=Effect.ALLOW),),
    )


class _AnotherWriterAfterTheScan(DynamoDbAuthorizationStore):
    def __init__(self, client: Any, tables: TableNames) -> None:
        super().__init__(client, tables)
        self.other = DynamoDbAuthorizationStore(client, tables)
        self.refused: list[str] = []
        self._armed = True

    def _scan(self) -> Iterator[dict[str, Any]]:
        yield from super()._scan()
        if self._armed:
            self._armed = False
            try:
                self.other.assign(RoleAssignment(user_id="mallory", role="temp"))
            except RoleNotFoundError as refused:
                self.refused.append(str(refused))
            try:
                self.other.put_constraints([_constraint("temp")])
            except RoleNotFoundError as refused:
                self.refused.append(str(refused))


@pytest.mark.usefixtures("dynamodb_authorization_store")  # the tables made
def test_an_assignment_or_constraint_written_while_its_role_is_deleted_is_refused(
    moto_dynamodb_client: Any, dynamodb_table_names: TableNames
) -> None:
    store = _AnotherWriterAfterTheScan(moto_dynamodb_client, dynamodb_table_names)
    store.add_role(Role(name="temp"))
    store.assign(RoleAssignment(user_id="alice", role="temp"))

    store.delete_role("temp")

    assert store.refused == ["role 'temp' not found"] * 2
    store.add_role(Role(name="temp"))  # a new role of the same name holds nothing of the old
    assert store.list_assignments() == []
    assert store.list_constraints("temp") == []
