"""Every command's help is in users' words: no seed-document wording in any command or option
help, and every command answers -h as --help."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import typer.main
from typer.testing import CliRunner

from entrypoints.cli.main import app


# typer may vendor click: its groups are told by their sub-commands, not by click's classes
def _commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield path
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, (*path, name))


def _command_at(path: tuple[str, ...]) -> Any:
    command: Any = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]
    return command


def test_no_help_text_speaks_of_the_seed_documents() -> None:
    root = typer.main.get_command(app)
    found = []
    for path in _commands(root):
        command = _command_at(path)
        texts = [command.help or "", command.short_help or ""]
        texts += [getattr(param, "help", None) or "" for param in command.params]
        found += [(" ".join(path), text) for text in texts if "seed 00" in text.lower()]
    assert found == []


def test_every_command_takes_h_for_help() -> None:
    paths = list(_commands(typer.main.get_command(app)))
    assert len(paths) > 30  # the whole tree was walked
    runner = CliRunner()
    for path in paths:
        answer = runner.invoke(app, [*path, "-h"])
        assert answer.exit_code == 0 and "Usage:" in answer.output, (path, answer.output)
