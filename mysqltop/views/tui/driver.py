"""Textual's terminal driver, made to outlive the terminal (a dropped ssh session).

On a hangup the kernel sends SIGHUP, then SIGCONT, and the terminal answers every write with
EIO. Textual writes from a thread that dies on its first error; its queue holds 30 writes, and
the next write blocks the UI thread for good — the exit SIGHUP asked for (views.tui.terminate)
then never comes, with the server still polled and the recording open. Whether the thread meets
the dead terminal before that exit redirects the output depends on scheduling, so a busy machine
hung most of the time. Here output to a terminal that has gone is dropped, and the SIGCONT of the
hangup does not restart application mode (a second writer thread, the first one abandoned).

It draws on stdout, not on stderr as Textual's driver does: `mysqltop … 2>notes.log` keeps the
screen on the terminal (the commands refuse to start when stdout is not one, views.terminal)."""

from __future__ import annotations

import os
import sys
from typing import IO, Any

from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver


class _DroppedOnHangup:
    """A text file whose writes stop, silently, at the first error: a hung-up terminal never
    answers again, and what the TUI still draws has nowhere to go."""

    def __init__(self, file: IO[str]) -> None:
        self._file = file
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                self._file.write(text)
            except OSError:
                self.gone = True
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._file.flush()
            except OSError:
                self.gone = True

    def fileno(self) -> int:
        return self._file.fileno()


class TerminalDriver(LinuxDriver):
    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self._file = _DroppedOnHangup(_screen(self._file))  # type: ignore[assignment,arg-type]

    def _sigcont_application(self, *args: Any) -> None:
        # `fg` after Ctrl-Z resumes on a terminal; the SIGCONT of a hangup finds none.
        if os.isatty(self.fileno):
            super()._sigcont_application(*args)


def _screen(default: Any) -> Any:
    """The terminal to draw on: stdout where it is one, else what Textual chose (stderr)."""
    out = sys.__stdout__
    try:
        return out if out is not None and out.isatty() else default
    except (AttributeError, ValueError):
        return default


def terminal_driver(chosen: type[Driver]) -> type[Driver]:
    """The driver for the driver Textual chose: its own Unix terminal one made hangup-safe; any
    other (Windows, one named in TEXTUAL_DRIVER) as it is."""
    return TerminalDriver if chosen is LinuxDriver else chosen
