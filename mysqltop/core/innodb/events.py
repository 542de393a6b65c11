"""LATEST DETECTED DEADLOCK / LATEST FOREIGN KEY ERROR: presence and time.

Their bodies are free-form (SQL, record dumps), so no line in them counts as unknown.
"""

from __future__ import annotations

from typing import Any

from .atoms import time_of
from .model import InnodbStatus
from .rules import Context


def _event(body: str) -> dict[str, Any]:
    # 2014-10-16 18:36:30 0x7fc2a95c1700 | 120906  6:03:32 | 070915 15:10:24 Transaction:
    for line in body.split("\n", 8):
        line = line.strip()
        if line:
            return {"time": time_of(line)}
    return {"time": None}


def parse_deadlock(body: str, status: InnodbStatus, ctx: Context) -> None:
    status.deadlock = {"time": None} if "LATEST DETECTED DEADLOCK" in ctx.doubtful else _event(body)


def parse_foreign_key(body: str, status: InnodbStatus, ctx: Context) -> None:
    status.foreign_key_error = {"time": None} if "LATEST FOREIGN KEY ERROR" in ctx.doubtful else _event(body)
