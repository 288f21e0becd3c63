"""A rich console made while a python step runs in this process (its prints routed to its log)
still writes under the escaping stream: its own colours are never shown as text."""

from __future__ import annotations

import io
import sys
from typing import TextIO, cast

import pytest

from adapters.local.step_execution import _RoutedStream
from entrypoints.cli.terminal import EscapingStream, raw


def test_the_console_stream_is_the_real_one_under_a_python_steps_routing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    terminal = io.StringIO()
    escaping = EscapingStream(terminal)
    monkeypatch.setattr(sys, "stderr", escaping)
    assert raw(stderr=True) is terminal

    routed = _RoutedStream(cast(TextIO, escaping), {})  # a python step is running
    monkeypatch.setattr(sys, "stderr", routed)

    assert raw(stderr=True) is terminal
    escaping.write("\x1b[31m")
    assert terminal.getvalue() == "\\x1b[31m"  # what the escaping stream does to it
