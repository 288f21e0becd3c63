"""Settings (entrypoints/settings.py) is the one reader of the environment in wfx's own code:
every other module gets its configuration passed in. The exceptions read a step's environment,
or a tool's, by design (each says why where it reads it)."""

import ast

from tests.source_trees import SRC, modules, nodes

READERS = {
    "entrypoints/settings.py",
    # the step's environment: the runner's, passed on through the allow list
    "adapters/local/step_execution.py",
    # the step guard passes its environment (the step's) on to the step it starts
    "adapters/local/step_guard.py",
    # a python step's own process reads its own inputs
    "adapters/local/python_step_host.py",
    # pip's environment (index, proxy, certificates)
    "adapters/aws/stack/lambda_package.py",
}
_FUNCTIONS = {"environ", "environb", "getenv", "getenvb"}


def _reads(walked: tuple[ast.AST, ...]) -> list[int]:
    """Lines where the module of these nodes reads the environment (`os.environ[...] = ...`,
    which hands a setting to child processes, is a write and allowed)."""
    written = {
        id(target.value)
        for node in walked
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Subscript)
    }
    lines = []
    for node in walked:
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
            and node.attr in _FUNCTIONS
            and id(node) not in written
        ):
            lines.append(node.lineno)
        if isinstance(node, ast.ImportFrom) and node.module == "os":
            lines.extend(node.lineno for alias in node.names if alias.name in _FUNCTIONS)
    return lines


def test_only_settings_and_the_step_processes_read_the_environment() -> None:
    offenders = [
        f"{path.relative_to(SRC)}:{line}"
        for path in modules()
        if path.relative_to(SRC).as_posix() not in READERS
        for line in _reads(nodes(path))
    ]
    assert offenders == []


def _walked(text: str) -> tuple[ast.AST, ...]:
    return tuple(ast.walk(ast.parse(text)))


def test_the_check_sees_each_way_of_reading() -> None:
    for text in (
        "import os\nx = os.environ.get('A')\n",
        "import os\nx = os.getenv('A')\n",
        "import os\nx = os.environ['A']\n",
        "from os import environ\n",
    ):
        assert _reads(_walked(text)), text
    assert _reads(_walked("import os\nos.environ['A'] = 'b'\n")) == []
