"""What redaction costs on a 1 MB step log: the whole text at once, line by line, streamed.

    .venv/bin/python -m tests.bench.redaction

The log is made of ordinary lines (timestamps, paths, hashes, key: value pairs, JSON) with a
secret every 500 lines, so the figures are those of a real log: mostly the no-match path.
Nothing is asserted; the figures go in docs/reliability.md beside the command.
"""

from __future__ import annotations

import contextlib
import random
import timeit
from collections.abc import Callable

from domain.redaction import redact

_ORDINARY = (
    "2026-03-01T12:00:{second:02d}.123Z INFO step mesh-report: wrote preview/part-{n}.svg",
    "processing file {n} of 4000: sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709 size={n}",
    '{{"level": "debug", "message": "tile {n} done", "elapsed_ms": {n}, "worker": "w-3"}}',
    "GET https://example.org/api/v1/items?page={n}&limit=100 -> 200 in {second} ms",
    "user: bob, attempt: {n}, status: ok, next: s3://bucket/runs/{n}/output.json",
    'Traceback line {n}: File "/usr/lib/python3/site-packages/lib/module.py", line {n}',
)
_SECRETS = (
    "export DB_PASSWORD='correct horse {n}'",
    "connecting to postgres://admin:s3cr3t{n}@db.internal:5432/app",
    "GITHUB_TOKEN=ghp_" + "a1B2c3D4e5" * 3 + "abcdef",
)
_SIZE = 1_000_000


def sample_log(size: int = _SIZE, seed: int = 3) -> str:
    """About `size` characters of log, the same text every time."""
    rng = random.Random(seed)
    lines: list[str] = []
    total = 0
    n = 0
    while total < size:
        n += 1
        pool = _SECRETS if n % 500 == 0 else _ORDINARY
        line = rng.choice(pool).format(n=n, second=n % 60)
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines) + "\n"


def _best_ms(call: Callable[[], object], number: int = 3, repeat: int = 5) -> float:
    return min(timeit.repeat(call, number=number, repeat=repeat)) / number * 1000


def _streamed(lines: list[str]) -> str:
    from domain.redaction import StreamRedactor  # absent before issue 8: the figure is skipped

    redactor = StreamRedactor()
    return "".join([redactor.feed(line) for line in lines]) + redactor.close()


def measure() -> dict[str, float]:
    log = sample_log()
    lines = log.splitlines(keepends=True)
    figures = {
        "whole_text_ms": round(_best_ms(lambda: redact(log)), 1),
        "line_by_line_ms": round(_best_ms(lambda: [redact(line) for line in lines]), 1),
    }
    with contextlib.suppress(ImportError):
        figures["stream_writer_ms"] = round(_best_ms(lambda: _streamed(lines)), 1)
    return figures


if __name__ == "__main__":
    log = sample_log()
    print(f"{len(log):,} characters, {log.count(chr(10)):,} lines")
    for name, value in measure().items():
        print(f"{name}: {value}")
