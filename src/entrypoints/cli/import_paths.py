"""Which files `wfx assets import PATH...` stores, under which keys.

A PATH named on the command line is taken as the user named it: a link there is followed, as
`cp` would. Inside a folder, a link is never followed out of it: one that resolves to a regular
file of the same folder is imported with that file's content (a `latest -> v2` alias keeps
working), any other (leading out, broken, to a folder) is skipped with a warning.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from domain.errors import InvalidInputError


def files_to_import(paths: list[Path], warn: Callable[[str], None]) -> list[tuple[str, Path]]:
    """(file key, path to read) for each file; every path is free of links when returned, so
    the store's no-follow open refuses a link swapped in afterwards."""
    files: list[tuple[str, Path]] = []
    for path in paths:
        if path.is_dir():
            found = _folder_files(path, warn)
            if not found:
                raise InvalidInputError(f"PATH: no files in {path}: nothing to import")
            files.extend(found)
        elif path.is_file():
            files.append((path.name, path.resolve()))
        elif os.path.lexists(path):
            raise InvalidInputError(
                f"PATH: {path} is not a regular file ({_kind(path)}): only files and folders "
                "are imported"
            )
        else:
            raise InvalidInputError(f"PATH: {path} does not exist")
    for key, read in files:
        if _undecodable(key):
            raise InvalidInputError(f"PATH: {read}: its name is not UTF-8 text; rename it")
    return files


def _undecodable(name: str) -> bool:
    """A name the file system gave in bytes that are not UTF-8 (held as lone surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _kind(path: Path) -> str:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return "a link that leads nowhere"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file or a folder"


def _folder_files(folder: Path, warn: Callable[[str], None]) -> list[tuple[str, Path]]:
    root = os.path.realpath(folder)
    found: list[tuple[str, Path]] = []
    links: list[tuple[str, str]] = []
    _walk(root, "", found, links)
    for key, link in links:
        target = os.path.realpath(link)
        if target.startswith(root + os.sep) and _is_regular(target):
            found.append((key, Path(target)))
        else:
            warn(f"{folder / key} is a symbolic link to {target}, {_problem(target, root)}")
    return sorted(found)


def _walk(
    folder: str, key_prefix: str, found: list[tuple[str, Path]], links: list[tuple[str, str]]
) -> None:
    with os.scandir(folder) as entries:
        for entry in entries:
            key = f"{key_prefix}{entry.name}"
            if entry.is_symlink():
                links.append((key, entry.path))
            elif entry.is_dir(follow_symlinks=False):
                _walk(entry.path, f"{key}/", found, links)
            elif entry.is_file(follow_symlinks=False):
                found.append((key, Path(entry.path)))


def _is_regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _problem(target: str, root: str) -> str:
    if target != root and not target.startswith(root + os.sep):
        return "outside the folder imported; not imported"
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return "which leads nowhere; not imported"
    if stat.S_ISDIR(mode):
        return "a folder (links to folders are not followed); not imported"
    return "not a regular file; not imported"
