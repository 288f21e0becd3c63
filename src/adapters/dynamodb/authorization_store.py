"""`AuthorizationStore` on DynamoDB: one small table; each change is one TransactWriteItems that
also adds one to the revision item, so a reader's revision always matches what it read."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from adapters.authorization_records import (
    PARTITION,
    REVISION,
    ROLE_SORT,
    SORT,
    Item,
    assignment_sort,
    assignments_in,
    build_assignment_record,
    build_constraint_record,
    build_revoked_token_record,
    build_revoked_user_record,
    build_role_name_record,
    build_role_record,
    constraints_in,
    is_assignment,
    is_role,
    name_taken,
    policy_of,
    revision_key,
    revoked,
    revoked_token_key,
    revoked_user_key,
    role_name_key,
    role_partition,
    roles_in,
    user_partition,
)
from adapters.dynamodb.codec import from_wire, to_wire
from adapters.dynamodb.requests import (
    CONDITION_FAILED,
    cancellation_codes,
    get_item,
    query_partition,
)
from adapters.dynamodb.schema import create_tables
from adapters.tables import ResourceKeys, TableNames
from domain.constraints import AuthorizationPolicy, Constraint, Role, RoleAssignment
from domain.errors import RoleAlreadyExistsError, RoleNotFoundError

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

TRANSACTION_LIMIT = 100  # TransactWriteItems' cap on actions in one request
_DELETING = "deleting"  # on a role item while its delete removes what refers to it


class DynamoDbAuthorizationStore:
    """Roles, constraints and assignments in wfx's authorization table."""

    def __init__(self, client: DynamoDBClient, tables: TableNames) -> None:
        self._client = client
        self._tables = tables
        self._table_name = tables.get_table_name(ResourceKeys.AUTHORIZATION)

    def create_tables(self) -> None:
        create_tables(self._client, self._tables)

    def add_role(self, role: Role) -> None:
        puts = [self._put(build_role_record(role)), self._put(build_role_name_record(role))]
        for put in puts:
            put["Put"]["ConditionExpression"] = "attribute_not_exists(#pk)"
            put["Put"]["ExpressionAttributeNames"] = {"#pk": PARTITION}
        failed = self._transact([*puts, self._bump()])
        if failed == 0:
            raise RoleAlreadyExistsError(role.name)
        if failed == 1:
            holder = get_item(self._client, self._table_name, role_name_key(role.name))
            if holder is None:  # its role was deleted since: the name is free again
                self.add_role(role)
                return
            raise name_taken(role.name, holder)

    def list_roles(self) -> list[Role]:
        return roles_in(self._scan())

    def delete_role(self, role_name: str) -> None:
        # Marked first: an assignment or constraint written after the reads below would be left
        # behind, to grant the role again to its holder once a role of that name is made again.
        # The mark refuses them (`_role_exists`); one written before it is read and removed.
        try:
            self._client.update_item(
                TableName=self._table_name,
                Key=to_wire({PARTITION: role_partition(role_name), SORT: ROLE_SORT}),
                UpdateExpression="SET #deleting = :yes",
                ConditionExpression="attribute_exists(#pk)",
                ExpressionAttributeNames={"#pk": PARTITION, "#deleting": _DELETING},
                ExpressionAttributeValues={":yes": {"BOOL": True}},
            )
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise
            raise RoleNotFoundError(role_name) from None
        items = query_partition(
            self._client, self._table_name, PARTITION, role_partition(role_name)
        )
        held = [
            i for i in self._scan() if is_assignment(i) and i[SORT] == assignment_sort(role_name)
        ]
        deletes = [self._delete(item) for item in (*held, *(i for i in items if not is_role(i)))]
        # The role item goes last, with the revision: until then the role still reads as present.
        for start in range(0, len(deletes), TRANSACTION_LIMIT):
            self._transact(deletes[start : start + TRANSACTION_LIMIT])
        role_items = [i for i in items if is_role(i)]
        if not role_items:  # another delete of it finished first
            raise RoleNotFoundError(role_name)
        last = [self._delete(role_items[0]), self._bump()]
        name = get_item(self._client, self._table_name, role_name_key(role_name))
        if name is not None and name.get("roleName") == role_name:  # none for an older role
            last.append(self._delete(name))
        self._transact(last)

    def assign(self, assignment: RoleAssignment) -> None:
        actions = [
            self._role_exists(assignment.role),
            self._put(build_assignment_record(assignment)),
        ]
        if self._transact(actions) == 0:
            raise RoleNotFoundError(assignment.role)

    def unassign(self, assignment: RoleAssignment) -> bool:
        key = {
            PARTITION: user_partition(assignment.user_id),
            SORT: assignment_sort(assignment.role),
        }
        response = self._client.delete_item(
            TableName=self._table_name, Key=to_wire(key), ReturnValues="ALL_OLD"
        )
        return bool(response.get("Attributes"))

    def list_assignments(self, user_id: str | None = None) -> list[RoleAssignment]:
        if user_id is None:
            return assignments_in(self._scan())
        return assignments_in(
            query_partition(self._client, self._table_name, PARTITION, user_partition(user_id))
        )

    def roles_of(self, user_id: str) -> tuple[str, ...]:
        return tuple(a.role for a in self.list_assignments(user_id))

    def put_constraints(self, constraints: Sequence[Constraint]) -> None:
        roles = sorted({c.role for c in constraints})
        # Two puts of one key in one transaction are refused: the later constraint wins.
        records = {(c.role, c.constraint_id): build_constraint_record(c) for c in constraints}
        puts = [self._put(item) for item in records.values()]
        room = TRANSACTION_LIMIT - len(roles) - 1
        for start in range(0, len(puts), room):
            checks = [self._role_exists(role) for role in roles]
            failed = self._transact([*checks, *puts[start : start + room], self._bump()])
            if failed is not None and failed < len(roles):
                raise RoleNotFoundError(roles[failed])

    def list_constraints(self, role_name: str | None = None) -> list[Constraint]:
        if role_name is None:
            return constraints_in(self._scan())
        return constraints_in(
            query_partition(self._client, self._table_name, PARTITION, role_partition(role_name))
        )

    def revision(self) -> str:
        item = get_item(self._client, self._table_name, revision_key())
        return str(item[REVISION]) if item else "0"

    def policy(self) -> AuthorizationPolicy:
        # A Scan is not one snapshot: read the revision before and after, and again if it moved.
        while True:
            before = self.revision()
            items = list(self._scan())
            if self.revision() == before:
                break
        return policy_of(before, items)

    # -- RevokedTokens -------------------------------------------------------------------------

    def revoke_token(self, token_id: str, expires_at: int) -> None:
        record = build_revoked_token_record(token_id, expires_at)
        self._client.put_item(TableName=self._table_name, Item=to_wire(record))

    def revoke_user(self, user_id: str, issued_until: int) -> None:
        record = build_revoked_user_record(user_id, issued_until)
        self._client.put_item(TableName=self._table_name, Item=to_wire(record))

    def is_revoked(self, token_id: str, user_id: str, issued_at: int) -> bool:
        token = get_item(self._client, self._table_name, revoked_token_key(token_id))
        user = get_item(self._client, self._table_name, revoked_user_key(user_id))
        return revoked(token, user, issued_at)

    # -- requests ----------------------------------------------------------------------------

    def _scan(self) -> Iterator[Item]:
        request: dict[str, Any] = {"TableName": self._table_name, "ConsistentRead": True}
        while True:
            response = self._client.scan(**request)
            yield from (from_wire(item) for item in response["Items"])
            last_key = response.get("LastEvaluatedKey")
            if not last_key:
                return
            request["ExclusiveStartKey"] = last_key

    def _put(self, item: Item) -> dict[str, Any]:
        return {"Put": {"TableName": self._table_name, "Item": to_wire(item)}}

    def _delete(self, item: Item) -> dict[str, Any]:
        key = {PARTITION: item[PARTITION], SORT: item[SORT]}
        return {"Delete": {"TableName": self._table_name, "Key": to_wire(key)}}

    def _role_exists(self, role_name: str) -> dict[str, Any]:
        key = {PARTITION: role_partition(role_name), SORT: ROLE_SORT}
        return {
            "ConditionCheck": {
                "TableName": self._table_name,
                "Key": to_wire(key),
                "ConditionExpression": "attribute_exists(#pk) AND attribute_not_exists(#deleting)",
                "ExpressionAttributeNames": {"#pk": PARTITION, "#deleting": _DELETING},
            }
        }

    def _bump(self) -> dict[str, Any]:
        return {
            "Update": {
                "TableName": self._table_name,
                "Key": to_wire(revision_key()),
                "UpdateExpression": "ADD #revision :one",
                "ExpressionAttributeNames": {"#revision": REVISION},
                "ExpressionAttributeValues": {":one": {"N": "1"}},
            }
        }

    def _transact(self, actions: list[dict[str, Any]]) -> int | None:
        """Run the actions as one transaction; the index of the condition that failed, or None."""
        try:
            self._client.transact_write_items(TransactItems=actions)  # type: ignore[arg-type]
        except ClientError as exc:
            codes = cancellation_codes(exc)
            if CONDITION_FAILED in codes:
                return codes.index(CONDITION_FAILED)
            raise
        return None
