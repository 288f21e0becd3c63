"""Who the CLI is: on its own store it acts as the OS user holding the admin role, so a laptop
needs no role set up before `wfx` works, and every record it writes names that user."""

from __future__ import annotations

from domain.authorization import ADMIN_ROLE, Subject
from entrypoints.settings import Settings


def cli_subject(settings: Settings | None = None) -> Subject:
    """The OS user (WFX_USER overrides it, see entrypoints/settings.py) with the admin role."""
    settings = settings or Settings.from_environment()
    return Subject(user_id=settings.user, roles=(ADMIN_ROLE,))
