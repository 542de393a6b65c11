"""The first poll's values on the terminal while the full-screen view is still loading.

Textual costs ~0.35 s of CPU to import and as much again to start; on a saturated box, where the
monitor gets a fraction of a core, that is seconds before anything shows. The first poll needs
none of it: its frame is written as plain text (the `snapshot` text form, clipped to the
terminal) on the alternate screen, which the TUI then takes over and repaints whole. Nothing is
drawn once the TUI owns the terminal, and the alternate screen is left if the TUI never starts.
"""

from __future__ import annotations

import os
import shutil
import threading

from mysqltop.core.frame import Frame
from mysqltop.core import units
from mysqltop.views.headless import text_frame

ENTER = "\x1b[?1049h\x1b[H\x1b[2J"       # the alternate screen, cleared, cursor home
LEAVE = "\x1b[?1049l"


def first_look_lines(frame: Frame, rates_in: float, columns: int, rows: int) -> list[str]:
    """What is drawn: a line saying what this is, then the frame as `snapshot` prints it,
    folded to `columns` and cut to `rows` (the untrusted text in it already made visible)."""
    head = f"mysqltop: first poll; rates in {units.duration(rates_in)}, the full view is loading"
    lines = [head[:columns]]
    # a compact form: the sections below the lists (IO, flush, host) must fit 80x24 too
    body = text_frame(frame, top=5, width=columns, listed=3).rstrip("\n").split("\n")
    lines += [line[:columns] for line in body]
    return lines[:rows]


class FirstLook:
    """Draws the first frame once, unless the TUI has taken the terminal (`hand_over`)."""

    def __init__(self, rates_in: float, fd: int = 1) -> None:
        self.rates_in, self.fd = rates_in, fd
        self._lock = threading.Lock()
        self._open = True          # the terminal is still ours to draw on
        self.shown = False

    def show(self, frame: Frame) -> None:
        """Called from the poll thread with the first frame that has the server's values."""
        size = shutil.get_terminal_size()
        text = ENTER + "\r\n".join(first_look_lines(frame, self.rates_in, size.columns, size.lines - 1))
        with self._lock:
            if not self._open or self.shown:
                return
            self.shown = True
            _write_all(self.fd, text.encode("utf-8", "replace"))

    def hand_over(self) -> None:
        """The TUI takes the terminal: nothing is drawn from now on."""
        with self._lock:
            self._open = False

    def abandon(self) -> None:
        """The TUI is not starting after all: back to the normal screen if we left it."""
        with self._lock:
            self._open = False
            if self.shown:
                _write_all(self.fd, LEAVE.encode())


def _write_all(fd: int, data: bytes) -> None:
    try:
        while data:
            data = data[os.write(fd, data):]
    except OSError:
        pass                       # the terminal went away: the TUI (or its absence) will say so
