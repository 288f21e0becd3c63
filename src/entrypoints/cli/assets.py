"""`wfx assets list|show|download`: what an asset holds, and a file's body at any version."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from entrypoints.cli import context

if TYPE_CHECKING:
    from domain.assets import AssetFile
    from domain.paging import Page

JsonFlag = Annotated[bool, typer.Option("--json", help="Print the answer as JSON.")]
AssetArgument = Annotated[str, typer.Argument(metavar="DATABASE_ID/ASSET_ID")]


# each id of the argument named as the user gave it
_ASSET_IDS = {"database_id": "DATABASE_ID/ASSET_ID", "asset_id": "DATABASE_ID/ASSET_ID"}


def _asset(text: str) -> tuple[str, str]:
    from domain.assets import AssetRef

    ref = AssetRef.parse(text, "DATABASE_ID/ASSET_ID", allow_file=False)
    return ref.database_id, ref.asset_id


def _files(asset: str, limit: int = 1000, starting_token: str | None = None) -> Page[AssetFile]:
    from application.use_cases.read_assets import AssetFilesQuery
    from entrypoints.cli.errors import named_as_given

    database_id, asset_id = _asset(asset)
    with named_as_given(_ASSET_IDS):
        query = AssetFilesQuery(
            database_id=database_id,
            asset_id=asset_id,
            limit=limit,
            starting_token=starting_token,
        )
    return context.container().list_asset_files().execute(query)


def _file(asset: str, file_key: str) -> AssetFile | None:
    """The file, looked for a page at a time: an asset's files are never all held at once."""
    token = None
    while True:
        page = _files(asset, starting_token=token)
        found = next((f for f in page.items if f.file_key == file_key), None)
        if found is not None or page.next_token is None:
            return found
        token = page.next_token


def assets_list(
    asset: AssetArgument,
    limit: Annotated[int, typer.Option(min=1, max=1000, help="Page size, 1 to 1000.")] = 1000,
    starting_token: Annotated[
        str | None, typer.Option(help="Token printed by the previous page.")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """The asset's files, each at its current version, a page at a time by file key."""
    from rich.table import Table

    from domain.control_characters import escape_control_characters
    from entrypoints.cli.render import dump_json, when
    from entrypoints.cli.terminal import escape
    from entrypoints.responses import AssetFileResponse

    page = _files(asset, limit, starting_token)
    files = page.items
    # stdout stays the page's files (a JSON array with --json); where the next page starts
    # goes beside it on stderr
    more = f"more: --starting-token {page.next_token}" if page.next_token else None
    if json_output:
        context.echo(dump_json([AssetFileResponse.of(f).dump() for f in files]))
        if more:
            typer.echo(more, err=True)
        return
    table = Table(box=None, header_style="bold")
    table.add_column("FILE", overflow="fold")
    table.add_column("VERSION", no_wrap=True)
    table.add_column("SIZE", justify="right", no_wrap=True)
    table.add_column("MODIFIED", no_wrap=True)
    for f in files:
        # a newline or a tab in a file's name is escaped too: one file, one row
        key = escape(escape_control_characters(f.file_key, keep=""))
        table.add_row(key, f.version_id, f"{f.size} B", when(f.modified_at))
    context.console().print(table)
    if more:
        typer.echo(more, err=True)


def assets_show(
    asset: AssetArgument,
    file_key: Annotated[str, typer.Argument(metavar="FILE")],
    json_output: JsonFlag = False,
) -> None:
    """One file of the asset: its current version, size, etag, where it is stored, metadata."""
    from domain.control_characters import escape_control_characters
    from domain.errors import AssetNotFoundError
    from entrypoints.cli.render import dump_json, when
    from entrypoints.responses import AssetFileResponse

    f = _file(asset, file_key)
    if f is None:
        raise AssetNotFoundError(f"asset file {asset}/{file_key} not found")
    if json_output:
        context.echo(dump_json(AssetFileResponse.of(f).dump()))
        return
    key = escape_control_characters(f.file_key, keep="")  # one line, as `assets list` shows it
    for name, value in (
        ("file", f"{f.database_id}/{f.asset_id}/{key}"),
        ("version", f.version_id),
        ("size", f"{f.size} B"),
        ("etag", f.etag),
        ("stored", f"{f.bucket}: {f.asset_root_key}{key}"),
        ("modified", when(f.modified_at)),
        *((f"  {key}", value) for key, value in f.metadata),
    ):
        context.echo(f"{name:<9} {value}")


def assets_download(
    asset: AssetArgument,
    file_key: Annotated[str, typer.Argument(metavar="FILE")],
    version: Annotated[
        str | None, typer.Option("--version", metavar="V", help="Default: the current one.")
    ] = None,
    to: Annotated[
        Path | None, typer.Option("--to", metavar="PATH", help="Default: the file's name, here.")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace PATH if it exists.")] = False,
) -> None:
    """Write one file of the asset, at its current version or --version, to PATH."""
    from application.use_cases.read_assets import FileBodyQuery
    from domain.errors import InvalidInputError
    from entrypoints.cli.errors import named_as_given

    database_id, asset_id = _asset(asset)
    with named_as_given(_ASSET_IDS):
        query = FileBodyQuery(
            database_id=database_id, asset_id=asset_id, file_key=file_key, version_id=version
        )
    read = context.container().read_asset_file().execute(query)
    target = to if to is not None else Path(Path(file_key).name)
    if target.is_dir():
        target = target / Path(file_key).name
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | (os.O_TRUNC if force else os.O_EXCL)
    try:
        descriptor = os.open(target, flags, 0o644)
    except FileExistsError:
        raise InvalidInputError(f"--to: {target} exists; give --force to replace it") from None
    except OSError as error:  # a link in its place, a folder that is not there...
        reason = "it is a symbolic link, never followed" if error.errno == errno.ELOOP else ""
        raise InvalidInputError(
            f"--to: cannot write {target}: {reason or error.strerror}"
        ) from None
    with os.fdopen(descriptor, "wb") as out:
        out.write(read.body)
    context.echo(f"{target}  {len(read.body)} B  version {read.version_id}")
