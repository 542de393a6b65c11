"""`kill PID` (SIGTERM) or a dropped session (SIGHUP) ends a TUI as `q` does: the terminal gets
its modes back, a recording is closed and the session's CPU priority restored.

After a hangup the terminal answers writes with EIO. Textual writes from a thread of its own
that dies on the first error, and the next 30 writes fill its queue and block the UI thread,
so the exit that was asked for could hang: the terminal's output goes to /dev/null first."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.app import App

from mysqltop.process.stop_signals import leave_terminal, stop_signals


def exit_on_terminate(app: App[Any]) -> None:
    try:
        loop = asyncio.get_running_loop()
        for sig in stop_signals():
            loop.add_signal_handler(sig, _end, app, sig)
    except (NotImplementedError, RuntimeError, ValueError):   # no Unix signals, or not the main thread
        pass


def _end(app: App[Any], sig: int) -> None:
    leave_terminal(sig)
    app.exit()
