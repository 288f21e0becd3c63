"""Who the CLI is: on its own store it acts as the OS user holding the admin role, so a laptop
needs no role set up before `wfx` works, and every record it writes names that user."""

from __future__ import annotations

from domain.authorization import ADMIN_ROLE, Subject
from entrypoints.settings import Settings, user_source


def who_you_are() -> str:
    """Who the CLI took its user to be, where from, and how to be another: what a refusal of
    that user says, since no login showed it."""
    user = Settings.from_environment().user
    return f"wfx takes you to be {user} ({user_source()}); set WFX_USER to decide as another user"


def cli_subject(settings: Settings | None = None) -> Subject:
    """The OS user (WFX_USER overrides it, see entrypoints/settings.py) with the admin role."""
    settings = settings or Settings.from_environment()
    return Subject(user_id=settings.user, roles=(ADMIN_ROLE,))
