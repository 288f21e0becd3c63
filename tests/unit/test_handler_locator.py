"""Finding a python step's handler without importing it: packages, submodules, definitions."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.local.handler_locator import ImportPathHandlerLocator

_MODULE = """
import json
from os.path import join as joined

if True:
    def under_if(): ...

class Steps:
    def method(self): ...

async def coroutine(): ...

alias = coroutine
raise SystemExit("importing this module is a bug")
"""


@pytest.fixture
def folder(tmp_path: Path) -> str:
    package = tmp_path / "wfx_test_pkg_h" / "inner"
    package.mkdir(parents=True)
    (tmp_path / "wfx_test_pkg_h" / "__init__.py").write_text("raise SystemExit(1)\n")
    (package / "__init__.py").write_text("")
    (package / "steps.py").write_text(_MODULE)
    (tmp_path / "wfx_test_flat_h.py").write_text(_MODULE)
    return str(tmp_path)


@pytest.mark.parametrize(
    "handler",
    [
        "wfx_test_flat_h:under_if",
        "wfx_test_flat_h:Steps.method",
        "wfx_test_flat_h:coroutine",
        "wfx_test_flat_h:alias",
        "wfx_test_flat_h:joined",
        "wfx_test_pkg_h.inner.steps:under_if",
        "json:dumps",
        "sys:exit",
    ],
)
def test_a_handler_defined_at_module_level_is_found_without_running_its_module(
    folder: str, handler: str
) -> None:
    assert ImportPathHandlerLocator().problem(handler, folder) is None


@pytest.mark.parametrize(
    ("handler", "said"),
    [
        ("wfx_test_missing_h:f", "module wfx_test_missing_h not found"),
        ("wfx_test_flat_h:method", "no function method"),
        ("wfx_test_pkg_h.inner.absent:f", "wfx_test_pkg_h.inner.absent not found"),
        ("wfx_test_flat_h.sub:f", "wfx_test_flat_h is a module, not a package"),
    ],
)
def test_a_handler_that_cannot_be_imported_is_said_why(
    folder: str, handler: str, said: str
) -> None:
    problem = ImportPathHandlerLocator().problem(handler, folder)

    assert problem is not None and said in problem
