"""The environment a command step runs with: built from an allow-list, never inherited whole.

A step is code its publisher chose; the service's environment holds where its store and keys
are (WFX_HOME, WFX_DB, WFX_JWT_*, WFX_REDACT...) and its cloud credentials. A step gets only:
- what a program needs to run at all (PATH, the locale, the time zone, a temporary folder, a
  home folder, and `{python}`'s own import path);
- the variables of the README's step table (its inputs, output folder, ids, registration token);
- the names the operator lists in WFX_STEP_ENV, passed on as they are (secrets a step needs:
  `WFX_STEP_ENV=DATABASE_URL`).
What the workflow itself wants set, its command sets (`env NAME=value program ...`).
"""

from __future__ import annotations

from collections.abc import Mapping

PASS_ON_VARIABLE = "WFX_STEP_ENV"
# Not secrets and not the service's settings: without them a program cannot find its
# executables, read its text or import `{python}`'s packages.
_RUNTIME_NAMES = (
    "PATH",
    "HOME",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "TERM",
    "PYTHONPATH",
    "VIRTUAL_ENV",
    "SYSTEMROOT",  # Windows cannot start a process without it
)
_RUNTIME_PREFIXES = ("LC_",)


def passed_on_names(environ: Mapping[str, str]) -> tuple[str, ...]:
    """The names WFX_STEP_ENV lists (comma- or space-separated)."""
    text = environ.get(PASS_ON_VARIABLE, "").replace(",", " ")
    return tuple(name for name in text.split() if name)


def step_environment(
    environ: Mapping[str, str],
    step_variables: Mapping[str, str],
    home: str | None = None,
) -> dict[str, str]:
    """The allow-listed part of `environ`, the step's own variables over it; `home` replaces
    HOME (a step run as another user gets that user's)."""
    kept = {
        name: value
        for name, value in environ.items()
        if name in _RUNTIME_NAMES or name.startswith(_RUNTIME_PREFIXES)
    }
    kept.update((name, environ[name]) for name in passed_on_names(environ) if name in environ)
    if home is not None:
        kept["HOME"] = home
    return kept | dict(step_variables)
