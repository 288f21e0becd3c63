"""What the CLI writes is safe on a terminal: a character that would act on it (ESC starting a
CSI or OSC sequence, NUL, a carriage return, an RTL override) and that wfx did not write itself
is shown escaped, as `\\x1b` or `\\u202e`. Run ids, group ids, step errors and logs are written
by others: a Database User's `executionGroupId` must not retitle an admin's window.

Plain writes (`print`, `sys.stdout.write`) go through an escaping stream that `install()` puts
in place of stdout and stderr. rich writes its own colours and cursor moves, so its consoles
(`console()`) write to the stream underneath and escape the text of what they render, leaving
their own control segments alone; `escape()` keeps rich markup in what others wrote inert."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any, TextIO

from domain.control_characters import escape_control_characters


def escape(text: str) -> str:
    """`text` for a rich console: its markup and its control characters shown, not obeyed."""
    from rich.markup import escape as escape_markup  # rich is loaded only by what draws

    return escape_markup(escape_control_characters(text))


class EscapingStream:
    """A text stream that writes every control character but newline and tab escaped."""

    def __init__(self, stream: TextIO) -> None:
        self.raw = stream

    def write(self, text: str) -> int:
        self.raw.write(escape_control_characters(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)  # flush, isatty, fileno, encoding, buffer, ...


class _EscapedText:
    """A renderable drawn as the one it wraps, with the control characters of its text (not of
    rich's own control segments) escaped."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
        from rich.segment import Segment

        for segment in console.render(self._inner, options):
            if segment.control:
                yield segment
            else:
                text = escape_control_characters(segment.text)
                yield Segment(text, segment.style) if text != segment.text else segment


class _EscapeHook:
    def process_renderables(self, renderables: list[Any]) -> list[Any]:
        return [_EscapedText(renderable) for renderable in renderables]


def console(stderr: bool = False, **options: Any) -> Any:
    """A rich Console on stdout (or stderr) that escapes what it is given to show."""
    from rich.console import Console

    made = Console(file=raw(stderr), **options)
    made.push_render_hook(_EscapeHook())  # type: ignore[arg-type]  # duck-typed RenderHook
    return made


def install() -> None:
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, EscapingStream):
            setattr(sys, name, EscapingStream(stream))


def raw(stderr: bool = False) -> TextIO:
    """The stream under the escaping one, for a rich console (itself escaping what it shows).
    A python step running in this process routes sys.stdout and sys.stderr for a while (its
    own prints to its log): a console made meanwhile writes under that routing too, not through
    the escaping stream, which would show the console's own colours as text."""
    stream = sys.stderr if stderr else sys.stdout
    stream = getattr(stream, "routed_default", stream)
    return stream.raw if isinstance(stream, EscapingStream) else stream
