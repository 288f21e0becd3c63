"""dependency_injector, imported without the optional integrations wfx does not use.

`dependency_injector.containers` imports `wiring`, which imports FastAPI, Starlette and werkzeug
whenever they are installed, only to recognise their markers in `@inject` functions; and
`dependency_injector.providers` imports PyYAML and pydantic-settings whenever they are installed,
only for `Configuration.from_yaml` / `from_pydantic`. wfx never wires (it calls its providers)
and fills its configuration with `from_dict`, yet these imports cost a CLI command ~0.3 s of
start-up with FastAPI, and ~45 ms more with pydantic-settings (a dependency of the test extras)
and PyYAML. While dependency_injector loads, each of those packages not imported yet reads as
absent; the entries are taken away again at once, so the HTTP service imports the real FastAPI,
and the workflow documents the real PyYAML, as usual.

Both compiled modules also import `Future`, `ensure_future` and `gather` from asyncio, which they
call only for a provider that returns a coroutine or a future (wfx has none); importing asyncio
(ssl, concurrent.futures, the event loops) was ~5 % of a cold `wfx executions list`'s
instructions. While they load, `asyncio` is a stand-in whose three names import the real asyncio
when first called, and `asyncio.coroutines` reads as absent, for which dependency_injector
falls back to the same coroutine types asyncio would give it. Whoever imports asyncio later
gets the real module.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from importlib import import_module
from types import ModuleType
from typing import Any

_UNUSED_INTEGRATIONS = (
    "fastapi",
    "fast_depends",
    "starlette",
    "werkzeug",
    "yaml",
    "pydantic_settings",
)


_ASYNCIO_NAMES = ("Future", "ensure_future", "gather")


def _on_first_call(name: str) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(import_module("asyncio"), name)(*args, **kwargs)

    call.__qualname__ = call.__name__ = name
    return call


def _asyncio_stand_in() -> ModuleType:
    stand_in = ModuleType("asyncio", "asyncio's names dependency_injector imports, on first call")
    for name in _ASYNCIO_NAMES:
        setattr(stand_in, name, _on_first_call(name))
    return stand_in


def _import_without_unused_integrations() -> None:
    hidden = [name for name in _UNUSED_INTEGRATIONS if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # `import name` raises ImportError
    stand_ins: dict[str, ModuleType | None] = {}
    if "asyncio" not in sys.modules:
        stand_ins = {"asyncio": _asyncio_stand_in(), "asyncio.coroutines": None}
    sys.modules.update(stand_ins)  # type: ignore[arg-type]  # None: `import name` raises
    try:
        import dependency_injector.containers  # noqa: F401
    finally:
        for name in hidden:
            if sys.modules.get(name) is None:
                del sys.modules[name]
        for name, stand_in in stand_ins.items():
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]


_import_without_unused_integrations()

from dependency_injector import containers, providers  # noqa: E402


def deferred(module: str, name: str) -> Callable[..., Any]:
    """A stand-in for the class `name` of `module` as a provider's callable: the module is
    imported when the provider first builds one, not when the container is declared."""

    @functools.cache
    def made() -> Any:
        # kept: import_module takes the module's import lock even when it is loaded (~8 µs,
        # more than building most use cases)
        return getattr(import_module(module), name)

    def build(*args: Any, **kwargs: Any) -> Any:
        return made()(*args, **kwargs)

    build.__qualname__ = build.__name__ = name
    return build


__all__ = ["containers", "deferred", "providers"]
