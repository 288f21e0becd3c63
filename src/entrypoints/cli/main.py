"""`wfx`: run workflows locally and inspect what happened, on SQLite or DynamoDB."""

from __future__ import annotations

import copy
import inspect
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup
from typer.main import get_command_name
from typer.models import CommandInfo

from application.stale_reads import noting_stale_reads
from domain.bounds import MAX_STORED_INTEGER
from entrypoints.cli import context
from entrypoints.cli.approvals import approvals_app
from entrypoints.cli.assets import assets_download, assets_list, assets_show
from entrypoints.cli.auth_group import auth_app
from entrypoints.cli.auth_token import auth_token
from entrypoints.cli.backfill import backfill_list_partition
from entrypoints.cli.costs import costs_app
from entrypoints.cli.counts import counted
from entrypoints.cli.errors import EXIT_FAILED_RUN, exit_for
from entrypoints.cli.infra import infra_app
from entrypoints.cli.migrate import migrate_app
from entrypoints.cli.transfer import export, import_

if TYPE_CHECKING:
    from domain.paging import Page
    from domain.workflow import WorkflowVersion
    from entrypoints.container import Container


class _Program(TyperGroup):
    """The whole command tree, each command listed in its group's help by its first paragraph
    as one line for rich to wrap: typer's rich help keeps a docstring's own line breaks there
    (the command's own --help joins them), cutting sentences at 80 columns."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        _unwrap_list_entries(self.commands.values())


def _unwrap_list_entries(commands: Iterable[Any]) -> None:
    # typer may vendor click: groups are told by their sub-commands, not by click's classes
    for command in commands:
        first = inspect.cleandoc((command.help or "").partition("\f")[0]).split("\n\n")[0]
        if command.short_help is None and not first.startswith("\b"):
            command.short_help = " ".join(first.split())
        _unwrap_list_entries(getattr(command, "commands", {}).values())


app = typer.Typer(
    cls=_Program,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    help="Launch, track, list and inspect workflow executions (SQLite by default, or DynamoDB).",
)


def _print_version(asked: bool) -> None:
    if not asked:
        return
    from entrypoints.cli.version import version_line

    sys.stdout.write(version_line())
    raise typer.Exit()


@app.callback()
def _options(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Launch, track, list and inspect workflow executions (SQLite by default, or DynamoDB)."""


tables_app = typer.Typer(no_args_is_help=True, help="Create the storage tables.")
workflows_app = typer.Typer(
    no_args_is_help=True,
    help="Publish, list and deploy workflow versions (Step Functions).",
)
assets_app = typer.Typer(
    no_args_is_help=True, help="Import asset files, list them, show one, download any version."
)
executions_app = typer.Typer(
    no_args_is_help=True, help="List, inspect, abort, redrive and delete executions."
)
app.add_typer(tables_app, name="tables")
app.add_typer(workflows_app, name="workflows")
app.add_typer(assets_app, name="assets")
assets_app.command("list")(assets_list)
assets_app.command("show")(assets_show)
assets_app.command("download")(assets_download)
app.add_typer(executions_app, name="executions")
maintenance_app = typer.Typer(no_args_is_help=True, help="Repair and follow-up tasks.")
app.add_typer(maintenance_app, name="maintenance")
maintenance_app.command("backfill-list-partition")(backfill_list_partition)
pipelines_app = typer.Typer(
    no_args_is_help=True, help="What a running pipeline step reports about itself."
)
app.add_typer(pipelines_app, name="pipelines")
# Roles, assignments, templates, and the bearer tokens of the HTTP service.
auth_app.command("token")(auth_token)
app.add_typer(auth_app, name="auth")
app.add_typer(infra_app, name="infra")
app.add_typer(costs_app, name="costs")
app.add_typer(migrate_app, name="migrate")
app.add_typer(approvals_app, name="approvals")
app.command("export")(export)
app.command("import")(import_)

JsonFlag = Annotated[
    bool, typer.Option("--json", help="Print the records as JSON (the HTTP service's fields).")
]


@tables_app.command("create")
def tables_create(json_output: JsonFlag = False) -> None:
    """Create every table on the configured store (idempotent)."""
    from adapters.tables import CREATED_TABLES
    from entrypoints.container import create_all_tables
    from entrypoints.settings import Settings

    container = context.container()
    create_all_tables(container)
    tables = container.tables()
    names = [tables.get_table_name(spec.key) for spec in CREATED_TABLES]
    if json_output:
        from entrypoints.cli.render import dump_json
        from entrypoints.responses import TablesResponse

        store = str(container.config.store())
        context.echo(dump_json(TablesResponse(store=store, tables=tuple(names)).dump()))
        return
    context.echo(f"{len(names)} tables ready on {Settings.from_environment().describe_store()}")
    for name in names:
        context.echo(f"  {name}")


@workflows_app.command("publish")
def workflows_publish(
    file: Annotated[Path, typer.Argument(help="Workflow file (YAML).")],
    json_output: JsonFlag = False,
) -> None:
    """Publish a workflow file as a new immutable version (unchanged files reuse the latest)."""
    version, created = _publish(context.container(), file)
    if json_output:
        from entrypoints.cli.render import dump_json
        from entrypoints.responses import WorkflowVersionResponse

        context.echo(dump_json(WorkflowVersionResponse.of(version, created=created).dump()))
        return
    verb = "Published" if created else "Unchanged:"
    context.echo(
        f"{verb} {version.database_id}/{version.workflow_id} version {version.version} "
        f"({counted(len(version.steps), 'step')})"
    )


