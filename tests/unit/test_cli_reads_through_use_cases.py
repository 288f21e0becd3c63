"""DESIGN §6: entrypoints read only through use cases; the CLI never reaches for the store."""

from __future__ import annotations

import ast
from pathlib import Path

CLI = Path(__file__).parents[2] / "src" / "entrypoints" / "cli"


def test_no_cli_module_names_the_execution_store() -> None:
    offenders = [
        f"{path.name}:{node.lineno}"
        for path in sorted(CLI.glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if (isinstance(node, ast.Attribute) and node.attr == "execution_store")
        or (isinstance(node, ast.Name) and node.id == "ExecutionStore")
    ]
    assert offenders == []
