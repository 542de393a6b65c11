"""Deadlocks that recur: the same pattern again and again is an access-order or index problem in
the application, and the pattern names where (core/deadlocks.py)."""

from __future__ import annotations

from typing import Iterator

from mysqltop.core.deadlocks import DeadlockBook, fixes, summary
from mysqltop.core.frame import Advice
from mysqltop.core.rules.rule_kit import Vars, Window, advice, clock, num, span

# The span a pattern must recur in, in seconds: long enough to see a pattern in an application that
# deadlocks every minute or so, short enough that the finding clears within minutes of a fix.
DEADLOCK_SPAN_S = 300.0
# The same pattern this many times within the span is a pattern, not bad luck.
RECURRING = 2
# This many of one pattern per minute of the span is an incident (each one a rolled-back transaction).
CRITICAL_PER_MIN = 6.0


@span(DEADLOCK_SPAN_S)
def deadlocks_recur(w: Window, v: Vars) -> Iterator[Advice]:
    frames = w.history
    if not frames:
        return
    since = frames[-1].time - DEADLOCK_SPAN_S
    book = DeadlockBook.of(f for f in frames if f.time >= since)
    ranked = book.ranked()
    if not ranked or ranked[0].count < RECURRING:
        return
    top = ranked[0]
    span_s = max(frames[-1].time - max(since, frames[0].time), 1.0)
    per_min = top.count * 60.0 / span_s
    severity = "critical" if per_min >= CRITICAL_PER_MIN else "warning"
    others = sum(p.count for p in ranked[1:])
    msg = (f"The same deadlock keeps happening ({summary(top.example)}): "
           + "; ".join(fixes(top.example)))
    counted = book.counted
    evidence = (f"{top.count} deadlocks of this pattern from {clock(top.first_seen)} to {clock(top.last_seen)} UTC "
                f"(over the last {num(min(DEADLOCK_SPAN_S, span_s))} s, {num(per_min)}/min)"
                + (f", {others} of other patterns" if others else "")
                + (f"; the server counted {num(counted)}" if counted is not None else "")
                + f"; tables {', '.join(top.tables) or '?'}")
    yield advice("deadlocks_recur", severity, msg, evidence)


RULES = (deadlocks_recur,)
