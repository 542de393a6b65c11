"""Every distinct deadlock of a timeline, and the patterns they fall into.

The server keeps only the latest deadlock; each sample carries it (Frame.deadlock), and a new one
shows as a section that changed. Folding the frames of a timeline in order (live, a recording, an
import) gives the same book whichever way they were reached, so the TUI, `report` and `snapshot`
agree. The server also counts every deadlock (Innodb_deadlocks): between two polls it may count
several while the section shows only the last, so the book says how many it counted against how
many it captured.

A pattern is what a fix addresses: the same tables, indexes, lock modes and statement shapes,
whichever rows, values or transactions were involved.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from mysqltop.core.frame import Frame
from mysqltop.core.innodb.deadlock import GAP, INSERT_INTENTION, NEXT_KEY, Deadlock, DeadlockLock, DeadlockTrx
from mysqltop.core.statement_shape import shape

MAX_KEPT = 200          # distinct deadlocks a book keeps, the newest (patterns keep counting past it)
# Patterns a book keeps: a server with a deadlock of a new shape every poll (a hostile or broken
# one) must not grow the fold without end. Past it, the deadlocks of new shapes are counted only.
MAX_PATTERNS = 500

Key = tuple[object, ...]


def identity(d: Deadlock) -> Key:
    """What tells one deadlock from the next: when it happened and who was in it."""
    return (d.time, d.thread, tuple((t.trx_id, t.thread_id, t.query_id) for t in d.transactions), d.victim)


def _lock_words(lock: DeadlockLock) -> str:
    where = f"{lock.table or '?'}" + (f" {lock.index}" if lock.index else "")
    return f"{lock.mode or '?'} {lock.kind} on {where}"


def _trx_signature(t: DeadlockTrx) -> str:
    holds = ", ".join(sorted({_lock_words(lk) for lk in t.holds})) or "?"
    waits = ", ".join(sorted({_lock_words(lk) for lk in t.waits_for})) or "?"
    return f"{shape(t.statement) or '?'} | holds {holds} | waits {waits}"


def signature(d: Deadlock) -> str:
    """The pattern key: every transaction's statement shape, held and wanted locks (modes, kinds,
    tables, indexes), in an order that does not depend on which one the server numbered first."""
    return " || ".join(sorted(_trx_signature(t) for t in d.transactions))


def tables_of(d: Deadlock) -> list[str]:
    return sorted({lk.table for t in d.transactions for lk in t.holds + t.waits_for if lk.table})


def indexes_of(d: Deadlock) -> list[str]:
    return sorted({f"{lk.table}.{lk.index}" for t in d.transactions for lk in t.holds + t.waits_for
                   if lk.table and lk.index})


def summary(d: Deadlock) -> str:
    """One line (raw: callers pass it through safe_text): "2 trx on shop.accounts (PRIMARY):
    X record ⇄ X record, victim (1) thread 7 UPDATE shop.accounts SET …"."""
    if not d.transactions:
        return "its transactions are not in the text (a redacted recording, or the section was cut)"
    tables = ", ".join(tables_of(d)) or "?"
    idx = sorted({lk.index for t in d.transactions for lk in t.holds + t.waits_for if lk.index})
    waits = " ⇄ ".join(f"{lk.mode} {lk.kind}" for t in d.transactions for lk in t.waits_for[:1])
    v = d.victim_trx
    victim = (f"victim ({v.number}) thread {v.thread_id}: {shape(v.statement) or '?'}" if v is not None
              else "victim unknown")
    cut = ", section truncated" if d.truncated else ""
    return (f"{len(d.transactions)} trx on {tables}" + (f" ({', '.join(idx)})" if idx else "")
            + (f": {waits}" if waits else "") + f", {victim}{cut}")


def fixes(d: Deadlock) -> list[str]:
    """The usual fixes for this pattern, most specific first."""
    kinds = {lk.kind for t in d.transactions for lk in t.holds + t.waits_for}
    out = []
    if kinds & {GAP, NEXT_KEY, INSERT_INTENTION}:
        out.append("gap / next-key locks are involved: an index that lets the statement find the exact row "
                   "(a unique lookup) takes a record lock instead; READ COMMITTED takes no gap locks "
                   "for most statements")
    if len(tables_of(d)) > 1 or len({shape(t.statement) for t in d.transactions}) > 1 or len(d.transactions) > 2:
        out.append("touch the tables and rows in one consistent order in every transaction")
    else:
        out.append("lock the rows in one consistent order (e.g. by primary key) in every transaction")
    out.append("keep transactions short and small, and retry the rolled-back one (error 1213)")
    return out


@dataclass
class SeenDeadlock:
    deadlock: Deadlock
    seen: float                 # epoch of the first frame that showed it
    prior: bool                 # already there at the first frame: it happened before the timeline
    signature: str


