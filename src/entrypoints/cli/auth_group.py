"""`wfx auth`: roles, user-role assignments and permission templates on the configured store.

`auth_app` is the group; main.py registers it as `wfx auth`. Other auth commands live in their
own modules and add themselves to `auth_app` (e.g. `wfx auth token`, entrypoints/cli/auth_token.py).
The CLI acts as `cli_subject()`: the OS user with the admin role.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from entrypoints.cli import context
from entrypoints.cli.errors import named_as_given

if TYPE_CHECKING:
    from application.use_cases.administer_roles import AdministerRoles
    from entrypoints.responses import Response

auth_app = typer.Typer(
    no_args_is_help=True, help="Roles, user-role assignments and permission templates."
)
roles_app = typer.Typer(no_args_is_help=True, help="Create, list and delete roles.")
users_app = typer.Typer(no_args_is_help=True, help="Assign roles to users.")
templates_app = typer.Typer(
    no_args_is_help=True, help="The shipped VAMS permission templates, and applying one."
)
auth_app.add_typer(roles_app, name="roles")
auth_app.add_typer(users_app, name="users")
auth_app.add_typer(templates_app, name="templates")

JsonFlag = Annotated[bool, typer.Option("--json", help="Print the answer as JSON.")]
RoleArgument = Annotated[str, typer.Argument(help="Role name (letters, digits, spaces, -_.@).")]
UserArgument = Annotated[str, typer.Argument(help="User id, as the identity provider names it.")]


def _administration() -> AdministerRoles:

    return context.container().administer_roles()


def _print(response: Response) -> None:
    from entrypoints.cli.render import dump_json

    sys.stdout.write(dump_json(response.dump()) + "\n")


# -- roles ----------------------------------------------------------------------------------------


@roles_app.command("create")
def roles_create(
    role: RoleArgument,
    description: Annotated[str, typer.Option(help="What the role is for.")] = "",
    json_output: JsonFlag = False,
) -> None:
    """Create a role (it allows nothing until constraints are applied to it)."""
    from domain.constraints import Role
    from entrypoints.cli.subject import cli_subject
    from entrypoints.responses import RoleResponse

    with named_as_given({"name": "role"}):  # the argument, as typer names it
        created = _administration().create_role(
            cli_subject(), Role(name=role, description=description)
        )
    if json_output:
        _print(RoleResponse.of(created))
    else:
        context.echo(f"role {created.name!r} created")


@roles_app.command("list")
def roles_list(json_output: JsonFlag = False) -> None:
    """Every role, by name."""
    from entrypoints.cli.subject import cli_subject
    from entrypoints.responses import RoleListResponse

    roles = _administration().list_roles(cli_subject())
    if json_output:
        _print(RoleListResponse.of(roles))
        return
    for role in roles:
        context.echo(f"{role.name}\t{role.description}" if role.description else role.name)


@roles_app.command("delete")
def roles_delete(role: RoleArgument, json_output: JsonFlag = False) -> None:
    """Delete a role with its constraints and every assignment of it."""
    from domain.constraints import Role
    from entrypoints.cli.subject import cli_subject
    from entrypoints.responses import RoleResponse

    _administration().delete_role(cli_subject(), role)
    if json_output:
        _print(RoleResponse.of(Role(name=role)))
    else:
        context.echo(f"role {role!r} deleted")


# -- users ----------------------------------------------------------------------------------------


@users_app.command("assign")
def users_assign(user: UserArgument, role: RoleArgument, json_output: JsonFlag = False) -> None:
    """Give a user a role (idempotent)."""
    from domain.constraints import RoleAssignment
    from entrypoints.cli.subject import cli_subject
    from entrypoints.responses import RoleAssignmentResponse

    with named_as_given({"user_id": "user"}):
        assignment = RoleAssignment(user_id=user, role=role)
        _administration().assign(cli_subject(), assignment)
    if json_output:
        _print(RoleAssignmentResponse.of(assignment))
    else:
        context.echo(f"{user} holds role {role!r}")


@users_app.command("unassign")
def users_unassign(user: UserArgument, role: RoleArgument, json_output: JsonFlag = False) -> None:
    """Take a role from a user."""
    from domain.constraints import STORED, RoleAssignment
    from entrypoints.cli.subject import cli_subject
    from entrypoints.responses import RoleAssignmentResponse

    with named_as_given({"user_id": "user"}):
        # any user an assignment may be stored for, as an older wfx stored them, can be freed
        assignment = RoleAssignment.model_validate({"user_id": user, "role": role}, context=STORED)
        held = _administration().unassign(cli_subject(), assignment)
    if json_output:
        _print(RoleAssignmentResponse.of(assignment, assigned=False))
    elif held:
        context.echo(f"{user} no longer holds role {role!r}")
    else:
        context.echo(f"{user} did not hold role {role!r}")


@users_app.command("list")
def users_list(
    user: Annotated[str | None, typer.Option("--user", help="Only this user's roles.")] = None,
    json_output: JsonFlag = False,
) -> None:
    """Every user-role assignment, by user."""
    from entrypoints.cli.subject import cli_subject
    from entrypoints.responses import RoleAssignmentListResponse

    assignments = _administration().list_assignments(cli_subject(), user)
    if json_output:
        _print(RoleAssignmentListResponse.of(assignments))
        return
    for assignment in assignments:
        context.echo(f"{assignment.user_id}\t{assignment.role}")


# -- templates ------------------------------------------------------------------------------------


@templates_app.command("list")
def templates_list(json_output: JsonFlag = False) -> None:
    """The shipped templates and the variables each needs."""
    from adapters.authz.shipped_templates import shipped_templates
    from entrypoints.responses import TemplateListResponse

    response = TemplateListResponse.of(shipped_templates())
    if json_output:
        _print(response)
        return
    for template in response.items:
        needs = "  (needs --database)" if "DATABASE_ID" in template.variables else ""
        context.echo(f"{template.name}\t{template.description}{needs}")


@templates_app.command("apply")
def templates_apply(
    template: Annotated[
        str, typer.Argument(help="A shipped template's name, or a VAMS template JSON file.")
    ],
    role: Annotated[str, typer.Option("--role", help="The role to give its constraints.")],
    database: Annotated[
        str | None, typer.Option("--database", help="The database of a database template.")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Apply a template to a role (created when missing); applying it again replaces the same
    constraints, and another --database adds that database's."""
    from adapters.authz.shipped_templates import load_template
    from entrypoints.cli.subject import cli_subject
    from entrypoints.responses import AppliedTemplateResponse

    loaded = load_template(template)
    with named_as_given({"name": "--role", "role": "--role", "database": "--database"}):
        applied = _administration().apply_template(cli_subject(), loaded, role, database)
    if json_output:
        _print(AppliedTemplateResponse.of(applied))
        return
    where = f" on database {database}" if database else ""
    created = " (role created)" if applied.role_created else ""
    context.echo(
        f"template {applied.template!r} applied to role {applied.role!r}{where}: "
        f"{len(applied.constraints)} constraints{created}"
    )


