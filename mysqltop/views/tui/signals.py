"""`kill PID` (SIGTERM) ends a TUI as `q` does: the terminal gets its modes back, a recording is
closed and the session's CPU priority restored. Python's default for SIGTERM ended the process
on the spot, leaving the terminal in the TUI's alternate screen with its input unechoed."""

from __future__ import annotations

import asyncio
import signal
from typing import Any

from textual.app import App


def exit_on_terminate(app: App[Any]) -> None:
    try:
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, app.exit)
    except (NotImplementedError, RuntimeError, ValueError):   # no Unix signals, or not the main thread
        pass
