"""Steps run as another OS user (`wfx serve --step-user NAME`, WFX_STEP_USER): the trust boundary.

The service keeps its home owner-only: WFX_HOME itself may be passed through (0711) but not
listed, and everything in it but `runs/` and `outputs/` is the service's alone (the database, the
token and registration keys, the object store, the logs), with files made from then on
owner-only too (umask 077). A step gets its own run's folders: `runs/`, `runs/<executionId>/` and
`outputs/` passable, its output folder `outputs/<executionId>/` and its inputs folder
`runs/<executionId>/inputs/` (the input list and copies of its input files) given to the step
user. The runner's records (`runs/<executionId>.json`, `runs/<executionId>/steps/`) stay the
service's. Changing owners and users needs root (or CAP_CHOWN, CAP_SETUID and CAP_SETGID).
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from domain.errors import InvalidInputError

RUNS_FOLDER = "runs"
OUTPUTS_FOLDER = "outputs"
INPUTS_FOLDER = "inputs"
_PASSABLE = 0o711  # others may go through, not list


@dataclass(frozen=True)
class StepUser:
    """The OS user every step runs as."""

    name: str
    uid: int
    gid: int
    home: str

    @classmethod
    def named(cls, name: str, source: str = "WFX_STEP_USER") -> StepUser:
        """The user by name or uid; InvalidInputError naming `source` when there is none, or
        when it is the service's own user (steps would keep the service's rights)."""
        try:
            entry = pwd.getpwuid(int(name)) if name.isdigit() else pwd.getpwnam(name)
        except (KeyError, ValueError):
            raise InvalidInputError(f"{source}: no OS user named {name!r}") from None
        if entry.pw_uid == os.geteuid():
            raise InvalidInputError(
                f"{source}: {name!r} is the service's own user; steps would keep its rights"
            )
        return cls(name=entry.pw_name, uid=entry.pw_uid, gid=entry.pw_gid, home=entry.pw_dir)

    @property
    def ids(self) -> str:
        """`UID:GID`, as the step guard takes it."""
        return f"{self.uid}:{self.gid}"


def can_switch_users() -> str | None:
    """Why this process cannot run steps as another user, or None."""
    if os.geteuid() == 0:
        return None
    return "running steps as another user needs the service to run as root"


def lock_home(home: Path) -> None:
    """WFX_HOME passable and nothing in it but `runs/` and `outputs/` open to anyone else; files
    made from now on owner-only."""
    os.umask(0o077)
    home.mkdir(parents=True, exist_ok=True)
    os.chmod(home, _PASSABLE)
    for entry in home.iterdir():
        info = entry.lstat()
        if stat.S_ISLNK(info.st_mode):
            continue
        if entry.name in (RUNS_FOLDER, OUTPUTS_FOLDER):
            os.chmod(entry, _PASSABLE)
        else:
            os.chmod(entry, stat.S_IMODE(info.st_mode) & 0o700)


def stage_inputs(input_files: Sequence[str], folder: Path) -> list[str]:
    """Copies of the step's input files in its own inputs folder: the object store stays the
    service's. `folder/<n>/<name>` keeps each name and parts two files of the same name."""
    staged = []
    for index, source in enumerate(input_files):
        target = folder / str(index) / os.path.basename(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        staged.append(str(target))
    return staged


def open_run_folder(run_dir: str, output_dir: str, user: StepUser) -> None:
    """The run's folders passable, its output and inputs folders the step user's own."""
    run, output = Path(run_dir), Path(output_dir)
    run.mkdir(parents=True, exist_ok=True)
    output.parent.mkdir(parents=True, exist_ok=True)
    for passable in (run.parent, run, output.parent):
        os.chmod(passable, _PASSABLE)
    for owned in (output, run / INPUTS_FOLDER):
        owned.mkdir(parents=True, exist_ok=True)
        _chown_tree(owned, user)


def _chown_tree(root: Path, user: StepUser) -> None:
    _give(str(root), user)
    for folder, names, files in os.walk(root):  # never into a linked folder
        for name in (*names, *files):
            _give(os.path.join(folder, name), user)


def _give(path: str, user: StepUser) -> None:
    info = os.lstat(path)
    if info.st_uid == user.uid:
        return
    if not stat.S_ISDIR(info.st_mode) and info.st_nlink > 1:
        return  # a hard link to a file elsewhere: giving it would give that file away
    os.chown(path, user.uid, user.gid, follow_symlinks=False)