# -- sessions -------------------------------------------------------------------------------------

# A token revoked by id alone has an expiry the CLI does not know: kept far longer than any
# token lives.
_TOKEN_ID_KEPT_SECONDS = 10 * 366 * 24 * 3600


@auth_app.command("revoke")
def auth_revoke(
    user: Annotated[
        str | None, typer.Argument(metavar="USER", help="Every token of USER issued until now.")
    ] = None,
    token_id: Annotated[
        str | None, typer.Option("--token-id", help="One token, by its id (its `jti`).")
    ] = None,
) -> None:
    """End sessions before their tokens expire: the service refuses the revoked tokens on every
    request, as a cookie or a bearer token (a logout in the viewer revokes its own token)."""
    import time

    from domain.errors import InvalidInputError
    from domain.triggers import user_id_problem

    if (user is None) == (token_id is None):
        raise InvalidInputError("USER or --token-id: give exactly one")
    # USER by the rule `wfx auth token` issues by, so that every token it issues can be revoked
    problem = None if user is None else user_id_problem(user)
    if problem is not None:
        raise InvalidInputError(f"USER: {problem}")
    if token_id is not None and (not token_id.strip() or "#" in token_id or len(token_id) > 256):
        # not `--token-id: must`, which redaction takes for a secret after its name
        raise InvalidInputError(
            "--token-id must be 1-256 characters without '#' (the token's jti, not the token "
            "itself)"
        )
    revoke = context.container().revoke_tokens()
    if token_id is not None:
        revoke.token(token_id, int(time.time()) + _TOKEN_ID_KEPT_SECONDS)
        context.echo(f"revoked token {token_id}")
        return
    assert user is not None
    revoke.user(user)
    context.echo(f"revoked every token of {user} issued until now")
