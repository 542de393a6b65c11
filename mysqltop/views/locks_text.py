"""Lock waits, transactions and busy sessions as plain lines: `snapshot` text and the TUI pane.

One concept over three layers: sources/lock_reads.py reads the rows, core/blocking.py builds the tree,
this module draws it as text (views/tui/widgets/locks_pane.py puts the lines in the pane).

Every user name, host and statement is the server's (written by other people): it goes through
core.safe_text.visible and is cut; callers put these lines in Text objects, never in markup.
"""

from __future__ import annotations

from mysqltop.core import units
from mysqltop.core.frame import Frame
from mysqltop.core.blocking import Blocker, LockWaiter, Session, SessionState, Transaction, hot_row
from mysqltop.core.incident_report import Report
from mysqltop.core.lock_report import StallEpisode
from mysqltop.core.safe_text import visible
from mysqltop.core.stalls import NOT_RECORDED as HOLDER_NOT_RECORDED
from mysqltop.core.stalls import STALL_MIN_WAIT_S, NOT_RECORDED_WORDS, Certainty, Stall, StallRoot, chain_words

TOP_BLOCKERS = 5
TOP_WAITERS = 6
TOP_TRANSACTIONS = 8
TOP_SESSIONS = 8
TOP_CANDIDATES = 6
SQL_SHOWN = 120


def _t(text: str | None, limit: int = 60) -> str:
    """Untrusted one-line text, controls made visible, cut with …."""
    if not text:
        return ""
    s = visible(" ".join(text.split()))
    return s if len(s) <= limit else s[:limit - 1] + "…"


def who(user: str | None, host: str | None) -> str:
    if not user and not host:
        return "?"
    h = (host or "").rsplit(":", 1)[0]
    return f"{_t(user, 24) or '?'}@{_t(h, 32) or '?'}"


def secs(s: float | None) -> str:
    """The server counts these in whole seconds: 0 means under one."""
    if s is None:
        return units.NA
    return "<1s" if s < 1 else units.duration(s)


def worst_stall(frame: Frame) -> Stall | None:
    """The pile the first finding is about (frame.stalls lists the piles worth one first)."""
    return next((s for s in frame.stalls if s.is_stall), None)


def kill_line(frame: Frame) -> str | None:
    """The confirmed root of the biggest stall that has one (else the hottest row-lock blocker)
    as a ready-to-copy statement, or None — None too while every stall's holder is only inferred
    or held by many: no single session is offered then. mysqltop never runs it."""
    piles = [s for s in frame.stalls if s.is_stall]
    named = next((s.root.kill for s in piles if s.root is not None and s.root.kill), None)
    if named is not None or piles:
        return f"{named};" if named is not None else None
    top = next((b for b in (*frame.blocking, *frame.metadata_blocking) if b.kill and settled(b)), None)
    return f"{top.kill};" if top is not None else None


def hottest_blocker(frame: Frame) -> str | None:
    """"KILL 42;", or the hottest blocker without a KILL yet and why; None without a blocker."""
    line = kill_line(frame)
    if line is not None:
        return line
    b = next((b for b in frame.blocking if b.thread_id is not None), None)
    if b is None:
        return None
    if b.kill and not settled(b):
        return (f"thread {b.thread_id}, no KILL yet: it has held the lock a moment only (transaction "
                f"{secs(b.trx_age_s)}, waits {secs(b.longest_wait_s)}): it may be one of a queue passing a hot row along")
    return f"thread {b.thread_id}, no single KILL (it waits itself, or shares the row)"


def settled(b: Blocker) -> bool:
    """No pile yet: a blocker is offered when it is not one of a queue passing a hot row along —
    its transaction open a pile's threshold and longer than its waiters have waited, or (its age
    unknown) its waiters waiting that long."""
    wait = b.longest_wait_s or 0.0
    if b.trx_age_s is not None:
        return b.trx_age_s >= max(STALL_MIN_WAIT_S, wait)
    return wait >= STALL_MIN_WAIT_S


