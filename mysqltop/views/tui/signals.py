"""`kill PID` (SIGTERM) or a dropped session (SIGHUP) ends a TUI as `q` does: the terminal gets
its modes back, a recording is closed and the session's CPU priority restored."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.app import App

from mysqltop.views.stop_signals import stop_signals


def exit_on_terminate(app: App[Any]) -> None:
    try:
        loop = asyncio.get_running_loop()
        for sig in stop_signals():
            loop.add_signal_handler(sig, app.exit)
    except (NotImplementedError, RuntimeError, ValueError):   # no Unix signals, or not the main thread
        pass
