"""RevokeTokens: end sessions before their tokens expire - one token (a logout), or every token
a user holds now (`wfx auth revoke USER`). The service refuses a revoked token on every request,
as a cookie and as a bearer token alike."""

from __future__ import annotations

from application.ports.access import RevokedTokens
from application.ports.system import Clock


class RevokeTokens:
    def __init__(self, revoked: RevokedTokens, clock: Clock) -> None:
        self._revoked, self._clock = revoked, clock

    def token(self, token_id: str, expires_at: int) -> None:
        """One token, by its id, until it would have expired (epoch seconds)."""
        self._revoked.revoke_token(token_id, expires_at)

    def user(self, user_id: str) -> int:
        """Every token of `user_id` issued up to now; the moment, in epoch seconds."""
        issued_until = int(self._clock.now().timestamp())
        self._revoked.revoke_user(user_id, issued_until)
        return issued_until