@workflows_app.command("deploy")
def workflows_deploy(
    workflow: Annotated[str, typer.Argument(metavar="DATABASE_ID/WORKFLOW_ID")],
    version: Annotated[
        int | None,
        typer.Option(min=1, max=MAX_STORED_INTEGER, help="Workflow version (default: latest)."),
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Create or update the version's Step Functions state machine; prints its ARN.

    Needs WFX_SFN_ROLE_ARN, WFX_SFN_LOG_GROUP_ARN and WFX_LAMBDA_{TRACKING,COMPLETION,ERROR}_ARN.
    """
    from application.use_cases.deploy_workflow_version import DeployWorkflowVersionCommand
    from domain.assets import AssetRef

    ref = AssetRef.parse(
        workflow, "DATABASE_ID/WORKFLOW_ID", allow_file=False, shape="DATABASE_ID/WORKFLOW_ID"
    )
    command = DeployWorkflowVersionCommand(
        database_id=ref.database_id, workflow_id=ref.asset_id, version=version
    )
    container = context.container()
    result = container.deploy_workflow_version().execute(command)
    if result.outside_prefix:
        prefix = container.config.state_machine_prefix()
        context.warn(
            f"{ref.database_id}/{ref.asset_id} version {result.version.version} keeps its "
            f"state machine {result.state_machine_name}, outside WFX_STATE_MACHINE_PREFIX "
            f"{prefix}: the stack's functions reach its runs only when EarlierStateMachinePattern "
            "names it; publish a new version to deploy under the prefix"
        )
    if json_output:
        from entrypoints.cli.render import dump_json
        from entrypoints.responses import WorkflowVersionResponse

        answer = WorkflowVersionResponse.of(
            result.version, state_machine_name=result.state_machine_name
        )
        context.echo(dump_json(answer.dump()))
        return
    context.echo(result.state_machine_arn)


PageSize = Annotated[int, typer.Option(min=1, max=100, help="Page size, 1 to 100.")]
StartingToken = Annotated[str | None, typer.Option(help="Token printed by the previous page.")]


@workflows_app.command("list")
def workflows_list(
    database: Annotated[
        str | None, typer.Option(metavar="DATABASE_ID", help="Only this database's workflows.")
    ] = None,
    limit: PageSize = 20,
    starting_token: StartingToken = None,
    json_output: JsonFlag = False,
) -> None:
    """List workflow definitions (owner, latest version, created), by database, then workflow."""
    from application.use_cases.list_workflows import ListWorkflowsQuery

    query = ListWorkflowsQuery(database_id=database, limit=limit, starting_token=starting_token)
    page = context.container().list_workflows().execute(query)
    if json_output:
        from entrypoints.cli.render import dump_json
        from entrypoints.responses import WorkflowDefinitionPageResponse

        context.echo(dump_json(WorkflowDefinitionPageResponse.of(page).dump()))
        return
    from entrypoints.cli.render import workflow_definitions_table

    console = context.console()
    console.print(workflow_definitions_table(page.items) if page.items else "No workflows.")
    if page.next_token:
        console.print(f"\nNext page: --starting-token {page.next_token}", soft_wrap=True)


@workflows_app.command("show")
def workflows_show(
    workflow: Annotated[str, typer.Argument(metavar="DATABASE_ID/WORKFLOW_ID")],
    version: Annotated[
        int | None, typer.Option(min=1, max=MAX_STORED_INTEGER, help="Version (default: latest).")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Show a workflow: its definition, a version's step definitions, and its versions."""
    from application.use_cases.show_workflow import ShowWorkflowQuery
    from domain.assets import AssetRef

    ref = AssetRef.parse(
        workflow, "DATABASE_ID/WORKFLOW_ID", allow_file=False, shape="DATABASE_ID/WORKFLOW_ID"
    )
    query = ShowWorkflowQuery(
        database_id=ref.database_id, workflow_id=ref.asset_id, version=version
    )
    view = context.container().show_workflow().execute(query)
    if json_output:
        from entrypoints.cli.render import dump_json
        from entrypoints.responses import WorkflowResponse

        context.echo(dump_json(WorkflowResponse.of_view(view).dump()))
        return
    from entrypoints.cli.render import print_workflow

    print_workflow(context.console(), view)


@workflows_app.command("versions")
def workflows_versions(
    workflow: Annotated[str, typer.Argument(metavar="DATABASE_ID/WORKFLOW_ID")],
    limit: PageSize = 20,
    starting_token: StartingToken = None,
    json_output: JsonFlag = False,
) -> None:
    """List a workflow's published versions, newest first."""
    from application.use_cases.list_workflows import ListWorkflowVersionsQuery
    from domain.assets import AssetRef

    ref = AssetRef.parse(
        workflow, "DATABASE_ID/WORKFLOW_ID", allow_file=False, shape="DATABASE_ID/WORKFLOW_ID"
    )
    query = ListWorkflowVersionsQuery(
        database_id=ref.database_id,
        workflow_id=ref.asset_id,
        limit=limit,
        starting_token=starting_token,
    )
    page = context.container().list_workflow_versions().execute(query)
    _print_versions_page(page, json_output)


def _print_versions_page(page: Page[WorkflowVersion], json_output: bool) -> None:
    if json_output:
        from entrypoints.cli.render import dump_json
        from entrypoints.responses import WorkflowPageResponse

        context.echo(dump_json(WorkflowPageResponse.of(page).dump()))
        return
    from entrypoints.cli.render import workflow_versions_table

    console = context.console()
    if not page.items:
        console.print("No versions.")
    else:
        console.print(workflow_versions_table(page.items))
    if page.next_token:
        console.print(f"\nNext page: --starting-token {page.next_token}", soft_wrap=True)


def _publish(container: Container, file: Path) -> tuple[Any, bool]:
    from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
    from application.workflow_documents import anchored_at, parse_workflow_document
    from entrypoints.cli.workflow_file import read_workflow_file

    document = anchored_at(parse_workflow_document(read_workflow_file(file)), file.parent)
    result = container.publish_workflow_version().execute(
        PublishWorkflowVersionCommand(document=document, published_by=container.config.user())
    )
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return result.version, result.created


@assets_app.command("import")
def assets_import(
    database_id: Annotated[str, typer.Argument(metavar="DATABASE_ID")],
    asset_id: Annotated[str, typer.Argument(metavar="ASSET_ID")],
    paths: Annotated[list[Path], typer.Argument(metavar="PATH...", help="Files or folders.")],
    metadata: Annotated[
        list[str] | None, typer.Option("--metadata", "-m", help="KEY=VALUE, repeatable.")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Import local files into an asset; each import stores a new version of each file."""
    stored = _import(context.container(), database_id, asset_id, paths, metadata or [])
    if json_output:
        from entrypoints.cli.render import dump_json
        from entrypoints.responses import AssetFileResponse

        context.echo(dump_json([AssetFileResponse.of(asset_file).dump() for asset_file in stored]))
        return
    from domain.control_characters import escape_control_characters

    for asset_file in stored:
        # a newline or a tab in a file's name is escaped too: one file, one line
        key = escape_control_characters(asset_file.file_key, keep="")
        context.echo(f"{database_id}/{asset_id}/{key}  version {asset_file.version_id}")


def _import(
    container: Container, database_id: str, asset_id: str, paths: list[Path], metadata: list[str]
) -> list[Any]:
    from application.use_cases.import_asset_files import ImportAssetFilesCommand, ImportedFile
    from domain.assets import check_asset_ids
    from domain.errors import InvalidInputError
    from entrypoints.cli.import_paths import files_to_import
    from entrypoints.cli.interrupts import saying_what_ctrl_c_left

    check_asset_ids(database_id, asset_id, "DATABASE_ID ASSET_ID")
    pairs = []
    for entry in metadata:
        key, sep, value = entry.partition("=")
        if not sep or not key:
            raise InvalidInputError(f"--metadata: expected KEY=VALUE, got {entry!r}")
        pairs.append((key, value))
    command = ImportAssetFilesCommand(
        database_id=database_id,
        asset_id=asset_id,
        files=tuple(
            ImportedFile(file_key=k, path=p) for k, p in files_to_import(paths, context.warn)
        ),
        metadata=tuple(pairs),
    )
    # the files of an import are recorded in one write, at its end
    with saying_what_ctrl_c_left(
        lambda: (
            f"none of the {counted(len(command.files), 'file')} was recorded in "
            f"{database_id}/{asset_id} (an import records them together, at its end); run the "
            "command again"
        )
    ):
        return container.import_asset_files().execute(command)


@app.command("run")
def run(
    workflow: Annotated[str, typer.Argument(metavar="DATABASE_ID/WORKFLOW_ID")],
    inputs: Annotated[
        list[str] | None,
        typer.Option(
            "--input", "-i", metavar="DATABASE_ID/ASSET_ID[/FILE_KEY]", help="Repeatable."
        ),
    ] = None,
    output: Annotated[str | None, typer.Option(metavar="DATABASE_ID/ASSET_ID")] = None,
    group: Annotated[str | None, typer.Option(metavar="GROUP_ID")] = None,
    trigger: Annotated[str, typer.Option(help="manual or fileUpload.")] = "manual",
    version: Annotated[
        int | None,
        typer.Option(min=1, max=MAX_STORED_INTEGER, help="Workflow version (default: latest)."),
    ] = None,
    client_token: Annotated[
        str | None, typer.Option(help="Idempotency token: a retry with it returns the same run.")
    ] = None,
    no_wait: Annotated[bool, typer.Option("--no-wait", help="Start the run and return.")] = False,
    runner: Annotated[
        str | None,
        typer.Option(
            metavar="local|stepfunctions",
            help="Where the run goes (default: WFX_RUNNER, else local). On stepfunctions the "
            "command prints the id and the execution ARN and returns; the run goes on in AWS.",
        ),
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Launch a workflow run; shows each step live and prints the execution id."""
    from domain.assets import AssetRef

    ref = AssetRef.parse(
        workflow, "DATABASE_ID/WORKFLOW_ID", allow_file=False, shape="DATABASE_ID/WORKFLOW_ID"
    )
    container = context.container(runner_mode="detached" if no_wait else "thread", runner=runner)
    execution, created = _launch(
        container,
        ref.database_id,
        ref.asset_id,
        inputs or [],
        output,
        group,
        trigger,
        version,
        client_token,
    )
    execution_id = execution.workflow_execution_id
    on_aws = container.config.runner() == "stepfunctions"
    if on_aws and not no_wait and not json_output:
        print(
            f"Started on Step Functions: {execution.execution_arn} (the run goes on in AWS; "
            f"see it with `wfx executions show {execution_id}`)",
            file=sys.stderr,
        )
    elif not on_aws and not no_wait:
        # a replayed launch's run goes on in the process that launched it first
        execution = _follow(container, execution_id, json_output, ran_elsewhere=not created)
    _print_run(execution, json_output)


# the launch and rerun commands' fields, by the option a user gives each
_RUN_OPTIONS = {
    "execution_group_id": "--group",
    "executionGroupId": "--group",
    "client_token": "--client-token",
    "clientToken": "--client-token",
    "trigger": "--trigger",
    "workflow_version": "--version",
    "inputs": "--input",
}


def _launch(
    container: Container,
    database_id: str,
    workflow_id: str,
    inputs: list[str],
    output: str | None,
    group: str | None,
    trigger: str,
    version: int | None,
    client_token: str | None,
) -> tuple[Any, bool]:
    """The run launched (or the one its client token launched already), and whether this
    launch created it."""
    from application.use_cases.launch_execution import LaunchExecutionCommand
    from domain.assets import AssetRef, check_asset_ids

    if output is not None:  # here too, to name the option as the user typed it
        target = AssetRef.parse(output, "--output", allow_file=False)
        check_asset_ids(target.database_id, target.asset_id, "--output")
    from entrypoints.cli.errors import named_as_given

    with named_as_given(_RUN_OPTIONS):
        command = LaunchExecutionCommand(
            workflow_database_id=database_id,
            workflow_id=workflow_id,
            workflow_version=version,
            inputs=tuple(inputs),
            output=output,
            execution_group_id=group,
            trigger=trigger,
            user_id=container.config.user(),
            client_token=client_token,
        )
        result = container.launch_execution().execute(command)
    return result.execution, result.created


def _wait_or_abort(
    container: Container,
    execution_id: str,
    show_progress: bool,
    json_output: bool = False,
    ran_elsewhere: bool = False,
) -> Any:
    """_wait, with Ctrl-C, SIGTERM and SIGHUP aborting the run (exit 130, 143, 129)."""
    from entrypoints.cli.interrupts import aborting_on_signals

    def wait() -> Any:
        return _wait(container, execution_id, show_progress, ran_elsewhere)

    return aborting_on_signals(container, execution_id, wait, json_output)


def _wait(
    container: Container, execution_id: str, show_progress: bool, ran_elsewhere: bool = False
) -> Any:
    from entrypoints.cli.interrupts import stored_end

    runner = container.local_runner()

    def joined(timeout: float) -> bool:
        return bool(runner.join(execution_id, timeout=timeout))

    join = stored_end(container, execution_id) if ran_elsewhere else joined

    console = context.console(stderr=True)
    if show_progress and console.is_terminal:
        from entrypoints.cli.progress import follow_run

        follow_run(container.get_execution_progress(), execution_id, join, console)
        return _read(container, execution_id)
    while not join(1.0):
        pass
    execution = _read(container, execution_id)
    if show_progress:
        from application.use_cases.get_execution_progress import GetExecutionProgressQuery
        from entrypoints.cli.render import error_summary

        query = GetExecutionProgressQuery(workflow_execution_id=execution_id)
        for step in container.get_execution_progress().execute(query).steps:
            line = f"{step.step_index + 1}. {step.pipeline_id}: {step.status.value}"
            console.print(
                line + (f" ({error_summary(step.error)})" if step.error else ""),
                markup=False,  # a step's error is its own text: `[/tmp/x]` is no closing tag
            )
        console.print(
            f"{execution.workflow_database_id}/{execution.workflow_id}: {execution.status.value}"
        )
    return execution


def _follow(
    container: Container, execution_id: str, json_output: bool, ran_elsewhere: bool = False
) -> Any:
    """A local run followed to its end (its steps shown live unless --json), or to an approval
    gate it waits at, said on stderr."""
    execution = _wait_or_abort(
        container,
        execution_id,
        show_progress=not json_output,
        json_output=json_output,
        ran_elsewhere=ran_elsewhere,
    )
    _say_if_waiting(container, execution)
    return execution


def _print_run(execution: Any, json_output: bool) -> None:
    """The run as --json shows it, else its id; a run that ended other than SUCCEEDED exits 1
    (launch, redrive and rerun alike)."""
    if json_output:
        from entrypoints.cli.render import dump_json
        from entrypoints.responses import ExecutionResponse

        context.echo(dump_json(ExecutionResponse.of(execution).dump()))
    else:
        context.echo(execution.workflow_execution_id)
    if execution.is_terminal and execution.status.value != "SUCCEEDED":
        raise SystemExit(EXIT_FAILED_RUN)


def _say_if_waiting(container: Container, execution: Any) -> None:
    """A run that stopped at an approval gate: which one, and how to decide it (on stderr)."""
    if execution.is_terminal:
        return
    from application.use_cases.approvals import ListApprovalsQuery
    from entrypoints.cli.subject import cli_subject

    query = ListApprovalsQuery(
        subject=cli_subject(), workflow_execution_id=execution.workflow_execution_id
    )
    for request in container.list_approvals().execute(query).items:
        if request.is_pending:
            print(
                f"waiting for approval {request.approval_id} at step {request.pipeline_id} "
                f"(approvers: {', '.join(request.approvers)}): `wfx approvals approve "
                f"{request.approval_id}` or `wfx approvals reject {request.approval_id} "
                "--reason TEXT`",
                file=sys.stderr,
            )


def _read(container: Container, execution_id: str) -> Any:
    """The run as GetExecution gives it (with its derived redriveStatus), for --json."""
    from application.use_cases.get_execution import GetExecutionQuery

    return container.get_execution().execute(GetExecutionQuery(workflow_execution_id=execution_id))


_LIST_OPTIONS = {
    "workflow": "--workflow",
    "group": "--group",
    "asset": "--asset",
    "direction": "--direction",
    "status": "--status",
    "starting_token": "--starting-token",
    "startingToken": "--starting-token",
}


@executions_app.command("list")
def executions_list(
    workflow: Annotated[str | None, typer.Option(metavar="DATABASE_ID/WORKFLOW_ID")] = None,
    group: Annotated[str | None, typer.Option(metavar="GROUP_ID")] = None,
    asset: Annotated[
        str | None, typer.Option(metavar="DATABASE_ID/ASSET_ID", help="Runs that read or wrote it.")
    ] = None,
    direction: Annotated[
        str | None,
        typer.Option(metavar="read|wrote|both", help="With --asset: runs that read it, wrote it."),
    ] = None,
    status: Annotated[
        str | None, typer.Option(metavar="STATUS", help="Only runs of this status (RUNNING, ...).")
    ] = None,
    limit: Annotated[int, typer.Option(min=1, max=100, help="Page size, 1 to 100.")] = 20,
    starting_token: Annotated[
        str | None, typer.Option(help="Token printed by the previous page.")
    ] = None,
    wide: Annotated[
        bool,
        typer.Option("--wide", help="Every column: version, duration, trigger and group too."),
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    """List executions newest first: all, by workflow, group (both together too) or asset; by
    status too. A narrow terminal shows the id, workflow, status and start (--wide: all)."""
    from application.use_cases.list_executions import ListExecutionsQuery
    from domain.errors import InvalidInputError

    filters = {"--workflow": workflow, "--group": group, "--asset": asset}
    given = [option for option, value in filters.items() if value is not None]
    if asset is not None and len(given) > 1:
        raise InvalidInputError(f"{' and '.join(given)}: --asset takes no --workflow or --group")
    from entrypoints.cli.errors import named_as_given

    container = context.container()
    with named_as_given(_LIST_OPTIONS):
        query = ListExecutionsQuery.model_validate(
            {
                "workflow": workflow,
                "group": group,
                "asset": asset,
                "direction": direction,
                "status": status,
                "limit": limit,
                "starting_token": starting_token,
            }
        )
        page = container.list_executions().execute(query)
    from entrypoints.vams_execution_list import ExecutionList

    # one document, printed or drawn as a table: the one inside the HTTP list's `message`
    outputs = container.read_output_targets().execute([e.workflow_execution_id for e in page.items])
    listed = ExecutionList.of(page, outputs).dump()
    if json_output:
        from entrypoints.cli.render import dump_json

        context.echo(dump_json(listed))
        return
    from entrypoints.cli.plain_table import plain_stdout
    from entrypoints.cli.render import executions_table, plain_executions_list

    # off a terminal the table is plain text: written as rich would, without loading rich
    plain = plain_executions_list(listed["Items"], page.next_token) if plain_stdout() else None
    if plain is not None:
        sys.stdout.write(plain)
        return
    console = context.console()
    if not page.items:
        console.print("No executions.")
    else:
        # --wide: every column, however long the lines (a terminal scrolls or wraps them)
        table_console = context.console(width=context.UNWRAPPED_WIDTH) if wide else console
        table_console.print(executions_table(listed["Items"], console.width, wide))
    if page.next_token:
        console.print(f"\nNext page: --starting-token {page.next_token}", soft_wrap=True)


@executions_app.command("show")
def executions_show(
    execution_id: Annotated[str, typer.Argument(metavar="EXECUTION_ID")],
    json_output: JsonFlag = False,
    sub_executions: Annotated[
        bool,
        typer.Option(
            "--sub-executions",
            help="Also read each registered sub-execution's status and stages (AWS calls).",
        ),
    ] = False,
) -> None:
    """Show one execution: main row, steps in chain order, inputs and outputs. EXECUTION_ID is
    the whole id, its first characters (one of the 1,000 newest runs), or `latest`."""
    from application.use_cases.get_execution_details import GetExecutionDetailsQuery

    container = context.container()
    details = container.get_execution_details().execute(
        GetExecutionDetailsQuery(
            workflow_execution_id=context.run_id(container, execution_id),
            include_sub_executions=sub_executions,
        )
    )
    from domain.redaction import redact

    for row in details.unreadable_rows:  # as a list says the runs it leaves out
        context.warn(redact(row.note))
    if json_output:
        from entrypoints.cli.render import dump_json
        from entrypoints.vams_details import VamsExecutionDetails

        # the document the HTTP service's details send in VAMS's {"message": ...} envelope
        context.echo(dump_json(VamsExecutionDetails.of(details, sub_executions).dump()))
        return
    from entrypoints.cli.render import print_details

    print_details(details, context.console())
    if sub_executions:
        from entrypoints.cli.sub_executions import print_sub_executions

        print_sub_executions(details, context.console())


@executions_app.command("describe")
def executions_describe(
    execution_id: Annotated[str, typer.Argument(metavar="EXECUTION_ID")],
    json_output: JsonFlag = False,
) -> None:
    """Describe a run with the fields of Step Functions' DescribeExecution: read from Step
    Functions for its runs, computed for a local run."""
    from application.use_cases.describe_execution import DescribeExecutionQuery
    from entrypoints.responses import DescribeResponse

    container = context.container()
    description = container.describe_execution().execute(
        DescribeExecutionQuery(workflow_execution_id=context.run_id(container, execution_id))
    )
    document = DescribeResponse.of(description).dump()
    from entrypoints.cli.render import dump_json

    if json_output:
        context.echo(dump_json(document))
        return
    width = max(len(name) for name in document)
    for name, value in document.items():
        shown = value if isinstance(value, str) else dump_json(value)
        context.echo(f"{name.ljust(width)}  {' '.join(str(shown).split())}")


_METADATA_OPTIONS = {
    "collection": "--collection",
    "max_items": "--max-items",
    "starting_token": "--starting-token",
    "startingToken": "--starting-token",
    "pipeline_id": "--pipeline-id",
    "pipelineId": "--pipeline-id",
}


@executions_app.command("metadata")
def executions_metadata(
    execution_id: Annotated[str, typer.Argument(metavar="EXECUTION_ID")],
    collection: Annotated[
        str,
        typer.Option(
            help="VAMS's input, inputDatabase or output (every step's rows), or a collection "
            "path as `executions show --json` names it in truncatedCollectionPages (inputs, "
            "pipelineExecutions, pipelineExecutions[ID].outputFiles, ...)."
        ),
    ],
    max_items: Annotated[int, typer.Option(min=1, max=1000, help="Page size, 1 to 1000.")] = 100,
    starting_token: Annotated[
        str | None,
        typer.Option(help="A nextToken of truncatedCollectionPages, or of the last page."),
    ] = None,
    pipeline_id: Annotated[
        str | None,
        typer.Option(help="With input, inputDatabase or output: only this pipeline's rows."),
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Page one collection of a run's details (the rest of one that `show` cut)."""
    from application.use_cases.get_execution_metadata import GetExecutionMetadataQuery
    from entrypoints.cli.errors import named_as_given
    from entrypoints.metadata_page import MetadataPage

    container = context.container()
    run_id = context.run_id(container, execution_id)
    with named_as_given(_METADATA_OPTIONS):
        query = GetExecutionMetadataQuery(
            workflow_execution_id=run_id,
            collection=collection,
            max_items=max_items,
            starting_token=starting_token,
            pipeline_id=pipeline_id,
        )
        page = MetadataPage.of(container.get_execution_metadata().execute(query), collection)
    from entrypoints.cli.render import dump_json

    if json_output:
        context.echo(dump_json(page.dump()))
        return
    for item in page.items:
        context.echo(dump_json(item.dump()))
    if page.next_token:
        context.console().print(f"\nNext page: --starting-token {page.next_token}", soft_wrap=True)


@executions_app.command("logs")
def executions_logs(
    execution_id: Annotated[str, typer.Argument(metavar="EXECUTION_ID")],
    log_id: Annotated[
        str | None, typer.Option(help="Read this one log source (ids: `executions show`).")
    ] = None,
    full: Annotated[bool, typer.Option("--full", help="Read every log source.")] = False,
    next_token: Annotated[
        str | None, typer.Option(help="Next page of the --log-id source (printed by the last).")
    ] = None,
    limit: Annotated[
        int, typer.Option(min=1, max=10_000, help="Lines per source, 1 to 10000.")
    ] = 100,
    follow: Annotated[
        bool,
        typer.Option(
            "--follow",
            "-f",
            help="Keep printing new lines as steps write them, until the run ends.",
        ),
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    """Print a run's log; --log-id reads one log source, --full every source (redacted)."""
    from entrypoints.cli.logs import show_logs

    container = context.container()
    show_logs(
        container,
        context.run_id(container, execution_id),
        log_id,
        full,
        next_token,
        limit,
        json_output,
        follow,
    )


@executions_app.command("events")
def executions_events(
    execution_id: Annotated[str, typer.Argument(metavar="EXECUTION_ID")],
    after: Annotated[
        int,
        typer.Option(
            "--after", min=0, max=MAX_STORED_INTEGER, help="Only events numbered past this one."
        ),
    ] = 0,
    follow: Annotated[
        bool, typer.Option("--follow", help="Keep printing new events until the run has ended.")
    ] = False,
    json_output: Annotated[
        bool, typer.Option("--json", help="One JSON document per event, a line each.")
    ] = False,
) -> None:
    """Print a run's event log: every transition, numbered, oldest first."""
    from entrypoints.cli.events import show_events

    container = context.container()
    show_events(container, context.run_id(container, execution_id), after, follow, json_output)


@executions_app.command("abort")
def executions_abort(
    execution_id: Annotated[str, typer.Argument(metavar="EXECUTION_ID")],
    json_output: JsonFlag = False,
) -> None:
    """Abort a run that is still going (its registered sub-processes first); a finished run is
    left as it is."""
    from application.use_cases.abort_execution import AbortExecutionCommand

    container = context.container()
    result = container.abort_execution().execute(
        AbortExecutionCommand(workflow_execution_id=context.run_id(container, execution_id))
    )
    from domain.redaction import redact

    warnings = [redact(warning) for warning in result.warnings]
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    execution = result.execution
    if json_output:
        from entrypoints.cli.render import dump_json
        from entrypoints.responses import AbortResponse

        # the sub-processes left running travel with the row, for scripts that read stdout only
        context.echo(dump_json(AbortResponse.of_abort(execution, warnings).dump()))
        return
    context.echo(f"{execution.workflow_execution_id} {execution.status.value}")


@executions_app.command("delete")
def executions_delete(
    execution_id: Annotated[str, typer.Argument(metavar="EXECUTION_ID")],
    force: Annotated[
        bool, typer.Option("--force", help="Abort the run first if it has not ended.")
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    """Delete a run permanently: every row of it, its outputs and offloaded log, its local
    files. A run not ended is refused unless --force; deleting twice is no error."""
    from application.use_cases.delete_execution import DeleteExecutionCommand

    container = context.container()
    command = DeleteExecutionCommand(
        workflow_execution_id=context.run_id(container, execution_id), force=force
    )
    result = container.delete_execution().execute(command)
    from domain.redaction import redact

    for warning in result.warnings:
        context.warn(redact(warning))
    if json_output:
        from entrypoints.cli.render import dump_json
        from entrypoints.responses import DeleteResponse

        context.echo(dump_json(DeleteResponse.of(result).dump()))
        return
    context.echo(f"{execution_id} {'deleted' if result.deleted else 'already absent'}")


@maintenance_app.command("sweep-aborts")
def maintenance_sweep_aborts(
    since: Annotated[
        str, typer.Option(help="Runs stopped this long ago or less: 24h, 7d, 90m, 1d12h.")
    ] = "7d",
    json_output: JsonFlag = False,
) -> None:
    """Confirm the sub-processes aborted or failed runs only asked to stop, and ask again those
    still running; exit 0 when every one is confirmed ended, 1 when some remain."""
    from entrypoints.cli.maintenance import sweep_aborts

    code = sweep_aborts(context.container(), since, json_output, context.console())
    if code:
        raise typer.Exit(code)


@executions_app.command("redrive")
def executions_redrive(
    execution_id: Annotated[str, typer.Argument(metavar="EXECUTION_ID")],
    no_wait: Annotated[bool, typer.Option("--no-wait", help="Redrive the run and return.")] = False,
    json_output: JsonFlag = False,
) -> None:
    """Continue a failed, aborted or timed-out run from the step that did not succeed (as Step
    Functions allows a redrive); a local run is followed to its end like `wfx run` unless
    --no-wait."""
    from application.use_cases.redrive_execution import RedriveExecutionCommand

    # The container routes the redrive to the orchestrator that ran the execution.
    container = context.container(runner_mode="detached" if no_wait else "thread")
    execution_id = context.run_id(container, execution_id)
    execution = container.redrive_execution().execute(
        RedriveExecutionCommand(workflow_execution_id=execution_id)
    )
    if not no_wait and execution.orchestrator == "local":
        execution = _follow(container, execution_id, json_output)
    _print_run(execution, json_output)


@executions_app.command("rerun")
def executions_rerun(
    execution_id: Annotated[str, typer.Argument(metavar="EXECUTION_ID")],
    group: Annotated[
        str | None, typer.Option(metavar="GROUP_ID", help="Put the new run in this group.")
    ] = None,
    client_token: Annotated[
        str | None, typer.Option(help="Idempotency token: a retry with it returns the same run.")
    ] = None,
    wait: Annotated[
        bool, typer.Option("--wait", help="Follow a local run to its end, like `wfx run`.")
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    """Launch a new run rebuilt from one that has ended: the workflow's latest version (as
    VAMS reruns it), the same inputs and output asset. Prints the new run's id."""
    from application.use_cases.rerun_execution import RerunExecutionCommand

    container = context.container(runner_mode="thread" if wait else "detached")
    from entrypoints.cli.errors import named_as_given

    run_id = context.run_id(container, execution_id)
    with named_as_given(_RUN_OPTIONS):
        command = RerunExecutionCommand(
            workflow_execution_id=run_id,
            execution_group_id=group,
            user_id=container.config.user(),
            client_token=client_token,
        )
        result = container.rerun_execution().execute(command)
    execution = result.execution
    if wait and execution.orchestrator == "local":
        new_id, replayed = execution.workflow_execution_id, not result.created
        execution = _follow(container, new_id, json_output, ran_elsewhere=replayed)
    _print_run(execution, json_output)


_LOG = "Log to register"
_SUB = "Sub-execution to register"


@pipelines_app.command("register")
def pipelines_register(
    execution_id: Annotated[
        str, typer.Option(envvar="WFX_EXECUTION_ID", help="The run (default: $WFX_EXECUTION_ID).")
    ],
    pipeline_execution_id: Annotated[
        str,
        typer.Option(
            envvar="WFX_PIPELINE_EXECUTION_ID",
            help="The step (default: $WFX_PIPELINE_EXECUTION_ID).",
        ),
    ],
    log_group_arn: Annotated[str, typer.Option(rich_help_panel=_LOG)] = "",
    log_group_name: Annotated[str, typer.Option(rich_help_panel=_LOG)] = "",
    log_stream_name: Annotated[str, typer.Option(rich_help_panel=_LOG)] = "",
    log_stream_prefix: Annotated[str, typer.Option(rich_help_panel=_LOG)] = "",
    stage_name: Annotated[str, typer.Option(rich_help_panel=_LOG)] = "",
    source_type: Annotated[
        str,
        typer.Option(
            rich_help_panel=_LOG,
            help="stateMachine, lambda, batch, ecs, container or custom.",
        ),
    ] = "",
    sub_execution_type: Annotated[
        str,
        typer.Option(
            rich_help_panel=_SUB,
            help="stepFunctionsExecution, batchJob, deadlineCloudJob, localProcess... "
            "(VAMS's names; stepFunctions, batch and deadline still taken)",
        ),
    ] = "",
    sub_execution_id: Annotated[str, typer.Option(rich_help_panel=_SUB, metavar="ARN_OR_ID")] = "",
    label: Annotated[str, typer.Option(help="A label for the log and the sub-execution.")] = "",
    registration_token: Annotated[
        str,
        typer.Option(
            envvar="WFX_REGISTRATION_TOKEN",
            show_default=False,
            help="The step's own token, which the local bus requires "
            "(default: $WFX_REGISTRATION_TOKEN, set by the local runner).",
        ),
    ] = "",
    json_output: JsonFlag = False,
) -> None:
    """Register a sub-execution and/or a log location on a step, by publishing a registration
    event on the configured bus (EventBridge in AWS mode, the local bus otherwise)."""
    from entrypoints.cli.register import RegisterOptions, register

    options = RegisterOptions(
        execution_id=execution_id,
        pipeline_execution_id=pipeline_execution_id,
        log_group_arn=log_group_arn,
        log_group_name=log_group_name,
        log_stream_name=log_stream_name,
        log_stream_prefix=log_stream_prefix,
        stage_name=stage_name,
        label=label,
        source_type=source_type,
        sub_execution_type=sub_execution_type,
        sub_execution_id=sub_execution_id,
        registration_token=registration_token,
    )
    register(context.container, options, json_output)


@app.command("demo")
def demo() -> None:
    """Publish the bundled mesh example, import its assets and run it on the configured store."""
    from importlib import resources

    from application.use_cases.get_execution_details import GetExecutionDetailsQuery
    from entrypoints.cli.render import print_details

    container = context.container(runner_mode="thread")
    console = context.console()
    example = resources.files("wfx_examples") / "mesh"
    with resources.as_file(example) as folder:
        version, _ = _publish(container, folder / "workflow.yaml")
        stored = _import(container, "demo", "meshes", [folder / "assets"], ["source=wfx-demo"])
    console.print(
        f"Published [bold]{version.database_id}/{version.workflow_id}[/] v{version.version}; "
        f"imported {counted(len(stored), 'mesh file')} into demo/meshes\n"
    )
    execution, _ = _launch(
        container,
        version.database_id,
        version.workflow_id,
        ["demo/meshes"],
        "demo/mesh-report-results",
        None,
        "manual",
        version.version,
        None,
    )
    execution = _wait_or_abort(container, execution.workflow_execution_id, show_progress=True)
    console.print()
    details = container.get_execution_details().execute(
        GetExecutionDetailsQuery(workflow_execution_id=execution.workflow_execution_id)
    )
    print_details(details, console)
    console.print(
        f"\nNext: [bold]wfx executions list[/], [bold]wfx executions show "
        f"{execution.workflow_execution_id} --json[/]"
    )
    if execution.status.value != "SUCCEEDED":
        raise SystemExit(EXIT_FAILED_RUN)


@app.command("serve")
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8000,
    open_viewer: Annotated[
        bool,
        typer.Option(
            "--open",
            help="Print a link that logs you in to the web viewer, and open it in a browser "
            "when this machine has a display.",
        ),
    ] = False,
    step_user: Annotated[
        str | None,
        typer.Option(
            "--step-user",
            metavar="NAME",
            help="Run every step as this OS user (default: WFX_STEP_USER), so no step can read "
            "the service's key or database; needs the service to run as root.",
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=64,
            help="Processes serving requests (default: WFX_SERVE_WORKERS, else the cores); "
            "runs go on in their own worker processes either way.",
        ),
    ] = None,
) -> None:
    """Serve the HTTP API (OpenAPI at /openapi.json, docs at /docs) and the web viewer (at /)
    on the configured store.

    Every request needs a bearer token: `wfx auth token USER` prints one for local use, or set
    WFX_JWT_JWKS (with WFX_JWT_ISSUER and WFX_JWT_AUDIENCE) for your identity provider. The
    viewer logs in at /login?token=<token>; `--open` prints that link for you."""
    from entrypoints.cli.serve import serve as run_service

    run_service(
        lambda mode: context.container(runner_mode=mode),
        host,
        port,
        open_viewer=open_viewer,
        step_user=step_user,
        workers=workers,
    )


@app.command("internal-run-worker", hidden=True)
def internal_run_worker(execution_id: str) -> None:
    """Run a launched execution in this process (what `wfx run --no-wait` starts); SIGTERM,
    SIGINT or SIGHUP abort it. Its run ended and recorded, it exits at once: nothing reads the
    run again, and an abort waits for the worker to be gone (entrypoints/cli/quick_exit.py)."""
    from adapters.local.redacted_output import redact_standard_streams
    from entrypoints.cli.interrupts import aborting_on_signals
    from entrypoints.cli.quick_exit import exit_at_once

    redact_standard_streams()  # what this process prints lands in runner.log, under WFX_HOME
    container = context.container(runner_mode="worker")
    runner = container.local_runner()
    runner.start(execution_id)

    def ended() -> None:
        while not runner.join(execution_id, timeout=1.0):
            pass

    aborting_on_signals(container, execution_id, ended)
    exit_at_once(0)


def _app_for(arguments: Sequence[str], whole: typer.Typer = app) -> typer.Typer:
    """`whole` with only the command or group the arguments name, down the path they take.

    Typer turns every command of the app into a click command (reading each signature and its
    annotations) before it parses the arguments: ~40 ms of a cold `wfx executions list` spent on
    the 45 commands it does not run. The path the arguments name is built as before, so its
    options, help and errors are unchanged; anything else (no command, an option first, a name
    no command has) gets the whole app, for the top-level help and click's own message.
    """
    if not arguments or arguments[0].startswith("-"):
        return whole
    name, rest = arguments[0], arguments[1:]
    commands = [command for command in whole.registered_commands if _name(command) == name]
    groups = [copy.copy(group) for group in whole.registered_groups if group.name == name]
    if not commands and not groups:
        return whole
    for group in groups:
        assert group.typer_instance is not None  # add_typer always gives one
        group.typer_instance = _app_for(rest, group.typer_instance)
    pruned = copy.copy(whole)
    pruned.registered_commands, pruned.registered_groups = commands, groups
    return pruned


def _name(command: CommandInfo) -> str | None:
    if command.name:
        return command.name
    return None if command.callback is None else get_command_name(command.callback.__name__)


def main() -> None:
    from entrypoints.cli.errors import print_redacted_traceback
    from entrypoints.cli.terminal import install

    install()
    sys.excepthook = print_redacted_traceback
    with noting_stale_reads() as stale:
        try:
            # Not standalone: click's usage errors come back to us, to be printed as one line.
            code = _app_for(sys.argv[1:])(standalone_mode=False)
        except SystemExit:
            _warn_stale(stale)
            raise
        except Exception as error:
            exit_for(error)
        _warn_stale(stale)
    raise SystemExit(code if isinstance(code, int) else 0)


def _warn_stale(stale: Mapping[str, BaseException]) -> None:
    """One line after what the command printed: the runs it showed as stored, unreconciled (what
    their writes met stays unsaid: a store's text may name paths or hold secrets). A store that
    is not there (a table missing, a service down) is no stale read: it fails the command as it
    would have failed any other, with the one line saying how to set it up."""
    if not stale:
        return
    from entrypoints.cli.errors import exit_for, is_setup_problem

    for cause in stale.values():
        if is_setup_problem(cause):
            exit_for(cause)
    ids = list(stale)
    runs = f"run {ids[0]}" if len(ids) == 1 else "runs " + ", ".join(ids)
    print(
        f"warning: {runs} shown as stored, may be stale: what this read found could not be "
        "recorded; the next read tries again",
        file=sys.stderr,
    )


if __name__ == "__main__":  # `python -m entrypoints.cli.main`: the detached worker's command
    import gc

    from entrypoints.cli.program import learn_how_children_end
    from entrypoints.cli.quick_exit import leave_when_done

    gc.disable()  # as the console script starts (program.py): its start-up frozen, not scanned
    learn_how_children_end()
    leave_when_done(main)
