"""Stalls: sessions piled up on a lock are the first finding, naming the session to release —
only when the server's rows name it; an inferred holder is a list of candidates and no KILL.

A stall is the root's, not a wait's: it lasts from the first wait to the root's release. The
waits it counts are the server's own durations (a session waiting 40 s has waited 40 s), and the
same root blocking in the frames before (within STALL_GAP_S seconds of each other) carries the
stall's start back across lock-wait timeouts, where each waiter gives up and waits anew. A stall
that ends clears at once. core/stalls.py finds the piles and their roots.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

from mysqltop.core.frame import Advice, Frame, committed_or_tps
from mysqltop.core.rules.rule_kit import RECENT_S, Vars, Window, advice, clock, num, span
from mysqltop.core.safe_text import visible
from mysqltop.core.stalls import step_words
from mysqltop.core.stalls import (
    CLOCK_SLACK_S, LONE_WAIT_S, NOT_RECORDED, NOT_RECORDED_WORDS, STALL_GAP_S, STALL_MIN_WAIT_S, STALL_MIN_WAITERS,
    Certainty, Stall, StallRoot, action_for, chain_words, running_ddl,
)

SQL_SHOWN = 160
WAITERS_SHOWN = 8
CANDIDATES_SHOWN = 5

_KIND_WORDS = {
    "row_lock": "a row lock", "metadata_lock": "a metadata lock", "table_lock": "a table lock (LOCK TABLES)",
    "global_read_lock": "the global read / backup lock", "user_lock": "a user lock (GET_LOCK)",
    "innodb_queue": "InnoDB's concurrency queue", "running_ddl": "a running DDL statement's metadata lock",
}


def committed(f: Frame) -> float | None:
    """Engine commits per second (autocommit included), else COMMIT/ROLLBACK statements."""
    return committed_or_tps(f.throughput)[1]


def _t(text: str | None, limit: int = 60) -> str:
    s = visible(" ".join((text or "").split()))
    return s if len(s) <= limit else s[:limit - 1] + "…"


def root_words(r: StallRoot) -> str:
    """"thread 6 app@10.0.0.5 (Sleep: idle 79 s in a transaction open 81 s)"."""
    who = f"{_t(r.user, 24) or '?'}@{_t((r.host or '').rsplit(':', 1)[0], 32) or '?'}"
    cmd = _t(r.command, 16) or "?"
    if cmd == "Sleep":
        doing = f"Sleep: idle {num(r.time_s)} s" if r.time_s is not None else "Sleep: idle"
    else:
        doing = f"{cmd} {num(r.time_s)} s" if r.time_s is not None else cmd
        if r.state:
            doing += f", {_t(r.state, 40)}"
    if r.trx_age_s is not None:
        doing += f"{' in' if cmd == 'Sleep' else ';'} a transaction open {num(r.trx_age_s)} s"
    return f"thread {r.thread_id if r.thread_id is not None else '?'} {who} ({doing})"


def candidate_words(r: StallRoot) -> str:
    """A candidate holder, with what it last ran where the server keeps it."""
    out = root_words(r)
    if running_ddl(r.state):
        out += " — a running DDL statement"
    if r.lock_mode:
        out += f", holds {_t(r.lock_mode, 40)} on some object"
    if r.statement:
        out += f", last: {_t(r.statement, 80)}"
    return out


def cycle_words(st: Stall) -> str:
    """"5 waits on the metadata lock on `d`.`t` held by 6; 6 waits on a row lock on … held by 5"."""
    members = set(st.cycle)
    steps = [e for e in st.edges if e.waiter in members and e.holder in members]
    seen: set[int] = set()
    out = []
    for e in sorted(steps, key=lambda e: (e.waiter, e.holder)):
        if e.waiter in seen:
            continue
        seen.add(e.waiter)
        out.append(f"{e.waiter} waits on {step_words(e.kind, e.object)} held by {e.holder}")
    return "; ".join(out)


def since(w: Window, st: Stall) -> float | None:
    """When this root began blocking: the earliest first wait of the same confirmed root in the
    frames before, each within STALL_GAP_S of the next (a stall whose waiters timed out and
    retried); an inferred holder's pile is dated by its own waits."""
    key, start = st.key, st.started
    if st.root is None:
        return start            # only a holder the server names is known to be the same one
    seen = w.last.time
    for f in reversed(w.history[:-1]):
        if seen - f.time > STALL_GAP_S:
            break
        same = next((x for x in f.stalls if x.key == key), None)
        if same is None:
            continue
        seen = f.time
        if same.started is not None and (start is None or same.started < start):
            start = same.started
    return start


