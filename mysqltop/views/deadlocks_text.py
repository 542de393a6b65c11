"""Deadlocks as text: the report's DEADLOCKS block, the story of one deadlock (who held what, who
waited for what), and the one-line summary the locks pane shows.

Statements, identifiers and hosts come from the server: every line built here passes through
safe_text.visible() before it is returned, and nothing is ever read as markup.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Callable

from mysqltop.core.deadlocks import DeadlockBook, DeadlocksSummary, PatternSummary, summarise, summary
from mysqltop.core.innodb.deadlock import Deadlock, DeadlockLock, DeadlockTrx
from mysqltop.core.safe_text import visible

STATEMENT_WIDTH = 200        # characters of a statement a story line shows


def clock(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).strftime("%H:%M:%S")


# A statement holding lines shaped as the section's own (core/innodb/deadlock_spans.py).
DOUBTFUL = "a statement holds text shaped like the server's deadlock lines (a forged story?)"


def one_line(d: Deadlock | None) -> str:
    """The locks pane's line about the latest deadlock ("" when the server shows none)."""
    if d is None:
        return ""
    return visible(f"latest deadlock {d.time or '?'}: {summary(d)}" + (f" ({DOUBTFUL})" if d.doubtful else ""))


def _lock_text(lk: DeadlockLock) -> str:
    where = f"{lk.table or '?'}" + (f" index {lk.index}" if lk.index else "")
    keys = []
    for r in lk.records[:2]:
        if r.supremum:
            keys.append("supremum (end of page)")
        elif r.fields:
            keys.append("key 0x" + (r.fields[0] or "NULL") + (" …" if len(r.fields) > 1 else ""))
    return f"{lk.mode or '?'} {lk.kind} lock on {where}" + (f" [{', '.join(keys)}]" if keys else "")


def _who(t: DeadlockTrx) -> str:
    return (f"({t.number}) thread {t.thread_id if t.thread_id is not None else '?'} "
            f"{t.user or '?'}@{t.host or '?'}, trx {t.trx_id or '?'}, active {t.active_s if t.active_s is not None else '?'} s"
            + (f", {t.row_locks} row lock(s)" if t.row_locks is not None else ""))


def story(d: Deadlock) -> list[str]:
    """Who held what and who waited for what, transaction by transaction, then the victim."""
    out = [f"deadlock at {d.time or '?'} (server time): {len(d.transactions)} transactions"
           + (" — the section is truncated: the server did not print the whole cycle" if d.truncated else "")]
    if d.doubtful:
        out.append(f"in doubt: {DOUBTFUL}; the transactions below are read from the server's lines, "
                   "what a statement holds is shown as its text")
    owner = {t.trx_id: t for t in d.transactions}
    for t in d.transactions:
        victim = "  ✗ ROLLED BACK" if t.number == d.victim else ""
        out.append(f"{_who(t)}{victim}")
        stmt = " ".join((t.statement or "?").split())
        out.append(f"    runs   {stmt[:STATEMENT_WIDTH]}{'…' if len(stmt) > STATEMENT_WIDTH else ''}")
        for lk in t.holds:
            out.append(f"    holds  {_lock_text(lk)}")
        for lk in t.waits_for:
            blockers = [o for o in d.transactions if o is not t and any(_covers(h, lk) for h in o.holds)]
            by = f"  ← held by ({', '.join(str(o.number) for o in blockers)})" if blockers else ""
            out.append(f"    waits  {_lock_text(lk)}{by}")
    if d.victim is not None:
        v = owner.get(next((t.trx_id for t in d.transactions if t.number == d.victim), None))
        out.append(f"the server rolled back ({d.victim})" + (f", thread {v.thread_id}" if v else "")
                   + ": its client got error 1213 and must retry")
    return [visible(x) for x in out]


def _covers(held: DeadlockLock, wanted: DeadlockLock) -> bool:
    """A held lock in the way of a wanted one: same table and index, the same page and record
    (heap number) where the section prints them."""
    if held.table != wanted.table or held.index != wanted.index:
        return False
    if held.page is not None and wanted.page is not None and (held.space, held.page) != (wanted.space, wanted.page):
        return False
    heaps_held = {r.heap_no for r in held.records}
    heaps_wanted = {r.heap_no for r in wanted.records}
    return not heaps_held or not heaps_wanted or bool(heaps_held & heaps_wanted)


def list_lines(seen: list[tuple[float, Deadlock, bool]], width: int = 160) -> list[str]:
    """Newest first: 'HH:MM:SS  summary' (the first one, seen at the start, marked as before)."""
    out = []
    for at, d, prior in reversed(seen):
        when = "before" if prior else clock(at)
        out.append(visible(f"{when:>8}  {summary(d)}")[:width])
    return out


def pattern_line(i: int, p: PatternSummary) -> str:
    """'2. 3× 10:01:40–10:48:20 UTC (server time …): summary' (raw: callers make it visible)."""
    span = clock(p.first) if p.count == 1 else f"{clock(p.first)}–{clock(p.last)}"
    return (f"{i}. {p.count}× {span} UTC (server time {p.first_time or '?'}"
            + (f" – {p.last_time}" if p.count > 1 else "") + f"): {p.summary}")


def report_block(s: DeadlocksSummary, block: Callable[..., Any]) -> Any:
    """The report's DEADLOCKS block: the counts, then each pattern with its count, times and fixes."""
    b = block("Deadlocks (grouped by pattern: tables, indexes, lock modes, statement shapes)", key="deadlocks")
    b.lines.append(s.counts)
    if s.before:
        b.lines.append(f"already shown at the start (happened before the window): {s.before}")
    for i, p in enumerate(s.patterns, 1):
        b.lines.append(pattern_line(i, p))
        for part in p.signature.split(" || "):
            b.lines.append(f"     {part}")
        b.lines += [f"     fix: {f}" for f in p.fixes]
    return b




def snapshot_footer(book: DeadlockBook) -> str:
    """After a text snapshot of several frames: the deadlocks they showed, by pattern ("" when the
    frames captured none)."""
    if not book.captured:
        return ""
    s = summarise(book)
    lines = [f"DEADLOCKS over these frames, by pattern: {s.counts}"]
    for i, p in enumerate(s.patterns, 1):
        span = clock(p.first) if p.count == 1 else f"{clock(p.first)}–{clock(p.last)}"
        lines.append(f"  {i}. {p.count}× {span} UTC: {p.summary}")
        lines += [f"     fix: {f}" for f in p.fixes]
    return "".join(visible(x) + "\n" for x in lines)