@dataclass
class DeadlockPattern:
    signature: str
    example: Deadlock           # the latest of the pattern
    count: int = 0
    first_seen: float = 0.0
    last_seen: float = 0.0
    first_time: str | None = None    # the server's own time of the first and last (as printed)
    last_time: str | None = None

    @property
    def tables(self) -> list[str]:
        return tables_of(self.example)

    @property
    def indexes(self) -> list[str]:
        return indexes_of(self.example)

    def to_dict(self) -> dict[str, object]:
        return {"signature": self.signature, "count": self.count, "tables": self.tables,
                "indexes": self.indexes, "first_seen": self.first_seen, "last_seen": self.last_seen,
                "first_time": self.first_time, "last_time": self.last_time,
                "summary": summary(self.example), "fixes": fixes(self.example)}


@dataclass
class DeadlockBook:
    """A fold over a timeline's frames, oldest first (`add` each, or `of(frames)`)."""

    seen: list[SeenDeadlock] = field(default_factory=list)    # the newest MAX_KEPT, oldest first
    patterns: dict[str, DeadlockPattern] = field(default_factory=dict)
    captured: int = 0                 # new during the timeline (not the one there at its start)
    dropped: int = 0                  # older than the newest MAX_KEPT: counted in patterns, not kept
    unpatterned: int = 0              # captured in shapes past MAX_PATTERNS: counted here only
    prior: SeenDeadlock | None = None   # the one already there at the first frame (kept apart)
    counted: float | None = None      # deadlocks the server counted since the first frame (None: it does not count)
    _counter: float | None = None
    _last: Key | None = None
    _frames: int = 0

    @classmethod
    def of(cls, frames: Iterable[Frame]) -> "DeadlockBook":
        book = cls()
        for f in frames:
            book.add(f)
        return book

    def add(self, frame: Frame) -> SeenDeadlock | None:
        """Take the next frame; returns the deadlock it brought, if new."""
        if frame.stale:
            return None
        first = self._frames == 0
        self._frames += 1
        c = frame.counters.deadlocks
        if c is not None:
            if self._counter is not None:     # a counter that went back restarted from zero
                self.counted = (self.counted or 0.0) + (c - self._counter if c >= self._counter else c)
            elif self.counted is None:
                self.counted = 0.0
            self._counter = c
        d = frame.deadlock
        if d is None or (d.time is None and not d.transactions):
            return None
        key = identity(d)
        if key == self._last:
            return None
        self._last = key
        seen = SeenDeadlock(d, frame.time, first, signature(d))
        if not first:
            self.captured += 1
            p = self.patterns.get(seen.signature)
            if p is None and len(self.patterns) < MAX_PATTERNS:
                p = self.patterns[seen.signature] = DeadlockPattern(seen.signature, d, first_seen=frame.time,
                                                                    first_time=d.time)
            if p is None:
                self.unpatterned += 1
            else:
                p.count += 1
                p.example, p.last_seen, p.last_time = d, frame.time, d.time
        else:
            self.prior = seen
        self.seen.append(seen)
        if len(self.seen) > MAX_KEPT:
            del self.seen[0]
            self.dropped += 1
        return seen

    @property
    def latest(self) -> SeenDeadlock | None:
        return self.seen[-1] if self.seen else None

    def ranked(self) -> list[DeadlockPattern]:
        return sorted(self.patterns.values(), key=lambda p: (-p.count, -p.last_seen))

    def counts_line(self) -> str:
        counted = self.counted
        told = f"{self.captured} captured" + (
            f" ({self.unpatterned} in shapes past the first {MAX_PATTERNS} patterns, counted only)"
            if self.unpatterned else "")
        if counted is None:
            return told + " (the server does not count them)"
        if counted < self.captured:         # a counter that missed some (disabled, reset, replaced text)
            return f"{told} (the server's counter moved by {int(counted)})"
        missed = int(counted) - self.captured
        return (f"{told} of {int(counted)} the server counted"
                + (f" ({missed} happened between polls: the server shows only the latest)" if missed else ""))


@dataclass
class PatternSummary:
    """One pattern as the report tells it (epochs `first`/`last`: when the timeline first and last
    showed it; `first_time`/`last_time`: the server's own clock as printed)."""
    signature: str
    count: int
    tables: list[str]
    indexes: list[str]
    first: float
    last: float
    first_time: str | None
    last_time: str | None
    summary: str
    fixes: list[str]
    example: Deadlock | None = None   # the latest of the pattern, read whole (its story)


@dataclass
class DeadlocksSummary:
    captured: int = 0
    counted: float | None = None      # Innodb_deadlocks over the window (None: not counted)
    before: str | None = None         # the deadlock already there at the window's start, one line
    patterns: list[PatternSummary] = field(default_factory=list)
    counts: str = ""                  # "3 captured of 5 the server counted (…)"


def summarise(book: DeadlockBook, top: int = 10) -> DeadlocksSummary:
    before = book.prior
    return DeadlocksSummary(
        book.captured, book.counted, summary(before.deadlock) if before is not None else None,
        [PatternSummary(p.signature, p.count, p.tables, p.indexes, p.first_seen, p.last_seen, p.first_time,
                        p.last_time, summary(p.example), fixes(p.example), p.example) for p in book.ranked()[:top]],
        book.counts_line())
