"""LATEST DETECTED DEADLOCK / LATEST FOREIGN KEY ERROR.

Their bodies are free-form (SQL, record dumps), so no line in them counts as unknown. The
deadlock is read whole (deadlock.py); of a foreign key error only its time is kept.
"""

from __future__ import annotations

from typing import Any

from .atoms import time_of
from .deadlock import Deadlock, parse_deadlock_section
from .model import InnodbStatus
from .line_rules import Context


def _event(body: str) -> dict[str, Any]:
    # 2014-10-16 18:36:30 0x7fc2a95c1700 | 120906  6:03:32 | 070915 15:10:24 Transaction:
    for line in body.split("\n", 8):
        line = line.strip()
        if line:
            return {"time": time_of(line)}
    return {"time": None}


def parse_deadlock(body: str, status: InnodbStatus, ctx: Context) -> None:
    # A title a statement printed too: the text cannot tell which body is the server's.
    doubtful = "LATEST DETECTED DEADLOCK" in ctx.doubtful
    status.deadlock = Deadlock(truncated=True) if doubtful else parse_deadlock_section(body)


def parse_foreign_key(body: str, status: InnodbStatus, ctx: Context) -> None:
    status.foreign_key_error = {"time": None} if "LATEST FOREIGN KEY ERROR" in ctx.doubtful else _event(body)
