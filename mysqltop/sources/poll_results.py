"""One poll's result sets → the fields of a RawSample. Every value is hostile server data: a
result of an unexpected shape costs that sample (the source says so in its error), never the
session."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from mysqltop.core import active_sessions
from mysqltop.core.sample import HostSample, RawSample, ServerIdentity
from mysqltop.sources import lock_reads as locks_src
from mysqltop.sources.digest_reads import K_DIGESTS
from mysqltop.sources.digest_reads import OFF as DIGESTS_OFF
from mysqltop.sources.poll_statements import (
    K_GSTATUS, K_LOCK_WAITS, K_METRICS, K_MUTEX, K_PS, K_STATUS, K_TIME, Poll, StatementPlan,
)
from mysqltop.sources.read_caps import cut_words

K_SESSIONS, K_SESSION_STATES, K_TRANSACTIONS = locks_src.K_SESSIONS, locks_src.K_SESSION_STATES, locks_src.K_TRANSACTIONS


def ps_rows(rows: Any) -> list[list[Any]]:
    """[EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT] rows."""
    return [[str(r[0]), *(int(x) for x in r[1:])] for r in rows]


def status_text(v: Any) -> str:
    """The status text as a string: a server that sends it as bytes (a binary result character
    set) is decoded with each undecodable byte as U+FFFD, so statement bytes in another character
    set stay one character each and move no line of the text (core/read_views.py)."""
    return v.decode("utf-8", "replace") if isinstance(v, (bytes, bytearray)) else str(v)


def clock_row(rows: Any) -> dict[str, Any]:
    """RawSample fields from the server_time statement: (clock, [own session's Rows_read])."""
    row: Any = rows[0] if rows else ()
    num = [float(x) if isinstance(x, (int, float, Decimal)) or (isinstance(x, str) and x.isdigit()) else None
           for x in row]
    return {"server_time": num[0] if num else None,
            "own_rows_read": int(num[1]) if len(num) > 1 and num[1] is not None else None}


def lock_rows(plan: StatementPlan, values: dict[str, Any]) -> dict[str, Any]:
    """The sessions, session_states, transactions and lock_waits fields from the rows read."""
    out: dict[str, Any] = {}
    reads = plan.locks
    threads: locks_src.Threads | None = None
    busy: list[list[Any]] | None = None       # every busy session read: the active session rows
    if K_SESSIONS in values:
        if reads.ps:
            rows = busy = locks_src.plain_rows(values[K_SESSIONS])
            out[K_SESSIONS] = locks_src.SESSIONS_PS.pick(rows)
            if K_SESSION_STATES in values:
                out[K_SESSION_STATES] = locks_src.session_groups(rows, values[K_SESSION_STATES])
        else:
            rows, threads = locks_src.processlist_rows(values[K_SESSIONS], plan.own_thread_id)
            busy = locks_src.busy(rows)
            out[K_SESSIONS] = locks_src.SESSIONS_PS.pick(busy)
            out[K_SESSION_STATES] = locks_src.session_groups(rows)
    for key, sel in ((K_TRANSACTIONS, reads.transactions), (K_LOCK_WAITS, reads.lock_waits)):
        if key in values:
            out[key] = sel.pick(locks_src.fill_threads(sel, locks_src.plain_rows(values[key]), threads))
    for key, opt in ((locks_src.K_LOCK_SESSIONS, reads.lock_sessions), (locks_src.K_METADATA_LOCKS, reads.metadata_locks)):
        if key in values and opt is not None:
            out[key] = opt.pick(locks_src.plain_rows(values[key]))
    if locks_src.K_ROW_LOCKS in values and reads.row_locks is not None:
        sel = reads.row_locks
        out[locks_src.K_ROW_LOCKS] = sel.pick(locks_src.fill_threads(sel, locks_src.plain_rows(values[locks_src.K_ROW_LOCKS]), threads))
    if not reads.ps and threads is not None and K_TRANSACTIONS in values and K_SESSIONS in values:
        # no performance_schema: every session is in SHOW PROCESSLIST's rows already
        rows, _ = locks_src.processlist_rows(values[K_SESSIONS], plan.own_thread_id)
        out[locks_src.K_LOCK_SESSIONS] = locks_src.lock_sessions_from(rows, out.get(K_TRANSACTIONS))
    if busy is not None:
        # the wait objects come from this poll's lock rows; performance_schema prints no port
        out["active_sessions"] = active_sessions.rows(
            busy, out.get(K_LOCK_WAITS), out.get(locks_src.K_ROW_LOCKS), out.get(locks_src.K_METADATA_LOCKS),
            with_port=not reads.ps)
    return out


def sample(plan: StatementPlan, wall: float, mono: float, server: ServerIdentity, host: HostSample | None,
           p: Poll, variables: dict[str, str]) -> RawSample:
    """The RawSample of a poll that answered."""
    v = plan.values(p)
    status_rows = v.get(K_STATUS)
    innodb_status = status_text(status_rows[0][2]) if status_rows else None
    mutex = v.get(K_MUTEX)
    if mutex is not None:
        plan.saw_mutex(mutex)
    if K_METRICS in v:
        plan.saw_metrics(v[K_METRICS])
    latches: dict[str, Any] = {}
    latch = plan.latches.rows(v[K_PS]) if K_PS in v else None
    if latch is not None:
        took = p.timings_ms.get(K_PS)
        latches = plan.latch_summary(ps_rows(latch), took / 1000.0 if took is not None else None, wall)
    elif plan.ps_slowed or K_PS in v:
        latches = plan.latch_summary(None, None, wall)       # not due, or cut short: its last reads, carried

    digests = None
    if K_DIGESTS in p.values:
        digests = plan.digests.take(locks_src.plain_rows(p.values[K_DIGESTS]), clock_row(v.get(K_TIME))["server_time"])
        if plan.digests.off:
            plan.disabled[K_DIGESTS] = DIGESTS_OFF[len("skipped: "):]     # said in every sample from now
    paced_status = plan.status_summary(p)
    plan.saw_plugins(p)         # before the errors are taken: a missing plugin is not one
    errors = {**{k: f"skipped: {e}" for k, e in plan.disabled.items() if k not in p.errors}, **p.errors}
    c = plan.caps
    if c.performance_schema_on and not c.performance_schema:
        # ON but not readable by us: the fix is a GRANT, not a server setting
        errors.setdefault(K_PS, f"skipped: performance_schema is ON but not readable by {c.grantee}: "
                                f"run GRANT SELECT ON performance_schema.* TO {c.grantee};")
    capped = plan.book.report(plan.mono)
    for key, cut in (capped or {}).items():
        errors.setdefault(key, cut_words(key, cut))     # skipped while it backs off: not sent
    locks = lock_rows(plan, v)
    if p.none_waiting:
        locks[K_LOCK_WAITS] = []              # not asked: no transaction waits for a row lock
        if plan.locks.row_locks is not None:
            locks[locks_src.K_ROW_LOCKS] = []
    return RawSample(
        wall=wall, mono=mono, server=server, host=host, innodb_status=innodb_status,
        innodb_mutex=[[str(c) for c in r] for r in mutex] if mutex else None,
        ps_waits=latches.get("ps_waits"), ps_waits_before=latches.get("ps_waits_before"),
        read_at={**{k: [c[1], c[2]] for k, c in plan.carried.items()}, **latches.get("read_at", {}),
                 **paced_status.get("read_at", {})} or None,
        global_status_before=paced_status.get("global_status_before"),
        global_status={str(k): str(val) for k, val in v[K_GSTATUS]} if K_GSTATUS in v else {},
        innodb_metrics={str(k): int(c) for k, c in v[K_METRICS]} if K_METRICS in v else None,
        variables=variables, timings_ms=p.timings_ms, errors=errors,
        capped=capped, digests=digests, **clock_row(v.get(K_TIME)),
        **locks)
