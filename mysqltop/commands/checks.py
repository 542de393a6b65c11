"""Checks of flags shared by several commands, so each mistake gets the same one line.

argparse's `type=float` accepts "nan" and "inf"; neither is a usable interval or speed (NaN
slips through `<= 0` and polls flat out, inf overflows the socket timeout).
"""

from __future__ import annotations

import argparse
import math

from mysqltop.errors import UserError

MAX_INTERVAL_S = 86400.0     # one poll a day; beyond that a socket timeout overflows anyway
MAX_SPEED = 1000.0


def check_interval(value: float, flag: str = "--interval") -> float:
    if not (math.isfinite(value) and 0 < value <= MAX_INTERVAL_S):
        raise UserError(f"{flag} must be a number of seconds above 0 and at most {MAX_INTERVAL_S:g} "
                        f"(e.g. 0.5, 1, 10), not {value:g}", 2)
    return value


def check_speed(value: float) -> float:
    if not (math.isfinite(value) and 0 < value <= MAX_SPEED):
        raise UserError(f"--speed must be a number above 0 and at most {MAX_SPEED:g} "
                        f"(1 = real time, 4 = four times faster), not {value:g}", 2)
    return value


def check_terminal(command: str) -> None:
    """The TUI draws on stdout and reads keys from stdin: without a terminal it would write escape
    codes into a file and could not be quit with q. Say what to use instead."""
    import sys

    shown = f"mysqltop {command}" if command else "mysqltop"
    for name, stream in (("output", sys.stdout), ("input", sys.stdin)):
        try:
            tty = stream is not None and stream.isatty()
        except (AttributeError, ValueError):
            tty = False
        if not tty:
            raise UserError(f"`{shown}` is a full-screen view and needs a terminal, but its {name} "
                            "is not one; for scripts and files use `mysqltop snapshot` or `mysqltop record`", 2)


def check_writable(path: str) -> None:
    """Fail before connecting when FILE cannot be a recording (bad dir, not ours, newer format)."""
    import os
    from pathlib import Path

    from mysqltop.errors import UserError

    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise UserError(f"{p} is a directory; give a file name for the recording", 2)
    if not parent.is_dir():
        raise UserError(f"cannot write recording {p}: directory {parent} does not exist", 2)
    if p.exists() and p.stat().st_size > 0:
        from mysqltop.recording.reader import RecordingReader

        RecordingReader(p).close()       # raises "not a recording" / "newer format"
        if not os.access(p, os.W_OK):
            raise UserError(f"cannot write recording {p}: permission denied", 2)
        from mysqltop.recording.writer import lock_recording

        os.close(lock_recording(p))      # another recorder on it: say so before connecting
    elif not os.access(parent, os.W_OK):
        raise UserError(f"cannot write recording {p}: directory {parent} is not writable", 2)


def add_answer_timeout(p: "argparse.ArgumentParser") -> None:
    p.add_argument("--answer-timeout", type=float, metavar="S",
                   help="seconds a poll is waited for before the server counts as not answering "
                        "(default max(5, 3 × interval); a slow poll is never cut, so the server's log "
                        "gets no 'Aborted connection' while it is merely busy)")


def check_answer_timeout(value: float | None) -> float | None:
    if value is not None and not (math.isfinite(value) and 0 < value <= 3600):
        raise UserError(f"--answer-timeout must be a number of seconds above 0 and at most 3600, not {value:g}", 2)
    return value