def candidate_ids(st: Stall, top: int = TOP_CANDIDATES) -> str:
    ids = ", ".join(str(c.thread_id) for c in st.candidates[:top])
    return ids + (f" and {len(st.candidates) - top} more" if len(st.candidates) > top else "")


def release_first(frame: Frame) -> str | None:
    """What the headlines say to release first: the KILL line, or — the holder inferred — the
    candidates and no KILL, or that the holder is not visible."""
    line = kill_line(frame)
    if line is not None:
        return line
    worst = worst_stall(frame)
    if worst is None:
        return None
    if worst.certainty is Certainty.INFERRED:
        return f"holder inferred, no single KILL — candidates (oldest first): threads {candidate_ids(worst)}"
    if worst.certainty is Certainty.CYCLE:
        return (f"a wait cycle (threads {', '.join(str(t) for t in worst.cycle[:8])}), no single root: "
                "ending any one of them ends it")
    if worst.passing:
        return "a hot row passed from holder to holder: no single KILL"
    return "holder not visible"


def stall_brief(frame: Frame | None) -> str:
    """A few words for a row of many servers: the worst stall's KILL line, or that its holder is
    only inferred ("" without a stall)."""
    worst = worst_stall(frame) if frame is not None else None
    if worst is None:
        return ""
    if worst.root is not None and worst.root.kill:
        return worst.root.kill
    if worst.certainty is Certainty.CYCLE:
        return "wait cycle"
    if worst.passing:
        return "hot row, no single holder"
    return "holder inferred" if worst.certainty is Certainty.INFERRED else "holder not visible"


def candidate_line(r: StallRoot) -> str:
    idle = f"idle {secs(r.time_s)}" if (r.command or "") == "Sleep" else f"{_t(r.command, 16)} {secs(r.time_s)}"
    if r.state:
        idle += f" ({_t(r.state, 32)})"
    line = f"thread {r.thread_id if r.thread_id is not None else '?'} {who(r.user, r.host)} {idle}"
    if r.trx_age_s is not None:
        line += f", transaction open {secs(r.trx_age_s)}"
    if r.lock_mode:
        line += f", holds {_t(r.lock_mode, 32)} on some object"
    if r.statement:
        line += f"; last: {_t(r.statement, SQL_SHOWN)}"
    return line


def blocker_line(b: Blocker) -> str:
    idle = ""
    if (b.command or "") == "Sleep":
        idle = " (idle in transaction)" if b.trx_age_s is not None else " (idle)"
    trx = f"trx {secs(b.trx_age_s)} " if b.trx_age_s is not None or b.trx_id else ""
    if b.thread_id is None and b.candidates:     # the server does not say which session
        shown = ", ".join(str(t) for t in b.candidates[:6]) + (" …" if len(b.candidates) > 6 else "")
        thread = f"one of threads {shown}"
    else:
        thread = f"thread {b.thread_id if b.thread_id is not None else '?'} {who(b.user, b.host)}"
    head = (f"{thread} "
            f"{trx}{_t(b.command, 16) or _t(b.trx_state, 16)}{idle}: "
            f"blocks {b.blocked} (longest wait {secs(b.longest_wait_s)}")
    head += f", chain {b.depth} deep)" if b.depth > 1 else ")"
    if (row := hot_row(b)) is not None:
        head += f" on {_t(row, 100)}" + (f", held by {b.hot_holders} at once (no single KILL)" if b.hot_holders > 1 else "")
    if b.statement:
        head += f"  {_t(b.statement, SQL_SHOWN)}"
    return head


def waiter_line(w: LockWaiter) -> str:
    if not w.trx_id and w.lock_mode:          # a metadata-lock tree: lock_mode holds the wait state
        lock = _t(w.lock_mode, 40)
    else:
        lock = " ".join(x for x in (_t(w.lock_mode, 24), _t(w.lock_index, 40), _t(w.lock_table, 60)) if x)
    line = (f"thread {w.thread_id if w.thread_id is not None else '?'} {who(w.user, w.host)} "
            f"waits {secs(w.waiting_s)}" + (f" for {lock}" if lock else ""))
    if w.statement:
        line += f": {_t(w.statement, SQL_SHOWN)}"
    return line


