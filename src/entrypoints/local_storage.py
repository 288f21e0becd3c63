"""Before a command touches anything: can wfx use the folders and the SQLite file it is set to?

Checked up front, so that a wrong WFX_HOME or WFX_DB is one line naming the variable (exit 3),
never a traceback half-way through a write, and so that a file that is not a wfx database is
never handed to SQLite, which could change it.
"""

from __future__ import annotations

import os
from pathlib import Path

from adapters.sqlite.file_check import sqlite_file_problem
from entrypoints.settings import Settings, UnusableSettingError


def check_local_storage(settings: Settings) -> None:
    """WFX_HOME is (or can be made) a folder wfx can write to; on SQLite, WFX_DB is a SQLite
    database, or nothing yet, in such a folder. Makes the folders, as the first write would."""
    for named, path in (("WFX_HOME", settings.home), ("WFX_DB", settings.sqlite_path)):
        if "\x00" in str(path):
            # only a library caller can pass one (no environment variable holds a NUL), and
            # the OS refuses it with a ValueError, not an OSError
            raise UnusableSettingError(f"{named} ({str(path)!r}): holds a NUL character; fix it")
    _usable_folder(
        settings.home, f"WFX_HOME ({settings.home})", "set WFX_HOME to a folder you can write to"
    )
    if settings.store != "sqlite":
        return
    database = settings.sqlite_path
    if database.parent != settings.home:
        _usable_folder(
            database.parent,
            f"WFX_DB ({database}): its folder",
            "set WFX_DB to a file in a folder you can write to",
        )
    problem = sqlite_file_problem(database)
    if problem is not None:
        raise UnusableSettingError(
            f"WFX_DB ({database}): {problem}; point WFX_DB at a wfx database, or move the "
            "file away to start a new one (wfx has not changed it)"
        )


def _usable_folder(folder: Path, named: str, advice: str) -> None:
    try:
        os.makedirs(folder, exist_ok=True)
    except FileExistsError:
        raise UnusableSettingError(f"{named} is a file, not a folder; {advice}") from None
    except NotADirectoryError:
        raise UnusableSettingError(
            f"{named} cannot be created, as a part of its path is a file; {advice}"
        ) from None
    except OSError as error:
        raise UnusableSettingError(
            f"{named} cannot be created ({error.strerror}); {advice}"
        ) from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UnusableSettingError(f"{named} is not writable; {advice}")
