"""The Lambda deployment zip: wfx's packages and, unless left out, its runtime dependencies
installed by pip for Lambda's platform (binary wheels only: nothing is compiled for this host).

pip installs the project itself (no test or dev extras), so the zip holds what `pip install wfx`
would, at the zip's root, where Lambda puts it on `sys.path`. Caches and compiled files are left
out: Lambda compiles on import into a read-only tree only once per cold start either way.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

LAMBDA_PLATFORM = "manylinux2014_x86_64"
LAMBDA_PYTHON = "3.11"
_SKIPPED_PARTS = frozenset({"__pycache__"})
_SKIPPED_SUFFIXES = (".pyc", ".pyo")
# Zip timestamps before 1980 are refused; a fixed date keeps two builds of one tree identical.
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)


class PackageBuildError(Exception):
    """pip could not install the project for Lambda; the message holds pip's own words."""


@dataclass(frozen=True)
class BuiltPackage:
    path: Path
    files: int
    size_bytes: int


def pip_command(project: Path, target: Path, with_dependencies: bool) -> list[str]:
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--target", str(target)]
    command += ["--no-compile", "--disable-pip-version-check"]
    if with_dependencies:
        # wheels for Lambda, not for this machine; pip then refuses to build from source
        command += ["--platform", LAMBDA_PLATFORM, "--only-binary=:all:"]
        command += ["--python-version", LAMBDA_PYTHON, "--implementation", "cp"]
    else:
        command += ["--no-deps"]
    return [*command, str(project)]


def build_package(project: Path, output: Path, with_dependencies: bool = True) -> BuiltPackage:
    """Install `project` (a folder with its pyproject.toml) into a build folder and zip it."""
    with tempfile.TemporaryDirectory(prefix="wfx-lambda-") as build:
        target = Path(build) / "package"
        # pip's own environment (its index, proxy, certificates), not wfx's configuration
        environment = os.environ | {"PIP_NO_INPUT": "1"}
        finished = subprocess.run(
            pip_command(project, target, with_dependencies),
            capture_output=True,
            text=True,
            env=environment,
            check=False,
        )
        if finished.returncode != 0:
            raise PackageBuildError(finished.stderr.strip() or finished.stdout.strip())
        return _zip_tree(target, output)


def _files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if not path.is_file() or _SKIPPED_PARTS & set(relative.parts):
            continue
        if path.suffix in _SKIPPED_SUFFIXES or relative.parts[0] == "bin":
            continue  # console scripts: their shebang names the build's Python, not Lambda's
        yield path


def _zip_tree(root: Path, output: Path) -> BuiltPackage:
    output.parent.mkdir(parents=True, exist_ok=True)
    # Zipped beside the output and renamed: never a half-written zip under the name asked for.
    # A link (/dev/stdout), a pipe or a device is copied into instead: a zip renamed into its
    # place would replace it, and what reads it would get nothing.
    direct = output.is_symlink() or (output.exists() and not output.is_file())
    partial = root.with_suffix(".zip") if direct else output.with_name(f".{output.name}.partial")
    count = 0
    try:
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for path in _files(root):
                entry = zipfile.ZipInfo(path.relative_to(root).as_posix(), _FIXED_TIME)
                entry.compress_type = zipfile.ZIP_DEFLATED
                entry.external_attr = 0o644 << 16  # readable by Lambda's user, whatever the umask
                archive.writestr(entry, path.read_bytes())
                count += 1
        size = partial.stat().st_size
        if direct:
            with partial.open("rb") as zipped, output.open("wb") as stream:
                shutil.copyfileobj(zipped, stream)
        else:
            partial.replace(output)
    finally:
        partial.unlink(missing_ok=True)  # nor a zip nobody asked for, when that failed
    return BuiltPackage(output, count, size)