def blocking_lines(frame: Frame, top: int = TOP_BLOCKERS, waiters: int = TOP_WAITERS,
                   trees: list[Blocker] | None = None) -> list[str]:
    """The blocking trees, indented: root blocker, then who waits behind it (`trees`: these
    instead of the row-lock trees, e.g. frame.metadata_blocking)."""
    out: list[str] = []
    roots = frame.blocking if trees is None else trees
    for b in roots[:top]:
        out.append(blocker_line(b))
        shown = 0

        def walk(nodes: list[LockWaiter], depth: int) -> None:
            nonlocal shown
            for n in nodes:
                if shown >= waiters:
                    return
                out.append("  " * depth + "└ " + waiter_line(n))
                shown += 1
                walk(n.waiters, depth + 1)
        walk(b.waiters, 1)
        if b.blocked > shown:
            out.append(f"    … {b.blocked - shown} more waiting")
    if len(roots) > top:
        out.append(f"… {len(roots) - top} more blockers")
    return out


def stall_lines(frame: Frame, candidates: int = TOP_CANDIDATES) -> list[str]:
    """One line per pile of sessions on a lock: what they wait on, for how long, the root and
    where it comes from; an inferred holder: the candidates, oldest first, and what to enable
    to know; the holder not visible: what to enable."""
    out: list[str] = []
    for st in frame.stalls:
        n = f"{st.waiting} waiting on {_t(st.on, 80)} for up to {secs(st.longest_wait_s)}"
        chain = f"  chain: {_t(chain_words(st), 400)}" if len(st.chain) > 1 or (st.chain and st.unresolved) else None
        if st.certainty is Certainty.CYCLE:
            out.append(f"{st.waiting} in a wait cycle across lock kinds (threads "
                       f"{', '.join(str(t) for t in st.cycle[:8])}): {_t(st.action, 300)}")
            continue
        if st.root is not None:
            r = st.root
            idle = f"idle {secs(r.time_s)}" if (r.command or "") == "Sleep" else \
                f"{_t(r.command, 16)} {secs(r.time_s)}"
            out.append(f"{n}: root thread {r.thread_id if r.thread_id is not None else '?'} "
                       f"{who(r.user, r.host)} {idle} ({_t(st.source, 24)}) — {_t(st.action, 240)}")
            if chain:
                out.append(chain)
        elif st.certainty is Certainty.INFERRED:
            out.append(f"{n}: holder inferred (the server lists no holder), no single KILL; "
                       f"candidates, oldest first:")
            if chain:
                out.append(chain)
            out += ["  " + candidate_line(c) for c in st.candidates[:candidates]]
            if len(st.candidates) > candidates:
                out.append(f"  … {len(st.candidates) - candidates} more")
            ids = ", ".join(str(i) for i in st.waiter_ids[:TOP_WAITERS])
            if ids:
                out.append(f"  waiting: threads {ids}" + (" …" if len(st.waiter_ids) > TOP_WAITERS else ""))
            if st.hint:
                out.append(f"  to know for sure: {_t(st.hint, 300)}")
        elif st.source == HOLDER_NOT_RECORDED:
            out.append(f"{n}: {NOT_RECORDED_WORDS} — {_t(st.action, 100)}")
        else:
            out.append(f"{n}: {_t(st.action, 100)}" + (f"; holder not visible: {_t(st.hint, 300)}" if st.hint else ""))
    return out


def blocked_count(frame: Frame) -> float | None:
    """Sessions waiting on any lock (row, metadata, global, table, user), else the row-lock figures."""
    lk = frame.locks
    if lk.waiting_sessions is not None:
        return lk.waiting_sessions
    return lk.blocked_sessions if lk.blocked_sessions is not None else lk.row_lock_current_waits


