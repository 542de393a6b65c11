"""Whether the full-screen views can run here: they draw on stdout and read keys from stdin."""

from __future__ import annotations

import sys

from mysqltop.errors import UserError


def check_terminal(command: str) -> None:
    """Without a terminal the TUI would write escape codes into a file and could not be quit
    with q. Say what to use instead."""
    shown = f"mysqltop {command}" if command else "mysqltop"
    for name, stream in (("output", sys.stdout), ("input", sys.stdin)):
        try:
            tty = stream is not None and stream.isatty()
        except (AttributeError, ValueError):
            tty = False
        if not tty:
            raise UserError(f"`{shown}` is a full-screen view and needs a terminal, but its {name} "
                            "is not one; for scripts and files use `mysqltop snapshot` or `mysqltop record`", 2)
