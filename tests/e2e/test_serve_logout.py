"""Logout ends the session on the server, over a real `wfx serve`: after the viewer's logout
the same token is refused as a bearer token and as a cookie, while another token of the same
user still works; `wfx auth revoke USER` ends every token the user holds, and a new login after
it works."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.cli import USER, Wfx
from tests.e2e.served import serving

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("serve-logout")]

LIST = "/workflows/executions"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Wfx, str]]:
    """One service for both tests (its start is most of their time): each mints its own tokens,
    and the revocation ends with a token minted after it working."""
    wfx = Wfx(tmp_path_factory.mktemp("logout") / "home")
    with serving(wfx) as (base, _):
        yield wfx, base


def _token(wfx: Wfx) -> str:
    return wfx.ok("auth", "token", USER, "--role", "admin", "--ttl", "1h").stdout.strip()


def _bearer(base: str, token: str) -> int:
    return httpx.get(base + LIST, headers={"Authorization": f"Bearer {token}"}).status_code


def test_logout_revokes_the_token_as_cookie_and_as_bearer(service: tuple[Wfx, str]) -> None:
    wfx, base = service
    token, other = _token(wfx), _token(wfx)
    with httpx.Client(base_url=base) as browser:
        assert browser.get("/login", params={"token": token}).status_code == 303
        page = browser.get("/")
        assert page.status_code == 200
        (csrf,) = re.findall(r'name="csrf" value="([0-9a-f]+)"', page.text)
        assert browser.post("/logout", data={"csrf": csrf}).status_code == 303

    assert _bearer(base, token) == 401
    stolen_cookie = httpx.get(base + "/", cookies={"wfx_session": token})
    assert stolen_cookie.status_code == 401
    assert _bearer(base, other) == 200  # only the session that logged out ended


def test_revoking_a_user_ends_every_token_it_holds(service: tuple[Wfx, str]) -> None:
    wfx, base = service
    token = _token(wfx)
    assert _bearer(base, token) == 200
    wfx.ok("auth", "revoke", USER)
    answer = httpx.get(base + LIST, headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 401
    assert "[REDACTED]" not in answer.json()["message"]
    time.sleep(1.1)  # tokens are dated to the second: the next one is issued after the moment
    assert _bearer(base, _token(wfx)) == 200