def _throughput(w: Window, st: Stall) -> str:
    if st.started is None:
        return ""
    label = committed_or_tps(w.last.throughput)[0]
    now = _committed(w, st.started, w.last.time + 1e-9, DURING_S)
    if now is None:
        return ""
    was = _committed(w, st.started - BEFORE_S, st.started, 0.0)
    if was is not None:
        return f"; {label} {num(was)} before → {num(now)} during"
    return f"; {label} {num(now)} during (the window starts inside the stall)"


def stall_advice(w: Window, st: Stall, began: float | None = None) -> Advice:
    wait = f"{num(st.longest_wait_s)} s"
    n = f"{st.waiting} session{'s' if st.waiting != 1 else ''}"
    # Across lock-wait timeouts the stall is the root's: its length is since the first wait, and the
    # current waits (each younger than the timeout) are only the latest retry.
    span = f"for up to {wait}"
    if began is not None and st.started is not None and began < st.started - CLOCK_SLACK_S:
        span = (f"blocked since {clock(began)} ({num(w.last.time - began)} s: the waits timed out and "
                f"began again, the current ones for up to {wait})")
    chain = f"; {_t(chain_words(st), 600)}" if len(st.chain) > 1 or st.unresolved and st.chain else ""
    unlinked = (f"; {st.unlinked} more wait on {_KIND_WORDS.get(st.kind, st.kind)} no server row joins to this chain"
                if st.unlinked else "")
    if st.certainty is Certainty.CYCLE:
        msg = (f"Stall: {n} in a wait cycle across lock kinds {span}: {_t(cycle_words(st), 600)} — {st.action}")
    elif st.root is not None and st.passing:
        msg = (f"Stall: {n} waiting on {_t(st.on, 120)} {span}; held now by {root_words(st.root)} — {st.action}")
    elif st.root is not None:
        msg = (f"Stall: {n} waiting on {_t(st.on, 120)} {span}{chain}; the root is "
               f"{root_words(st.root)} — {st.action}{unlinked}")
    elif st.certainty is Certainty.INFERRED:
        shown = "; ".join(candidate_words(c) for c in st.candidates[:CANDIDATES_SHOWN])
        more = f"; and {len(st.candidates) - CANDIDATES_SHOWN} more" if len(st.candidates) > CANDIDATES_SHOWN else ""
        msg = (f"Stall: {n} waiting on {_t(st.on, 120)} {span}{chain}; the holder is inferred, "
               f"not listed by the server — {st.action}; candidates, oldest first: {shown}{more}")
    elif st.kind == "innodb_queue":
        msg = f"Stall: {n} queued to enter InnoDB for up to {wait}; {st.action}"
    elif st.source == NOT_RECORDED:
        msg = f"Stall: {n} waiting on {_t(st.on, 120)} for {wait}; {NOT_RECORDED_WORDS} — {st.action}"
    elif st.source == "lock tables":          # the lock tables list its holders: several, none alone
        msg = f"Stall: {n} waiting on {_t(st.on, 120)} for up to {wait}; {st.action}"
    else:
        msg = f"Stall: {n} waiting on {_t(st.on, 120)} for {wait}; the holder is not visible: {st.hint or st.action}"
    ids = ", ".join(str(i) for i in st.waiter_ids[:WAITERS_SHOWN]) + (" …" if len(st.waiter_ids) > WAITERS_SHOWN else "")
    ev = [f"{n} waiting on {_KIND_WORDS.get(st.kind, st.kind)} (threads {ids or '?'}), the longest for {wait}"
          + (f" (since {clock(st.started)})" if st.started is not None else "")]
    if st.root is not None:
        if st.root.statement:
            ev.append(f"root's statement: {_t(st.root.statement, SQL_SHOWN)}")
        else:
            ev.append("root's last statement: not kept by the server (performance_schema keeps it with the "
                      "events_statements_current consumer)")
        if st.root.lock_mode:
            ev.append(f"it holds {_t(st.root.lock_mode, 40)} ({st.source})")
        elif st.source == "lock tables":
            ev.append("holder from the server's lock tables")
    if st.certainty is Certainty.INFERRED and st.hint:
        ev.append(f"to know for sure: {st.hint}")
    text = "; ".join(ev) + _throughput(w, st)
    return advice(f"stall_{st.kind}", "critical", msg, text)


# Throughput "collapsed": engine commits/s now at most this share of what it was before the first
# wait began (from at least COLLAPSE_MIN_BEFORE trx/s): then one session waiting STALL_MIN_WAIT_S
# is a stall too, not only a pile.
COLLAPSE_SHARE = 0.1
COLLAPSE_MIN_BEFORE = 10.0
BEFORE_S = 10.0               # the commit rate before the first wait: over these seconds before it
COLLAPSE_MIN_BEFORE_S = 3.0   # … measured over at least this long
COLLAPSE_NOW_S = 2.0          # the rate now: over the last seconds (the newest frame at least)
DURING_S = 3.0                # the rate the advice quotes "during": over its last seconds


