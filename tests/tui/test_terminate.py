"""`kill PID` or a dropped session ends the TUI as `q` does (views.tui.terminate)."""

from __future__ import annotations

import os
import pty
import re
import signal
import sys
import threading
from pathlib import Path

import pytest

from tests.support.recorded import samples_in
from tests.support.waiting import wait_until

from .pty_app import PtyApp

LEAVE_ALT_SCREEN = b"\x1b[?1049l"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_or_hangup_ends_the_tui_and_gives_the_terminal_back(sig: signal.Signals) -> None:
    exe = os.path.join(os.path.dirname(sys.executable), "mysqltop")
    app = PtyApp([exe, "demo"], (100, 30))
    status = None
    try:
        assert app.wait_for(re.compile(rb"Latch hotspots"), timeout=60) is not None
        drawn = len(app.raw)
        os.kill(app.pid, sig)
        status = app.exit_status(60)                 # generous: a busy box
    finally:
        app.quit()
    assert status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert LEAVE_ALT_SCREEN in app.raw[drawn:]


@pytest.mark.live
def test_a_dropped_session_closes_the_live_recording(mariadb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from mysqltop.recording.reader import RecordingReader

    exe = os.path.join(os.path.dirname(sys.executable), "mysqltop")
    path = tmp_path / "live.mtrec"
    app = PtyApp([exe, *mariadb.cli_args(), "--interval", "0.2", "--record", str(path)], (100, 30))
    try:
        assert app.wait_for(re.compile(rb"REC"), timeout=60) is not None
        wait_until(lambda: samples_in(path) >= 3, pause=app.drain)
        n = samples_in(path)
        app.hang_up()                                # the terminal goes away: the kernel sends SIGHUP
        status = app.exit_status(60)
    finally:
        app.quit()
    assert status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    assert not os.path.exists(f"{path}-wal")       # closed properly: one self-contained file
    with RecordingReader(path) as r:
        assert len(r) >= n


@pytest.mark.parametrize("writes", [1, 200])
def test_output_to_a_hung_up_terminal_is_dropped_and_never_blocks_the_ui(writes: int) -> None:
    """Textual's writer thread died on the first EIO, and once its queue was full the UI thread
    blocked in its next write: the exit a hangup asks for never came (views.tui.driver)."""
    from textual.drivers._writer_thread import WriterThread

    from mysqltop.views.tui.driver import _DroppedOnHangup

    master, slave = pty.openpty()
    terminal = _DroppedOnHangup(os.fdopen(slave, "w"))
    writer = WriterThread(terminal)  # type: ignore[arg-type]
    writer.start()
    stopper = threading.Thread(target=writer.stop, daemon=True)
    try:
        writer.write("drawn\n")
        os.close(master)                             # the session drops: writes now fail with EIO
        master = -1
        for _ in range(writes):
            writer.write("\x1b[H" + "x" * 99)
        stopper.start()
        stopper.join(30)                             # generous: a busy box
    finally:
        if master >= 0:
            os.close(master)
    assert not stopper.is_alive() and not writer.is_alive()
    assert terminal.gone


def test_the_screen_is_drawn_on_the_terminal_when_stderr_goes_to_a_file(tmp_path: Path) -> None:
    """`mysqltop demo 2>notes.log`: the screen on the terminal, nothing of it in the file."""
    exe = os.path.join(os.path.dirname(sys.executable), "mysqltop")
    notes = tmp_path / "notes.log"
    app = PtyApp(["sh", "-c", 'exec "$0" demo 2>"$1"', exe, str(notes)], (100, 30))
    try:
        assert app.wait_for(re.compile(rb"Latch hotspots"), timeout=60) is not None
    finally:
        app.quit()
    assert b"\x1b[" not in notes.read_bytes()
