"""The permission templates wfx ships (package data beside this module), and a user's own VAMS
template file, read the same way."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from domain.errors import InvalidInputError, PermissionTemplateNotFoundError
from domain.permission_templates import PermissionTemplate, parse_template

_FOLDER = "templates"


def _shipped_files() -> dict[str, str]:
    """File stem -> JSON text of every shipped template."""
    folder = resources.files("adapters.authz").joinpath(_FOLDER)
    return {
        entry.name.removesuffix(".json"): entry.read_text(encoding="utf-8")
        for entry in folder.iterdir()
        if entry.name.endswith(".json")
    }


MAX_TEMPLATE_FILE_BYTES = 1024 * 1024


def shipped_templates() -> list[PermissionTemplate]:
    """Every shipped template, by name."""
    templates = [
        parse_template(json.loads(text), f"{stem}.json") for stem, text in _shipped_files().items()
    ]
    return sorted(templates, key=lambda template: template.name.lower())


def load_template(name_or_path: str) -> PermissionTemplate:
    """A shipped template by its name ("Database User") or file stem ("database-user"), else
    the VAMS template JSON file at that path."""
    wanted = name_or_path.strip().lower()
    for stem, text in _shipped_files().items():
        template = parse_template(json.loads(text), f"{stem}.json")
        if wanted in (stem, template.name.lower()):
            return template
    path = Path(name_or_path).expanduser()
    try:
        is_file = path.is_file()
    except OSError:  # a name longer than a path may be, say
        is_file = False
    if not is_file:
        names = ", ".join(t.name for t in shipped_templates())
        shown = name_or_path if len(name_or_path) <= 200 else f"{name_or_path[:200]}..."
        raise PermissionTemplateNotFoundError(
            f"template {shown!r}: neither a shipped template ({names}) nor a file"
        )
    try:
        with path.open("rb") as file:
            data = file.read(MAX_TEMPLATE_FILE_BYTES + 1)
    except OSError as error:
        raise InvalidInputError(f"template {path}: cannot read it ({error.strerror})") from None
    if len(data) > MAX_TEMPLATE_FILE_BYTES:
        raise InvalidInputError(f"template {path}: at most 1 MiB (a template's JSON file)")
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise InvalidInputError(f"template {path}: not a JSON file ({error})") from None
    except RecursionError:
        raise InvalidInputError(f"template {path}: nested deeper than a template can be") from None
    return parse_template(document, str(path))