def collapsed(w: Window, st: Stall) -> bool:
    if st.started is None:
        return False
    before = [f for f in w.history if st.started - BEFORE_S <= f.time < st.started and committed(f) is not None]
    if sum(f.elapsed or 0.0 for f in before) < COLLAPSE_MIN_BEFORE_S:
        return False
    was = _committed(w, st.started - BEFORE_S, st.started, 0.0)
    now = _committed(w, st.started, w.last.time + 1e-9, COLLAPSE_NOW_S)
    if was is None or now is None:
        return False
    return was >= COLLAPSE_MIN_BEFORE and now <= COLLAPSE_SHARE * was


def _committed(w: Window, since: float, until: float, last_s: float) -> float | None:
    """Mean commits/s of the frames timed in [since, until) — only those of the last `last_s`
    seconds of it when > 0 (the newest frame always) — each weighted by the seconds it spans, so
    the same seconds give the same figure at any interval. None: no such frame with a rate."""
    newest = until if last_s <= 0 else None
    rates = [(f.time, x, f.elapsed or 1.0) for f in w.history if since <= f.time < until
             and (x := committed(f)) is not None]
    if not rates:
        return None
    if last_s > 0:
        newest = rates[-1][0]
        rates = [r for r in rates if r[0] > newest - last_s] or rates[-1:]
    weight = sum(dt for _, _, dt in rates)
    return sum(x * dt for _, x, dt in rates) / weight


# Other roots of the same kind named after the biggest pile (each its own session to release).
OTHER_ROOTS_SHOWN = 3


def _others(st: Stall, piles: list[Stall]) -> str:
    """"; also thread 6 … blocks 3 — KILL 6": the other piles of its kind whose root one KILL
    releases, so a bigger pile (a shared row, say) never hides them."""
    more = [o for o in piles if o is not st and o.kind == st.kind and o.root is not None and o.root.kill]
    if not more:
        return ""
    lines = [f"{root_words(o.root)} blocks {o.waiting} on {_t(o.on, 80)} — {o.root.kill}"
             for o in more[:OTHER_ROOTS_SHOWN] if o.root is not None]
    return "; also " + "; ".join(lines) + (" …" if len(more) > OTHER_ROOTS_SHOWN else "")


def judged(st: Stall, began: float | None, now: float) -> bool:
    """A pile worth the first finding, with the root's blocking time (from `began`) as its length."""
    if st.is_stall:
        return True
    if began is None or st.started is None or began >= st.started - CLOCK_SLACK_S:
        return False            # the waits began no earlier than they say: they alone judge it
    held = now - began
    return (st.waiting >= STALL_MIN_WAITERS and held >= STALL_MIN_WAIT_S) or (st.waiting >= 1 and held >= LONE_WAIT_S)


def carried(w: Window, st: Stall) -> Stall:
    """A pile this poll could not join to a holder, whose root the server's rows named in a frame
    within STALL_GAP_S before — the same waiters, the root still there and waiting for nothing:
    still that root (one read that missed an object does not demote it)."""
    if st.root is not None or st.certainty is not Certainty.INFERRED:
        return st
    ids = set(st.waiter_ids)
    here = {c.thread_id: c for c in st.candidates if c.thread_id is not None}
    for f in reversed(w.history[:-1]):
        if w.last.time - f.time > STALL_GAP_S:
            break
        for x in f.stalls:
            r = x.root
            if r is None or not r.kill or r.thread_id not in here or not ids & set(x.waiter_ids):
                continue
            now = here[r.thread_id]
            root = replace(r, command=now.command, state=now.state, time_s=now.time_s,
                           trx_age_s=now.trx_age_s if now.trx_age_s is not None else r.trx_age_s)
            kind = x.kind if _family(x.kind) == _family(st.kind) else st.kind
            out = replace(st, kind=kind, on=x.on, root=root, certainty=Certainty.CONFIRMED, candidates=[], hint=None,
                          source=x.source, chain=x.chain, edges=x.edges)
            out.action = (action_for(kind, root) + f" (the server's rows named it {num(w.last.time - f.time)} s ago; "
                          "this poll's lock read did not list it)")
            return out
    return st


def _family(kind: str) -> str:
    return "metadata_lock" if kind in ("table_lock", "running_ddl") else kind


@span(RECENT_S)
def stalls(w: Window, v: Vars) -> Iterator[Advice]:
    seen: set[str] = set()
    now = [carried(w, st) for st in w.last.stalls]
    began = {id(st): since(w, st) for st in now}
    piles = [st for st in now if judged(st, began[id(st)], w.last.time)
             or ((st.longest_wait_s or 0.0) >= STALL_MIN_WAIT_S and collapsed(w, st))]
    for st in piles:
        if st.kind in seen:
            continue
        seen.add(st.kind)
        a = stall_advice(w, st, began[id(st)])
        yield replace(a, message=a.message + _others(st, piles))


RULES = (stalls,)
