"""The signals that end a live view as `q` or Ctrl-C does.

SIGTERM is `kill PID`; SIGHUP is a dropped ssh session or closed terminal, which a DBA on a
flaky link meets mid-incident. Python's default for both ends the process on the spot: the
terminal keeps the TUI's modes and a recording loses its last samples. A process started
under `nohup` asked to outlive the hangup, so SIGHUP is left alone when it is ignored."""

from __future__ import annotations

import signal


def stop_signals() -> list[signal.Signals]:
    wanted = [signal.SIGTERM]
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
        wanted.append(signal.SIGHUP)
    return wanted
