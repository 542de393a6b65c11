"""The signals that end a live view as `q` or Ctrl-C does.

SIGTERM is `kill PID`; SIGHUP is a dropped ssh session or closed terminal, which a DBA on a
flaky link meets mid-incident. Python's default for both ends the process on the spot: the
terminal keeps the TUI's modes and a recording loses its last samples. A process started
under `nohup` asked to outlive the hangup, so SIGHUP is left alone when it is ignored."""

from __future__ import annotations

import os
import signal
import stat
import threading


def stop_signals(interrupt: bool = False) -> list[signal.Signals]:
    """SIGTERM and SIGHUP (unless ignored), and with `interrupt` Ctrl-C's SIGINT unless ignored (a
    background job of a script starts with it ignored, as nohup starts with SIGHUP ignored)."""
    wanted = [signal.SIGTERM]
    if interrupt and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        wanted.append(signal.SIGINT)
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
        wanted.append(signal.SIGHUP)
    return wanted


def leave_terminal(sig: int) -> None:
    """After a hangup the terminal answers every write with EIO: send what is still to be said
    (the closing summary, outage notes) to /dev/null rather than end in a traceback. A SIGHUP
    from `kill -HUP` leaves a terminal that is still there alone."""
    if sig != signal.SIGHUP:
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        for fd in (1, 2):
            # A hung-up terminal is still a character device, but no longer answers as a tty.
            if stat.S_ISCHR(os.fstat(fd).st_mode) and not os.isatty(fd):
                os.dup2(null, fd)
    finally:
        os.close(null)


def set_soon(event: threading.Event) -> None:
    """Set `event` from a signal handler. The handler runs in the main thread between two
    bytecodes — possibly inside that event's own wait, holding its lock — and `event.set()` there
    would wait for that lock forever (a recorder asked to stop lived on for 40 minutes): a thread
    of its own sets it once the main thread lets go."""
    threading.Thread(target=event.set, name="mysqltop-stop", daemon=True).start()