def transaction_line(t: Transaction) -> str:
    parts = [f"{secs(t.age_s):>6}", f"thread {t.thread_id if t.thread_id is not None else '?'}",
             who(t.user, t.host) if (t.user or t.host) else "", _t(t.state, 16)]
    if t.command == "Sleep":
        parts.append("idle")
    if t.read_view:
        parts.append("read view")
    parts.append(f"rows locked {units.num(t.rows_locked)} modified {units.num(t.rows_modified)}")
    if t.waiting_s is not None:
        parts.append(f"waiting {secs(t.waiting_s)}")
    line = "  ".join(p for p in parts if p)
    if t.statement:
        line += f"  {_t(t.statement, SQL_SHOWN)}"
    return line


def states_summary(groups: list[SessionState], top: int = 6) -> str:
    def label(g: SessionState) -> str:
        return _t(g.label, 32) or "(no state)"
    busy = [g for g in groups if g.command != "Sleep"]
    idle = sum(g.sessions for g in groups if g.command == "Sleep")
    parts = [f"{g.sessions} in {label(g)}" for g in busy[:top]]
    if len(busy) > top:
        parts.append(f"{sum(g.sessions for g in busy[top:])} other")
    if idle:
        parts.append(f"{idle} idle")
    return ", ".join(parts) or "no sessions"


def session_line(s: Session) -> str:
    line = (f"{secs(s.time_s):>6}  thread {s.thread_id if s.thread_id is not None else '?'}  "
            f"{who(s.user, s.host)}  {_t(s.command, 16)}  {_t(s.state, 32) or '-'}")
    if s.statement:
        line += f"  {_t(s.statement, SQL_SHOWN)}"
    return line


NOT_RECORDED = "not recorded here (an older recording, or an import without them): unknown, not none"


def not_read(frame: Frame, key: str) -> str | None:
    if key in frame.unrecorded:
        return NOT_RECORDED
    err = frame.errors.get(key)
    return _t(err.removeprefix("skipped: "), 300) if err else None


def text_lines(frame: Frame, top: int = TOP_TRANSACTIONS) -> list[str]:
    """`snapshot` text: LOCK WAITS / TRANSACTIONS / SESSIONS groups (nothing for a server that was
    not asked, e.g. an old recording)."""
    out: list[str] = []
    lk = frame.locks
    if frame.stalls:
        first = release_first(frame)
        out.append(f"STALLS      {len(frame.stalls)} pile(s) of sessions on a lock"
                   + (f"; release first: {first}" if first else ""))
        out += ["  " + line for line in stall_lines(frame)]
        if frame.metadata_blocking:
            out += ["  " + line for line in blocking_lines(frame, trees=frame.metadata_blocking)]
    if lk.blocked_sessions is not None or not_read(frame, "lock_waits"):
        if frame.blocking:
            out.append(f"LOCK WAITS  {lk.blocked_sessions} session(s) blocked; hottest blocker: {hottest_blocker(frame)}")
            out += ["  " + line for line in blocking_lines(frame)]
        elif (why := not_read(frame, "lock_waits")) is not None:
            out.append(f"LOCK WAITS  not read: {why}")
        elif blocked_count(frame):
            out.append("LOCK WAITS  no row-lock waits (the waits above are on server-level locks)")
        else:
            out.append("LOCK WAITS  none")
    if frame.transactions or not_read(frame, "transactions"):
        if (why := not_read(frame, "transactions")) is not None:
            out.append(f"TRANSACTIONS not read: {why}")
        if frame.transactions:
            out.append(f"TRANSACTIONS longest first ({len(frame.transactions)} listed)")
            out += ["  " + transaction_line(t) for t in frame.transactions[:top]]
    if frame.session_states or frame.sessions or not_read(frame, "sessions"):
        out.append(f"SESSIONS    {states_summary(frame.session_states)}")
        if (why := not_read(frame, "sessions")) is not None:
            out.append(f"  not read: {why}")
        out += ["  " + session_line(s) for s in frame.sessions[:top]]
    return out


# ---- report -----------------------------------------------------------------------------------------
def _when(epoch: float) -> str:
    import time as _time
    return _time.strftime("%H:%M:%S", _time.gmtime(epoch))


