"""The Lambda deployment zip: wfx's packages and, unless left out, its runtime dependencies
installed by pip for Lambda's platform (binary wheels only: nothing is compiled for this host).

pip installs the project itself (no test or dev extras), so the zip holds what `pip install wfx`
would, at the zip's root, where Lambda puts it on `sys.path`. Caches and compiled files are left
out: Lambda compiles on import into a read-only tree only once per cold start either way.
"""

from __future__ import annotations

import errno
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


# Lambda refuses a function whose code and layers unzip to more (its documented quota).
LAMBDA_UNZIPPED_LIMIT = 262_144_000


class PackageBuildError(Exception):
    """pip could not install the project for Lambda; the message holds pip's own words."""


class PackageTooLargeError(Exception):
    """The package would unzip to more than Lambda takes; nothing was written."""

    def __init__(self, size_bytes: int) -> None:
        super().__init__(
            f"the package unzips to {size_bytes:,} bytes, over Lambda's "
            f"{LAMBDA_UNZIPPED_LIMIT:,} (250 MiB) for a function with its layers; "
            "nothing was written"
        )


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
    """Install `project` (a folder with its pyproject.toml) into a build folder and zip it.
    An output that cannot be written raises its OSError before pip runs (a minute, with the
    dependencies)."""
    _check_output(output)
    with tempfile.TemporaryDirectory(prefix="wfx-lambda-") as build:
        target = Path(build) / "package"
        # pip's own environment (its index, proxy, certificates), not wfx's configuration
        environment = os.environ | {
            "PIP_NO_INPUT": "1",
            "DIST_EXTRA_CONFIG": str(_outside_build_config(Path(build))),
        }
        finished = subprocess.run(
            pip_command(project, target, with_dependencies),
            capture_output=True,
            text=True,
            env=environment,
            check=False,
        )
        if finished.returncode != 0:
            raise PackageBuildError(finished.stderr.strip() or finished.stdout.strip())
        return zip_package(target, output)


def _outside_build_config(build: Path) -> Path:
    """setuptools builds in the project's build/ and src/*.egg-info and packs whatever
    build/lib holds, a module removed since an earlier build included: this extra configuration
    (DIST_EXTRA_CONFIG, read by setuptools' commands) moves both into the build folder, so the
    zip holds the project as it is and the project is left as it was."""
    config = build / "setuptools.cfg"
    config.write_text(
        f"[build]\nbuild_base = {build / 'build'}\n[egg_info]\negg_base = {build}\n",
        encoding="utf-8",
    )
    return config


def _check_output(output: Path) -> None:
    """The OSError writing the zip would meet, raised now: a folder in its place, a file on its
    way, a folder (or a file system) that takes no file."""
    if output.is_dir():
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(output))
    nearest = next(folder for folder in output.parents if folder.exists())
    if not nearest.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(output))
    output.parent.mkdir(parents=True, exist_ok=True)
    # a link, a pipe or a device is written into (see zip_package): opening a pipe now would
    # wait for its reader; a file is replaced from beside, where the probe is what it meets
    if _written_in_place(output):
        if not os.access(output, os.W_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(output))
        return
    probe = _partial(output)
    probe.touch()
    probe.unlink()


def _partial(output: Path) -> Path:
    return output.with_name(f".{output.name}.partial")


def _written_in_place(output: Path) -> bool:
    return output.is_symlink() or (output.exists() and not output.is_file())


def _files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if not path.is_file() or _SKIPPED_PARTS & set(relative.parts):
            continue
        if path.suffix in _SKIPPED_SUFFIXES or relative.parts[0] == "bin":
            continue  # console scripts: their shebang names the build's Python, not Lambda's
        yield path


def zip_package(root: Path, output: Path) -> BuiltPackage:
    """Zip the installed tree `root` into `output`; PackageTooLargeError, before anything is
    written, when Lambda would refuse it unzipped."""
    files = list(_files(root))
    unzipped = sum(path.stat().st_size for path in files)
    if unzipped > LAMBDA_UNZIPPED_LIMIT:
        raise PackageTooLargeError(unzipped)
    output.parent.mkdir(parents=True, exist_ok=True)
    # Zipped beside the output and renamed: never a half-written zip under the name asked for.
    # A link (/dev/stdout), a pipe or a device is copied into instead: a zip renamed into its
    # place would replace it, and what reads it would get nothing.
    direct = _written_in_place(output)
    partial = root.with_suffix(".zip") if direct else _partial(output)
    count = 0
    try:
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for path in files:
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
