"""wfx's own modules parsed once a test process: the source checks (layers, function length,
environment readers, least privilege) each walked all of src/ on their own, ~1.3 s of CPU a
walk. The trees are shared, so a check only reads them; it never changes a node."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def modules(under: str = "") -> list[Path]:
    """The modules of src/ (or of a folder of it), in a fixed order; a module added since the
    last call is found."""
    return sorted((SRC / under).rglob("*.py"))


@functools.cache
def tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the module, in `ast.walk`'s order."""
    return tuple(ast.walk(tree(path)))
