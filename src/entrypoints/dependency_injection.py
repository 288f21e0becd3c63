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
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from importlib import import_module
from typing import Any

_UNUSED_INTEGRATIONS = (
    "fastapi",
    "fast_depends",
    "starlette",
    "werkzeug",
    "yaml",
    "pydantic_settings",
)


def _import_without_unused_integrations() -> None:
    hidden = [name for name in _UNUSED_INTEGRATIONS if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # `import name` raises ImportError
    try:
        import dependency_injector.containers  # noqa: F401
    finally:
        for name in hidden:
            if sys.modules.get(name) is None:
                del sys.modules[name]


_import_without_unused_integrations()

from dependency_injector import containers, providers  # noqa: E402


def deferred(module: str, name: str) -> Callable[..., Any]:
    """A stand-in for the class `name` of `module` as a provider's callable: the module is
    imported when the provider first builds one, not when the container is declared."""

    def build(*args: Any, **kwargs: Any) -> Any:
        return getattr(import_module(module), name)(*args, **kwargs)

    build.__qualname__ = build.__name__ = name
    return build


__all__ = ["containers", "deferred", "providers"]
