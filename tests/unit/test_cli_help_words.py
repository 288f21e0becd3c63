"""Every command's help is in users' words: no seed-document wording in any command or option
help, and every command answers -h as --help."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import typer.main
import typer.testing
from typer.testing import CliRunner

from entrypoints.cli.main import app


# typer may vendor click: its groups are told by their sub-commands, not by click's classes
def _commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, (*path, name))


def test_no_help_text_speaks_of_the_seed_documents() -> None:
    found = []
    for path, command in _commands(typer.main.get_command(app)):
        texts = [command.help or "", command.short_help or ""]
        texts += [getattr(param, "help", None) or "" for param in command.params]
        found += [(" ".join(path), text) for text in texts if "seed 00" in text.lower()]
    assert found == []


def test_every_command_takes_h_for_help(monkeypatch: pytest.MonkeyPatch) -> None:
    root = typer.main.get_command(app)
    paths = [path for path, _ in _commands(root)]
    assert len(paths) > 30  # the whole tree was walked
    # the runner builds the click tree again on each call (most of a call's time): the one
    # built above is the same tree
    monkeypatch.setattr(typer.testing, "_get_command", lambda _: root)
    runner = CliRunner()
    for path in paths:
        answer = runner.invoke(app, [*path, "-h"])
        assert answer.exit_code == 0 and "Usage:" in answer.output, (path, answer.output)
