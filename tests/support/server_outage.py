"""A monitor command run as a subprocess, its stderr lines collected, through a real server outage:
kill -9, wait for the monitor to say the data stopped, start the server, wait for it to say the
data is back (the record and serve outage tests)."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from pathlib import Path
from typing import Any

from tests.support.waiting import wait_until


class StderrLines:
    """`argv` started with its stderr read, line by line, into `lines` by a thread."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        self.proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        assert self.proc.stderr is not None
        stderr = self.proc.stderr
        self._reader = threading.Thread(target=lambda: self.lines.extend(stderr), daemon=True)
        self._reader.start()

    def said(self, words: str) -> bool:
        return any(words in line for line in self.lines)

    def stop(self, sig: int) -> int:
        """Send `sig`, wait for the exit and the last line; the exit code."""
        self.proc.send_signal(sig)
        code = self.proc.wait(timeout=120)
        self._reader.join(60)
        return code


def kill_and_restart(db: Any, monitor: StderrLines) -> None:
    """kill -9 the server once it has been up 4 s — a restart is told by the server's start
    moving later than whole-second Uptime allows, which a server killed in its first second
    cannot show — then start it when the monitor says the data stopped, and return when it says
    the data is back."""
    wait_until(lambda: int(db.query("SHOW GLOBAL STATUS LIKE 'Uptime'")[0][1]) >= 4)
    os.kill(db.pid, signal.SIGKILL)
    db.proc.wait()
    wait_until(lambda: monitor.said("no data from the server"))
    db.start()
    wait_until(lambda: monitor.said("answers again"))
