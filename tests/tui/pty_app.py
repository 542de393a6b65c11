"""A command in a pseudo-terminal of a given size, its output drained and kept: the real
`mysqltop` as a user on ssh runs it (bench/tui and the end-to-end terminal tests)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import termios
import time

from tests.support.procs import child_setup

# What is kept of the output already searched, for a pattern cut across two reads. A window cut
# to a fixed size before the search lost a pattern that came early in one large read (a repaint).
OVERLAP = 256           # of text stripped of its escape sequences
RAW_OVERLAP = 4096      # of output as read (an escape sequence may be cut across reads)
ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]|\x1b\][^\x07]*\x07")


class PtyApp:
    def __init__(self, argv: list[str], size: tuple[int, int], keep: bool = True) -> None:
        self.started = time.monotonic()
        pid, fd = pty.fork()
        if pid == 0:
            env = dict(os.environ, TERM="xterm-256color", COLUMNS=str(size[0]), LINES=str(size[1]))
            try:
                child_setup()            # default signal dispositions; dies with the test run
                os.execvpe(argv[0], argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
        self.bytes = 0
        self.keep = keep
        self.raw = b""                 # everything written to the terminal (when keep)
        self.hung_up = False

    def drain(self, seconds: float) -> bytes:
        """Read output for `seconds`; returns what arrived with ANSI codes stripped."""
        end = time.monotonic() + seconds
        got = b""
        while (left := end - time.monotonic()) > 0:
            chunk = self._read(left)
            if chunk is None:
                break
            got += chunk
        return ANSI.sub(b"", got)

    def _read(self, timeout: float) -> bytes | None:
        """What the program wrote within `timeout` (b"": nothing yet), counted and kept; None
        once the terminal is closed."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return b""
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:
            return None
        if not chunk:
            return None
        self.bytes += len(chunk)
        if self.keep:
            self.raw += chunk
        return chunk

    def wait_for(self, pattern: re.Pattern[bytes], timeout: float) -> float | None:
        """Seconds since spawn when `pattern` first shows on screen, or None. The output is
        searched after each read, so the time is that of the read that completed the pattern."""
        end = time.monotonic() + timeout
        tail = b""
        while (left := end - time.monotonic()) > 0:
            chunk = self._read(min(left, 0.05))
            if chunk is None:                # the terminal is closed: nothing more will come
                time.sleep(min(left, 0.01))
                continue
            if not chunk:
                continue
            window = tail + chunk
            if pattern.search(ANSI.sub(b"", window)):
                return time.monotonic() - self.started
            tail = window[-RAW_OVERLAP:]
        return None

    def cpu_rss(self, seconds: float) -> tuple[float, int]:
        """CPU % of one core (process and its children) over `seconds`, then RSS in bytes."""
        import psutil

        proc = psutil.Process(self.pid)

        def cpu() -> float:
            t = proc.cpu_times()
            return t.user + t.system + t.children_user + t.children_system

        c0, t0 = cpu(), time.monotonic()
        self.drain(seconds)
        c1, t1 = cpu(), time.monotonic()
        rss = proc.memory_info().rss + sum(c.memory_info().rss for c in proc.children(recursive=True))
        return (c1 - c0) / (t1 - t0) * 100.0, rss

    def hang_up(self) -> None:
        """Close the terminal as a dropped ssh session does: the kernel sends the program SIGHUP."""
        os.close(self.fd)
        self.hung_up = True

    def exit_status(self, timeout: float) -> int | None:
        """The wait status once the program has ended (its output drained meanwhile), or None."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return status
            if self.hung_up:
                time.sleep(0.1)
            else:
                self.drain(0.1)
        return None

    def quit(self) -> None:
        """`q`, then SIGTERM, then SIGKILL, each given 2 s; the terminal is closed after."""
        try:
            if not self.hung_up:
                os.write(self.fd, b"q")
                if self.exit_status(2.0) is not None:
                    return
            os.kill(self.pid, signal.SIGTERM)
            if self.exit_status(2.0) is not None:
                return
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (OSError, ChildProcessError):
            pass
        finally:
            if not self.hung_up:
                try:
                    self.hang_up()
                except OSError:
                    pass
