"""dependency_injector loads beside an asyncio stand-in (entrypoints/dependency_injection.py): its
async providers still work, and whoever imports asyncio afterwards gets the real module. In a new
process, where nothing imported asyncio first (pytest's own process may have)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_ASYNC_PROVIDERS = """
import sys
import entrypoints.dependency_injection  # noqa: F401
from dependency_injector import providers
assert "asyncio" not in sys.modules, "dependency_injector imported asyncio"

import asyncio

async def doubled(value):
    return value * 2

async def main():
    once = providers.Singleton(doubled, 21)  # a future of the coroutine: Future, ensure_future
    first, second = await once(), await once()
    resource = providers.Resource(doubled, 4)  # an async resource: ensure_future
    return first, second, await resource(), asyncio.run.__module__

print(asyncio.run(main()))
"""


def test_async_providers_resolve_and_asyncio_is_the_real_one_afterwards() -> None:
    source = str(Path(__file__).resolve().parents[2] / "src")
    completed = subprocess.run(
        [sys.executable, "-c", _ASYNC_PROVIDERS],
        env={"PYTHONPATH": source, "PATH": ""},
        capture_output=True,
        text=True,
        check=False,
    )

    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "(42, 42, 8, 'asyncio.runners')"
