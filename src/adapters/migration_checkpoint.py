"""MigrationCheckpoint in a small text file: the last item key done, replaced atomically."""

from __future__ import annotations

import os
from pathlib import Path

from domain.errors import InvalidInputError


class FileMigrationCheckpoint:
    def __init__(self, path: Path) -> None:
        self._path = path

    def last_done(self) -> str | None:
        try:
            text = self._path.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as error:
            raise InvalidInputError(
                f"--checkpoint {self._path}: cannot be read ({error})"
            ) from None
        return text or None

    def record(self, item_key: str) -> None:
        # written beside and renamed over: a run cut short leaves the old key or the new one
        partial = self._path.with_name(self._path.name + ".partial")
        partial.write_text(item_key + "\n", encoding="utf-8")
        os.replace(partial, self._path)
