"""The CLI's sub-command modules share their helpers through cli/context.py: none imports
cli/main.py (which imports every one of them to register its commands)."""

import ast
from pathlib import Path

CLI = Path(__file__).resolve().parents[2] / "src" / "entrypoints" / "cli"
MAIN = "entrypoints.cli.main"
# The console script runs the command line: importing it is its whole job.
RUNS_MAIN = {"program.py"}


def _imports_main(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import) and any(alias.name == MAIN for alias in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            if node.module == MAIN:
                return True
            if node.module == "entrypoints.cli" and any(a.name == "main" for a in node.names):
                return True
        if (
            isinstance(node, ast.ImportFrom)
            and node.level > 0
            and (node.module == "main" or any(alias.name == "main" for alias in node.names))
        ):
            return True
    return False


def test_no_cli_module_imports_the_command_line_module() -> None:
    offenders = [
        path.name
        for path in sorted(CLI.glob("*.py"))
        if path.name not in RUNS_MAIN | {"main.py"} and _imports_main(path)
    ]
    assert offenders == []


def test_the_check_sees_an_import_of_main(tmp_path: Path) -> None:
    # the check must be able to fail: each spelling of the import is caught
    for text in (
        "from entrypoints.cli.main import _container\n",
        "import entrypoints.cli.main\n",
        "from entrypoints.cli import main\n",
        "def f():\n    from .main import app\n",
    ):
        module = tmp_path / "module.py"
        module.write_text(text, encoding="utf-8")
        assert _imports_main(module), text
