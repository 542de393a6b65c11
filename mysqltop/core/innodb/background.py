"""BACKGROUND THREAD: master thread loop counters (5.1 plugin+; patched 5.0)."""

from __future__ import annotations

import re

from .model import InnodbStatus
from .line_rules import Context, Rule, ignore, lines_of, run

# srv_master_thread loops: 47 srv_active, 0 srv_shutdown, 951972 srv_idle
# srv_master_thread loops: 103 1_second, 103 sleeps, 10 10_second, 0 background, 0 flush
LOOPS_RE = re.compile(r"srv_master_thread loops: (.*)")
# 47 srv_active   (one pair of the line above)
_PAIR_RE = re.compile(r"(\d+) (\w+)")
# srv_master_thread log flush and writes: 290
# srv_master_thread log flush and writes: 2091  log writes only: 3061
FLUSH_WRITES_RE = re.compile(
    r"srv_master_thread log flush and writes: (\d+)(?:\s+log writes only: (\d+))?"
)
# srv_master_thread log flush: 187 sync, 8 async
FLUSH_RE = re.compile(r"srv_master_thread log flush: (\d+) sync, (\d+) async")


def _loops(m: re.Match[str], out: dict[str, int]) -> None:
    for count, name in _PAIR_RE.findall(m[1]):
        out[name] = int(count)


def _flush_writes(m: re.Match[str], out: dict[str, int]) -> None:
    out["log_flush_and_writes"] = int(m[1])
    if m[2] is not None:
        out["log_writes_only"] = int(m[2])


def _flush(m: re.Match[str], out: dict[str, int]) -> None:
    out["log_flush_sync"], out["log_flush_async"] = int(m[1]), int(m[2])


RULES = [
    # fsync callers: 9770 buffer pool, 0 other, 11 checkpoint, 1535 log aio, 16325 log sync, 0 archive
    *ignore("fsync callers:"),
    Rule("srv_master_thread loops:", LOOPS_RE, _loops),
    Rule("srv_master_thread log flush and", FLUSH_WRITES_RE, _flush_writes),
    Rule("srv_master_thread log flush:", FLUSH_RE, _flush),
]


def parse(body: str, status: InnodbStatus, ctx: Context) -> None:
    run(lines_of(body, ctx), RULES, status.background, ctx)
