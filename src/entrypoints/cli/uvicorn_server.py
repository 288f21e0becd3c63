"""uvicorn's server, leaving ignored the stop signals its process was started ignoring.

uvicorn takes SIGINT and SIGTERM whatever their disposition, so a service a script starts in the
background (`wfx serve &`: a shell starts it ignoring SIGINT, that a Ctrl-C of the script may
not reach it) would stop on that Ctrl-C all the same. Here such a signal is let go, as Python
itself lets an ignored SIGINT be.
"""

from __future__ import annotations

from types import FrameType

import uvicorn
from uvicorn.server import HANDLED_SIGNALS

from entrypoints.cli.interrupts import not_ignored


class Server(uvicorn.Server):
    """A uvicorn server that stops on a stop signal only when its process did not ignore that
    signal when the server was made."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._ignored = frozenset(HANDLED_SIGNALS) - frozenset(not_ignored(HANDLED_SIGNALS))

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if sig not in self._ignored:
            super().handle_exit(sig, frame)
