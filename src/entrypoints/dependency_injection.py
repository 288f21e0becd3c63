"""dependency_injector, imported without the web-framework hooks of its `wiring` module.

`dependency_injector.containers` imports `wiring`, which imports FastAPI, Starlette and werkzeug
whenever they are installed, only to recognise their markers in `@inject` functions. wfx never
wires (it calls its providers), and FastAPI alone costs a CLI command ~0.3 s of start-up. While
dependency_injector loads, each of those packages not imported yet reads as absent; the entries
are taken away again at once, so the HTTP service imports the real FastAPI as usual.
"""

from __future__ import annotations

import sys

_WIRING_HOOKS = ("fastapi", "fast_depends", "starlette", "werkzeug")


def _import_without_wiring_hooks() -> None:
    hidden = [name for name in _WIRING_HOOKS if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # `import name` raises ImportError
    try:
        import dependency_injector.containers  # noqa: F401
    finally:
        for name in hidden:
            if sys.modules.get(name) is None:
                del sys.modules[name]


_import_without_wiring_hooks()

from dependency_injector import containers, providers  # noqa: E402

__all__ = ["containers", "providers"]
