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
    if not path.is_file():
        names = ", ".join(t.name for t in shipped_templates())
        raise PermissionTemplateNotFoundError(
            f"template {name_or_path!r}: neither a shipped template ({names}) nor a file"
        )
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise InvalidInputError(f"template {path}: not a JSON file ({error})") from None
    return parse_template(document, str(path))
