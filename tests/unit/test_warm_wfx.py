"""The tests' warm `wfx` starts (tests/e2e/warm_wfx.py) only on a Popen that waits as
`WarmProcess` expects: anywhere else each start is a fresh interpreter."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.e2e import warm_wfx
from tests.e2e.cli import Wfx


def test_this_pythons_popen_waits_as_warm_process_expects() -> None:
    assert warm_wfx.popen_waits_as_expected()


class _WaitsWithMore(subprocess.Popen[str]):
    def _wait(self, timeout: float | None, interval: float) -> int:  # type: ignore[override]
        raise NotImplementedError


class _PollsWithoutDeadstate(subprocess.Popen[str]):
    def _internal_poll(self) -> int | None:
        raise NotImplementedError


class _SetsMore(subprocess.Popen[str]):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._new_state = None
        super().__init__(*args, **kwargs)


class _WithoutTheHooks(subprocess.Popen[str]):
    _wait = None  # type: ignore[assignment]


@pytest.mark.parametrize(
    "popen", [_WaitsWithMore, _PollsWithoutDeadstate, _SetsMore, _WithoutTheHooks]
)
def test_a_popen_that_differs_is_not_taken_for_the_expected_one(popen: type[Any]) -> None:
    assert warm_wfx.popen_as_expected(subprocess.Popen)
    assert not warm_wfx.popen_as_expected(popen)


def test_a_start_is_cold_where_popen_differs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(warm_wfx, "popen_waits_as_expected", lambda: False)
    monkeypatch.setattr(warm_wfx, "_zygote", None)  # a warm start would make one, and fail
    monkeypatch.setattr(warm_wfx, "_Zygote", None)
    cold: list[tuple[tuple[str, ...], bool]] = []
    started: Any = object()

    def start_cold(_: Wfx, *args: str, new_session: bool = False) -> Any:
        cold.append((args, new_session))
        return started

    monkeypatch.setattr(Wfx, "start_cold", start_cold)
    assert Wfx(tmp_path).start("serve", "--port", "0", new_session=True) is started
    assert cold == [(("serve", "--port", "0"), True)]