def report_blocks(r: Report, block: type) -> list:
    """`report`: the longest blocking chains and the longest transactions of the window, as blocks
    of report_text (its Block class is passed in: it owns the layout)."""
    out = []
    if r.blocking_chains:
        b = block("Longest blocking chains (most sessions blocked at once)", key="chains")
        for c in r.blocking_chains:
            span = _when(c.first) if c.first == c.last else f"{_when(c.first)}–{_when(c.last)}"
            holder = (f"hot row {_t(c.hot_row, 100)}, held in turn by {c.holders} sessions" if c.holders > 1 and c.hot_row
                      else f"thread {c.thread_id if c.thread_id is not None else '?'} {who(c.user, c.host)}")
            line = (f"{holder}: blocked "
                    f"{c.max_blocked} at once (chain {c.max_depth} deep), longest wait {secs(c.longest_wait_s)}, "
                    f"{span} UTC in {c.frames} sample(s)")
            if c.command == "Sleep":
                line += ", idle in transaction"
            elif c.hot_row and c.holders <= 1:
                line += f", on {_t(c.hot_row, 100)}"
            b.lines.append(line)
            if c.statement:
                b.lines.append(f"  {_t(c.statement, SQL_SHOWN)}")
            if c.kill:
                b.lines.append(f"  {c.kill};   (if it is still running; mysqltop never kills)")
        out.append(b)
    if r.long_transactions:
        b = block("Longest transactions", key="transactions")
        for t in r.long_transactions:
            parts = [f"{secs(t.max_age_s)} at {_when(t.at)} UTC",
                     f"thread {t.thread_id if t.thread_id is not None else '?'}",
                     who(t.user, t.host) if (t.user or t.host) else "",
                     _t(t.state, 16), "read view" if t.read_view else "",
                     f"rows locked {units.num(t.rows_locked)} modified {units.num(t.rows_modified)}"]
            b.lines.append("  ".join(p for p in parts if p))
            if t.statement:
                b.lines.append(f"  {_t(t.statement, SQL_SHOWN)}")
        out.append(b)
    return out


def stall_block(r: Report, block: type):  # type: ignore[no-untyped-def]
    """`report`: every stall of the window, biggest first: from–to, what they waited on, the root
    and what to do, engine commits/s before, during and after."""
    b = block("Stalls (sessions piled up on a lock)", key="stalls")
    for ep in r.stalls:
        b.lines += episode_lines(ep)
    return b


def episode_lines(ep: StallEpisode) -> list[str]:
    """One stall of a report: its first line, then indented lines (the root or the candidates,
    its statement, throughput before → during → after)."""
    end = f"still stalled at {_when(ep.end)}" if ep.open else _when(ep.end)
    out = [f"{_when(ep.start)}–{end} UTC: {ep.max_waiting} waiting on {_t(ep.on, 80)}, longest "
           f"{secs(ep.longest_wait_s)} ({ep.kind})"]
    if ep.root_thread_id is not None:
        out.append(f"  root thread {ep.root_thread_id} {who(ep.root_user, ep.root_host)} "
                   f"{_t(ep.root_command, 16)} ({_t(ep.source, 24)}): {_t(ep.action, 240)}")
        if ep.root_statement:
            out.append(f"  its statement: {_t(ep.root_statement, SQL_SHOWN)}")
    elif ep.source == HOLDER_NOT_RECORDED:
        out.append(f"  {NOT_RECORDED_WORDS}: {_t(ep.action, 160)}")
    elif ep.candidate_ids:
        out.append("  holder inferred, not listed by the server: no single KILL; candidates, oldest first: "
                   f"threads {', '.join(str(i) for i in ep.candidate_ids[:TOP_CANDIDATES])}"
                   + (" …" if len(ep.candidate_ids) > TOP_CANDIDATES else ""))
    else:
        out.append(f"  holder not visible: {_t(ep.action, 160)}")
    figs = [f"{k} {units.num(v)}" for k, v in (("before", ep.tps_before), ("during", ep.tps_during),
                                               ("after", ep.tps_after)) if v is not None]
    if figs:
        out.append(f"  {ep.tps_label} " + " → ".join(figs))
    return out
