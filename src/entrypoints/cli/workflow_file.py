"""Reading the workflow file `wfx workflows publish FILE` is given, before its document is
validated: a regular file of bounded size, UTF-8 YAML naming each key of a mapping once and
holding no number YAML 1.1 reads otherwise than it is written."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import yaml

from domain.errors import InvalidInputError

# A version is stored by one DynamoDB transaction, 4 MB at most: a file past that holds no
# workflow that could be published, and is not read (a FIFO or /dev/zero would never end).
MAX_WORKFLOW_FILE_BYTES = 4 * 1024 * 1024
# O_NONBLOCK: opening a FIFO would otherwise wait for a writer (a regular file ignores it)
_READ = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


class _WorkflowLoader(yaml.SafeLoader):
    """A SafeLoader refusing what YAML would read otherwise than its author wrote it: a key
    given twice (PyYAML keeps the last; the author meant one of them, and which is theirs to
    say) and a number in YAML 1.1's octal or base 60 (`_int_as_written`)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        # the node's own keys, before flatten_mapping adds what a merge key (`<<`) brings: a key
        # overriding a merged one is YAML's way to change a default, not a key given twice
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        problem=f"key {key!r} given twice in one mapping",
                        problem_mark=key_node.start_mark,
                    )
                seen.add(key)
            except TypeError:
                continue  # unhashable: the constructor below refuses it in its own words
        return super().construct_mapping(node, deep=deep)


def _int_as_written(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    """YAML 1.1 (PyYAML's) reads `010` as octal 8 and `1:30` as base 60, 90: a number read
    otherwise than a person reads it is refused; `07` and `0x1F` read as written."""
    number: int = loader.construct_yaml_int(node)
    written = node.value.replace("_", "").lstrip("+-")
    decimal = written.isdigit() and int(written) == abs(number)
    if ":" in written or (written[:1] == "0" and written[1:2].isdigit() and not decimal):
        raise yaml.constructor.ConstructorError(
            problem=f"{node.value} reads as {number} in YAML 1.1; write {number}, or quote it if "
            "it is text",
            problem_mark=node.start_mark,
        )
    return number


_WorkflowLoader.add_constructor("tag:yaml.org,2002:int", _int_as_written)


def read_workflow_file(file: Path) -> Any:
    """The YAML document of `file`; InvalidInputError naming the file and the rule."""
    text = _text(file)
    try:
        return yaml.load(text, Loader=_WorkflowLoader)  # a SafeLoader: no object but plain data
    except yaml.YAMLError as error:
        raise InvalidInputError(f"FILE: {file} is not valid YAML: {_yaml_problem(error)}") from None
    except RecursionError:
        raise InvalidInputError(f"FILE: {file} is nested deeper than a workflow can be") from None


def _text(file: Path) -> str:
    try:
        descriptor = os.open(file, _READ)
        with open(descriptor, "rb") as opened:
            if not stat.S_ISREG(os.fstat(opened.fileno()).st_mode):
                raise InvalidInputError(f"FILE: {file} is not a regular file")
            data = opened.read(MAX_WORKFLOW_FILE_BYTES + 1)
    except OSError as error:
        raise InvalidInputError(f"FILE: cannot read {file}: {error.strerror}") from None
    if len(data) > MAX_WORKFLOW_FILE_BYTES:
        raise InvalidInputError(
            f"FILE: {file} is larger than {MAX_WORKFLOW_FILE_BYTES} bytes, more than any "
            "workflow can be"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InvalidInputError(f"FILE: {file} is not UTF-8 text: {error.reason}") from None


def _yaml_problem(error: Exception) -> str:
    """PyYAML's message spans several lines with a source excerpt; keep the problem and where."""
    problem = getattr(error, "problem", None) or str(error)
    mark = getattr(error, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return " ".join(f"{problem}{where}".split())
