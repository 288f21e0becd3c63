"""Where a python step's handler is, found the way `import` would find it but without running a
line of the user's code: the top-level module through the import system's finders (sys.path,
PYTHONPATH, editable installs), then the step's handlerPath; a submodule through its package's
folders; the function by parsing the module's source."""

from __future__ import annotations

import ast
import importlib.util
import sys
from importlib.machinery import ModuleSpec, PathFinder
from pathlib import Path


class ImportPathHandlerLocator:
    """HandlerLocator over this process's sys.path, as the local runner imports handlers."""

    def problem(self, handler: str, handler_path: str | None) -> str | None:
        module_name, _, attribute_path = handler.partition(":")
        parts = module_name.split(".")
        if parts[0] in sys.builtin_module_names:
            return None  # compiled into Python: nothing on disk to look at
        spec = _top_level(parts[0], handler_path)
        searched = "sys.path and PYTHONPATH" + (f" and {handler_path}" if handler_path else "")
        for depth in range(1, len(parts)):
            if spec is None:
                break
            if spec.submodule_search_locations is None:
                package = ".".join(parts[:depth])
                return f"{package} is a module, not a package: it has no {parts[depth]}"
            spec = PathFinder.find_spec(
                ".".join(parts[: depth + 1]), list(spec.submodule_search_locations)
            )
        if spec is None:
            return f"module {module_name} not found (searched {searched})"
        function = attribute_path.split(".")[0]
        source = spec.origin
        if source is None or not source.endswith(".py"):
            return None  # compiled or namespace: only importing it would tell
        try:
            tree = ast.parse(Path(source).read_bytes(), filename=source)
        except (OSError, SyntaxError, ValueError) as error:
            return f"module {module_name} cannot be read ({source}): {error}"
        if not _may_define(tree, function):
            return f"module {module_name} has no function {function} at module level ({source})"
        return None


def _top_level(name: str, handler_path: str | None) -> ModuleSpec | None:
    try:
        # a top-level name: the finders are asked, nothing is imported
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None and handler_path:
        spec = PathFinder.find_spec(name, [handler_path])
    return spec


def _may_define(tree: ast.Module, name: str) -> bool:
    """Whether module-level code binds `name` (a def, class, assignment or import), or could
    bind it in a way only running the module would show (`import *`, a module `__getattr__`)."""
    found: set[str] = set()
    statements: list[ast.stmt] = list(tree.body)
    while statements:
        statement = statements.pop()
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(statement.name)
        elif isinstance(statement, ast.Import | ast.ImportFrom):
            for alias in statement.names:
                found.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                found |= {node.id for node in ast.walk(target) if isinstance(node, ast.Name)}
        elif isinstance(statement, ast.If | ast.Try | ast.With | ast.For | ast.While):
            # a definition under `if`, `try` or `with` at module level is still module level
            for field in ("body", "orelse", "finalbody", "handlers"):
                for child in getattr(statement, field, []):
                    statements += child.body if isinstance(child, ast.ExceptHandler) else [child]
    return name in found or "*" in found or "__getattr__" in found
