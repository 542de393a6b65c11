"""The longest blocking chains and transactions of a window, accumulated frame by frame. Pure.

Memory is bounded by the distinct blockers/transactions seen (each folded into one summary), and
trimmed to the longest when it grows past a bound, so a day-long recording is fine.
"""

from __future__ import annotations

from dataclasses import dataclass

from mysqltop.core.frame import Frame

TOP = 5
_KEEP = 500                 # summaries kept while accumulating before trimming to the longest


@dataclass
class ChainSummary:
    thread_id: int | None
    trx_id: str
    user: str | None
    host: str | None
    command: str | None
    statement: str | None
    first: float                       # epoch of the first frame it blocked in
    last: float
    max_blocked: int                   # most sessions behind it at once
    max_depth: int
    longest_wait_s: float | None       # longest wait behind it
    frames: int
    kill: str | None


@dataclass
class TransactionSummary:
    thread_id: int | None
    trx_id: str
    user: str | None
    host: str | None
    max_age_s: float
    at: float                          # epoch when it was that old
    state: str | None
    read_view: bool | None
    rows_locked: float | None          # most seen
    rows_modified: float | None
    statement: str | None


class LockWindow:
    def __init__(self, top: int = TOP) -> None:
        self.top = top
        self.chains: dict[tuple[int | None, str], ChainSummary] = {}
        self.trx: dict[tuple[int | None, str], TransactionSummary] = {}

    def add(self, f: Frame) -> None:
        for b in f.blocking:
            key = (b.thread_id, b.trx_id)
            c = self.chains.get(key)
            if c is None:
                c = self.chains[key] = ChainSummary(b.thread_id, b.trx_id, b.user, b.host, b.command, b.statement,
                                                    f.time, f.time, 0, 0, None, 0, b.kill)
            c.last, c.frames = f.time, c.frames + 1
            c.max_blocked, c.max_depth = max(c.max_blocked, b.blocked), max(c.max_depth, b.depth)
            if b.longest_wait_s is not None and (c.longest_wait_s is None or b.longest_wait_s > c.longest_wait_s):
                c.longest_wait_s = b.longest_wait_s
            c.statement = b.statement or c.statement
            c.command = b.command or c.command
        for t in f.transactions:
            if t.age_s is None:
                continue
            key = (t.thread_id, t.trx_id)
            s = self.trx.get(key)
            if s is None:
                s = self.trx[key] = TransactionSummary(t.thread_id, t.trx_id, t.user, t.host, t.age_s, f.time,
                                                       t.state, t.read_view, t.rows_locked, t.rows_modified,
                                                       t.statement)
            if t.age_s >= s.max_age_s:
                s.max_age_s, s.at, s.state = t.age_s, f.time, t.state
                s.read_view = t.read_view if t.read_view is not None else s.read_view
            s.rows_locked = _max(s.rows_locked, t.rows_locked)
            s.rows_modified = _max(s.rows_modified, t.rows_modified)
            s.statement = t.statement or s.statement
        if len(self.chains) > _KEEP:
            self.chains = dict(sorted(self.chains.items(), key=lambda kv: _chain_rank(kv[1]))[:_KEEP // 2])
        if len(self.trx) > _KEEP:
            self.trx = dict(sorted(self.trx.items(), key=lambda kv: -kv[1].max_age_s)[:_KEEP // 2])

    def longest_chains(self) -> list[ChainSummary]:
        return sorted(self.chains.values(), key=_chain_rank)[:self.top]

    def longest_transactions(self) -> list[TransactionSummary]:
        return sorted(self.trx.values(), key=lambda s: (-s.max_age_s, s.trx_id))[:self.top]


def _chain_rank(c: ChainSummary) -> tuple[float, ...]:
    """Most sessions blocked first, then the longest wait behind it, then how long it lasted."""
    return (-c.max_blocked, -(c.longest_wait_s or 0.0), -(c.last - c.first), c.first)


def _max(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)
