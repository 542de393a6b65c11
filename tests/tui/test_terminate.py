"""`kill PID` ends the TUI as `q` does (views.tui.signals)."""

from __future__ import annotations

import os
import re
import signal
import sys

from .pty_app import PtyApp

LEAVE_ALT_SCREEN = b"\x1b[?1049l"


def test_sigterm_ends_the_tui_and_gives_the_terminal_back() -> None:
    exe = os.path.join(os.path.dirname(sys.executable), "mysqltop")
    app = PtyApp([exe, "demo"], (100, 30))
    status = None
    try:
        assert app.wait_for(re.compile(rb"Latch hotspots"), timeout=60) is not None
        drawn = len(app.raw)
        os.kill(app.pid, signal.SIGTERM)
        for _ in range(600):                      # up to 60 s on a busy box
            app.drain(0.1)
            pid, status = os.waitpid(app.pid, os.WNOHANG)
            if pid:
                break
    finally:
        app.quit()
    assert status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert LEAVE_ALT_SCREEN in app.raw[drawn:]
