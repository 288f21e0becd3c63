"""The layers of DESIGN §2, checked on the imports each module actually makes."""

import ast
import functools
import sys
from pathlib import Path

import pytest

from tests.source_trees import SRC, modules, nodes

STDLIB = set(sys.stdlib_module_names)

ALLOWED: dict[str, set[str]] = {
    "domain": {"domain", "pydantic"},
    "application": {"domain", "application", "pydantic"},
    "adapters": {
        "domain",
        "application",
        "adapters",
        "boto3",
        "botocore",
        "mypy_boto3_dynamodb",  # type stubs, imported under TYPE_CHECKING only
        "sqlalchemy",
        "pydantic",
        "jwt",  # PyJWT: adapters/identity
        "cryptography",  # the local signing key
        "casbin",  # adapters/authz: the policy engine behind the Authorizer port
        "yaml",  # PyYAML: adapters/aws/stack/render.py writes the CloudFormation template
    },
}
# Adapters see the application's ports (a module per port family) and nothing else of it (no use
# case, no reporter).
ADAPTER_APPLICATION_PACKAGE = "application.ports."


@functools.cache  # each module's names found once, whichever test asks first
def _imports(path: Path) -> tuple[str, ...]:
    names: list[str] = []
    for node in nodes(path):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return tuple(names)


def _modules(layer: str) -> list[Path]:
    return modules(layer)


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_each_layer_imports_only_what_it_may(layer: str) -> None:
    offenders = [
        f"{path.relative_to(SRC)} imports {name}"
        for path in _modules(layer)
        for name in _imports(path)
        if name.split(".")[0] not in STDLIB | ALLOWED[layer]
    ]
    assert offenders == []


def test_adapters_see_only_the_application_ports() -> None:
    offenders = [
        f"{path.relative_to(SRC)} imports {name}"
        for path in _modules("adapters")
        for name in _imports(path)
        if name.startswith("application") and not name.startswith(ADAPTER_APPLICATION_PACKAGE)
    ]
    assert offenders == []


def test_nothing_imports_an_entrypoint() -> None:
    offenders = [
        f"{path.relative_to(SRC)} imports {name}"
        for layer in ALLOWED
        for path in _modules(layer)
        for name in _imports(path)
        if name.startswith("entrypoints")
    ]
    assert offenders == []


def test_the_sqlite_path_does_not_import_boto3() -> None:
    """Cold start: a SQLite command must not pay for boto3 (about 0.15 s)."""
    shared = [
        SRC / "adapters" / "tables.py",
        SRC / "adapters" / "records.py",
        *_modules("adapters/sqlite"),
    ]
    offenders = [
        str(p.relative_to(SRC))
        for p in shared
        for n in _imports(p)
        if n.startswith(("boto3", "botocore"))
    ]
    assert offenders == []
