"""Where the time goes: cProfile over many calls, summarised per call by area and by function,
and a profiler-free timing of the ports' methods (store, catalogs, reporter, runner).

cProfile slows Python code down (roughly 1.5-3x here) and C calls hardly at all, so read its
shares and ranking, not its absolute microseconds; `method_breakdown` gives real microseconds.
"""

from __future__ import annotations

import cProfile
import functools
import inspect
import pstats
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

# (needle in the file name or C-function label, area), first match wins
_AREAS = (
    ("/src/domain/", "domain"),
    ("/src/application/", "application"),
    ("/src/adapters/", "adapters"),
    ("/src/entrypoints/", "entrypoints"),
    ("/tests/bench/", "bench harness"),
    ("sqlalchemy", "sqlalchemy"),
    ("pydantic", "pydantic"),
    ("dependency_injector", "dependency_injector"),
    ("sqlite3", "sqlite3 (C: SQLite work, commits)"),
    ("strptime", "date parsing (strptime, locale)"),
    ("locale", "date parsing (strptime, locale)"),
    ("/json/", "json"),
    ("_json", "json"),
    ("uuid", "uuid"),
    ("datetime", "datetime"),
    ("posix", "filesystem (os, pathlib, shutil)"),
    ("pathlib", "filesystem (os, pathlib, shutil)"),
    ("shutil", "filesystem (os, pathlib, shutil)"),
    ("/os.py", "filesystem (os, pathlib, shutil)"),
    ("io.", "filesystem (os, pathlib, shutil)"),
    ("open", "filesystem (os, pathlib, shutil)"),
)

_Key = tuple[str, int, str]


def _area(key: _Key) -> str:
    filename, _, function = key
    text = filename if filename != "~" else function
    for needle, area in _AREAS:
        if needle in text:
            return area
    return "other (stdlib, builtins)"


def _label(key: _Key) -> str:
    filename, line, function = key
    if filename == "~":
        return function
    for marker in ("/src/", "/site-packages/", "/tests/bench/", "/lib/python3"):
        if marker in filename:
            short = filename.split(marker, 1)[1]
            break
    else:
        short = filename
    return f"{short}:{line} {function}"


def _is_ours(key: _Key) -> bool:
    return "/src/" in key[0]


def profile(call: Callable[[], object], count: int, top: int = 25) -> dict[str, Any]:
    """Run `call` `count` times under cProfile; microseconds per call (profiled)."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(count):
        call()
    profiler.disable()
    stats: dict[_Key, tuple[int, int, float, float, Any]] = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    total = sum(entry[2] for entry in stats.values())
    areas: dict[str, float] = {}
    for key, (_, _, own, _, _) in stats.items():
        areas[_area(key)] = areas.get(_area(key), 0.0) + own

    def row(key: _Key) -> dict[str, Any]:
        calls, _, own, cumulative, _ = stats[key]
        return {
            "function": _label(key),
            "calls_per_call": round(calls / count, 2),
            "cumulative_us": round(cumulative / count * 1e6, 1),
            "self_us": round(own / count * 1e6, 1),
        }

    ours = sorted((k for k in stats if _is_ours(k)), key=lambda k: stats[k][3], reverse=True)
    by_self = sorted(stats, key=lambda k: stats[k][2], reverse=True)
    return {
        "calls": count,
        "profiled_us_per_call": round(total / count * 1e6, 1),
        "self_us_by_area": {
            area: round(seconds / count * 1e6, 1)
            for area, seconds in sorted(areas.items(), key=lambda item: -item[1])
        },
        "our_functions_by_cumulative": [row(k) for k in ours[:top]],
        "all_functions_by_self": [row(k) for k in by_self[:top]],
    }


@dataclass(frozen=True)
class Watched:
    """An object whose methods get timed: its label, the instance, and which methods."""

    label: str
    target: object
    methods: Sequence[str] = ()  # empty: every public method of its class


def _public_methods(target: object) -> list[str]:
    return [
        name
        for name, value in inspect.getmembers(type(target), callable)
        if not name.startswith("_") and not inspect.isclass(value)
    ]


def method_breakdown(
    call: Callable[[], object], count: int, watched: Sequence[Watched]
) -> dict[str, Any]:
    """Per-call wall time of the named methods, without a profiler: each method is shadowed by a
    timing wrapper on its instance for the duration, then removed. Nested calls are counted in
    both the caller and the callee."""
    durations: dict[str, list[float]] = {}
    clock = time.perf_counter
    patched: list[tuple[object, str]] = []

    def wrap(label: str, method: Callable[..., Any]) -> Callable[..., Any]:
        bucket = durations.setdefault(label, [])

        @functools.wraps(method)
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = clock()
            try:
                return method(*args, **kwargs)
            finally:
                bucket.append(clock() - started)

        return timed

    for item in watched:
        for name in item.methods or _public_methods(item.target):
            setattr(item.target, name, wrap(f"{item.label}.{name}", getattr(item.target, name)))
            patched.append((item.target, name))
    whole: list[float] = []
    try:
        for _ in range(count):
            started = clock()
            call()
            whole.append(clock() - started)
    finally:
        for target, name in patched:
            delattr(target, name)
    rows: list[dict[str, Any]] = [
        {
            "method": label,
            "calls_per_call": round(len(values) / count, 2),
            "median_us_each": round(statistics.median(values) * 1e6, 1),
            "us_per_call": round(statistics.median(values) * 1e6 * len(values) / count, 1),
        }
        for label, values in durations.items()
        if values
    ]
    rows.sort(key=lambda row: float(row["us_per_call"]), reverse=True)
    return {
        "calls": count,
        "median_us_per_call": round(statistics.median(whole) * 1e6, 1),
        "methods": rows,
    }
