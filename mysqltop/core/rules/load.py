"""CPU and queues: run queue saturation, spin waits burning CPU, purge falling behind, row-lock queues."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

from mysqltop.core.frame import Advice, Frame
from mysqltop.core.blocking import Transaction, hot_row
from mysqltop.core.load_slices import who_carries
from mysqltop.core.safe_text import visible
import mysqltop.core.rules.trends as trends   # the submodule, not the package (__init__ imports this module)
from mysqltop.core.rules.rule_kit import (
    RECENT_S, SUSTAINED, TREND_S, Vars, Window, advice, clock, num, pct, running_sessions, span,
)
from mysqltop.core.rules.rule_kit import cpu_busy_pct as _busy
from mysqltop.core.rules.io_flush import COMMIT
from mysqltop.core.server_version import is_mariadb

# The host's CPUs are saturated at this busy share; mysqld is the cause when it uses at least
# half of them; sessions compete for CPUs (a thread pool helps) from 2 running per core.
CPU_SATURATED_PCT = 90.0
MYSQLD_CPU_SHARE = 0.5
# Another process is named when it used at least half a core and more than mysqld.
OTHER_PROCESS_MIN_CORES = 0.5
THREAD_POOL_RUNNING_PER_CPU = 2.0
# Spinning only matters when it is frequent and the CPUs have nothing spare.
SPIN_WAITS_MIN_PER_S = 1000.0
# innodb_sync_spin_loops defaults to 30: ≥ 20 rounds per spin wait means most waiters spin
# close to the limit before sleeping anyway.
SPIN_ROUNDS_PER_WAIT = 20.0
CPU_BUSY_PCT = 80.0
# Under 10k undo logs the history list is routine churn; 1M is a purge that cannot keep up at all.
HLL_MIN = 10_000
HLL_CRITICAL = 1_000_000
# "Growing": the trend over the window adds at least a fifth to where it started.
HLL_GROWTH_SHARE = 0.2
# Now at half its peak or more: not already purged away.
HLL_STILL_HIGH = 0.5
# "Periodic" TPS drops: at least two separate drops in the window.
DROPS_MIN = 2
# A read view this old (and open for at least half the span judged, up to a minute) is what
# pins purge; younger ones come and go with normal transactions.
VIEW_MIN_AGE_S = 10.0
VIEW_SPAN_AGE_S = 60.0
HLL_CRITICAL_RATE = 10_000.0     # undo logs/s: a million within two minutes
MIN_POINTS = 5


def _cpus(f: Frame) -> float | None:
    return f.host.cpus if f.host and f.host.cpus else None


def _mysqld_cores(f: Frame) -> float | None:
    """CPUs' worth of time mysqld used (1.0 = one core busy); None when it runs elsewhere."""
    return f.host.mysqld_cpu_pct / 100.0 if f.host and f.host.mysqld_cpu_pct is not None else None


def _other_cores(f: Frame) -> float | None:
    """CPUs' worth of time the busiest process other than mysqld used (psutil / /proc)."""
    return f.host.top_process_cpu_pct / 100.0 if f.host and f.host.top_process_cpu_pct is not None else None


def _waiting_threads(f: Frame) -> float:
    """Thread-equivalents asleep on row locks and on the commit path (not on a CPU)."""
    lock = (f.locks.row_lock_wait_ms_per_s or 0.0) / 1000.0
    commit = sum(h.wait_ms_per_s or 0.0 for h in f.hotspots
                  if h.source == "performance_schema" and COMMIT.matches(h)) / 1000.0
    return lock + commit


@span(RECENT_S)
def cpu_saturation(w: Window, v: Vars) -> Iterator[Advice]:
    """The host's CPUs full, attributed to mysqld's own CPU time (psutil, local servers only).
    Facts: host CPU times (/proc/stat), mysqld's CPU seconds, Threads_running, row-lock time
    (Innodb_row_lock_time) and commit-latch time (P_S) — every flavor; remote servers have no
    mysqld CPU here, so no verdict. A thread pool is named only when sessions really compete for
    the CPUs: never when their time goes to lock or commit waits (the scheduler is not the cause)."""
    held = w.held(_busy, lambda x: x >= CPU_SATURATED_PCT)
    if held < SUSTAINED:
        return
    cpus = w.peak(_cpus)
    mysqld = w.avg(_mysqld_cores)
    if not cpus or mysqld is None or mysqld < MYSQLD_CPU_SHARE * cpus:
        # not mysqld's doing: name the process that is, when it can be seen here
        yield from _other_process(w, cpus, mysqld, held)
        return
    running = w.avg(running_sessions) or 0.0
    waiting = w.avg(_waiting_threads) or 0.0
    if waiting >= mysqld:
        return      # sessions mostly sleep on locks/commits: those findings say what to do
    if (v.text("thread_handling") or "").lower() == "pool-of-threads":
        first = "the thread pool is already on (thread_handling = pool-of-threads): the work itself exceeds the CPUs"
    elif running >= THREAD_POOL_RUNNING_PER_CPU * cpus:
        if is_mariadb(w.last.server):
            first = ("cap how many statements run at once: thread_handling = pool-of-threads (MariaDB thread "
                     "pool; needs a restart)")
        else:
            tc = v.int("innodb_thread_concurrency")
            first = (f"cap how many run at once: innodb_thread_concurrency = {tc} → about 2× cores "
                     f"(e.g. {int(cpus * 2)}; dynamic), or a thread pool (Percona/Enterprise)")
    else:
        first = ("reduce the work per statement: find the statements that cost most "
                 "(performance_schema.events_statements_summary_by_digest by SUM_TIMER_WAIT and "
                 "SUM_ROWS_EXAMINED) — indexes, fewer rows read — or add CPUs")
    msg = f"CPU saturated by mysqld ({num(mysqld)} of {num(cpus)} cores): {first}"
    sev = ("critical" if mysqld >= 0.9 * cpus and held >= 0.9 and running >= THREAD_POOL_RUNNING_PER_CPU * cpus
           else "warning")
    evidence = (f"mysqld used {num(mysqld)} of {num(cpus)} cores ({pct(mysqld / cpus)}), host CPU busy avg "
                f"{num(w.avg(_busy))} %; {num(running)} sessions running, ≈ {num(min(mysqld, running))} on a CPU, "
                f"{num(waiting)} waiting on row locks / commits; ≥ {num(CPU_SATURATED_PCT)} % busy in "
                f"{pct(held)} of samples {w.label}")
    who = who_carries(w.frames, "cpu")
    if who is not None:
        evidence += f"; {visible(who)}"
    yield advice("cpu_saturation", sev, msg, evidence)


def _other_process(w: Window, cpus: float | None, mysqld: float | None, held: float) -> Iterator[Advice]:
    """The CPUs are full and mysqld is not the cause: name the busiest other process (the one most
    often on top over the window) — no server setting helps, so the finding must not blame mysqld."""
    other = w.avg(_other_cores)
    if not cpus or other is None or other < OTHER_PROCESS_MIN_CORES or other <= (mysqld or 0.0):
        return
    tops: dict[tuple[str, int | None], int] = {}
    for f in w.frames:
        if f.host is not None and f.host.top_process is not None:
            key = (f.host.top_process, f.host.top_process_pid)
            tops[key] = tops.get(key, 0) + 1
    (name, pid), _ = max(tops.items(), key=lambda kv: kv[1])
    who = f"{visible(name)} (pid {pid})" if pid is not None else visible(name)
    by_mysqld = (f"the monitored server {num(mysqld)}" if mysqld is not None
                 else "the monitored server not measured")
    if is_database_server(name):
        what = f"another database server on this host, {who} — not the monitored server"
        remedy = (f"that other server's own load is the cause: look at what runs on {who}, move it or this server "
                  "to another host, or cap its CPU (cgroup, CPUQuota); the monitored server needs no change")
    else:
        what = f"another process on this host, {who} — not the monitored server"
        remedy = (f"no server setting helps: stop, renice or move that process ({visible(name)}, pid {pid}), "
                  "or give the host more CPUs")
    msg = (f"CPU saturated by {what}: it used {num(other)} of {num(cpus)} cores ({by_mysqld}) — {remedy}; "
           "the monitored server's waits meanwhile are a symptom")
    evidence = (f"busiest other process {who}{' (a database server)' if is_database_server(name) else ''} avg "
                f"{num(other)} cores, {by_mysqld} cores, host CPU busy avg "
                f"{num(w.avg(_busy))} %, run queue avg {num(w.avg(lambda f: f.host.run_queue if f.host else None))}; "
                f"≥ {num(CPU_SATURATED_PCT)} % busy in {pct(held)} of samples {w.label}")
    yield advice("cpu_other_process", "warning", msg, evidence)


# Process names of MySQL-family servers (the OS's name: a 15-character comm or the binary's name).
DATABASE_SERVERS = frozenset({"mysqld", "mariadbd", "mysqld-debug", "mariadbd-debug", "ndbd", "ndbmtd"})


def is_database_server(process: str) -> bool:
    """A MySQL-family server by its process name ("/usr/sbin/mariadbd" or "mariadbd")."""
    return process.rsplit("/", 1)[-1].strip().lower() in DATABASE_SERVERS


def _rounds_per_wait(f: Frame) -> float | None:
    s = f.semaphores
    if not s.spin_waits_per_s or s.spin_rounds_per_s is None or s.spin_waits_per_s < SPIN_WAITS_MIN_PER_S:
        return None
    busy = _busy(f)
    return s.spin_rounds_per_s / s.spin_waits_per_s if busy is not None and busy >= CPU_BUSY_PCT else None


@span(RECENT_S)
def spin_wait(w: Window, v: Vars) -> Iterator[Advice]:
    held = w.held(_rounds_per_wait, lambda x: x >= SPIN_ROUNDS_PER_WAIT)
    if held < SUSTAINED:
        return
    msg = (f"Spin waits burn CPU: {v.show('innodb_spin_wait_delay')} — raise it (e.g. 12–24; dynamic) so "
           f"each spin round pauses longer, or lower {v.show('innodb_sync_spin_loops')} (dynamic) so waiters "
           "sleep sooner; 8.0.16+ also has innodb_spin_wait_pause_multiplier")
    evidence = (f"{num(w.avg(_rounds_per_wait))} spin rounds per spin wait, "
                f"{num(w.avg(lambda f: f.semaphores.spin_waits_per_s))} spin waits/s, CPU busy avg "
                f"{num(w.avg(_busy))} %, in {pct(held)} of samples {w.label}")
    yield advice("spin_wait", "warning", msg, evidence)


# A transaction's start as two frames compute it (frame time − age) differs by the age's rounding
# and the poll's own spread.
SAME_START_S = 2.0


def _same_trx(a: Transaction, b: Transaction, at_a: float, at_b: float) -> bool:
    """`a` seen at `at_a` and `b` seen at `at_b` are one transaction: the server's rows give both
    the same session and id (MariaDB shows 0 for every read-only one) and the same start."""
    if not (a.confirmed and b.confirmed and a.thread_id is not None and a.thread_id == b.thread_id
            and a.trx_id == b.trx_id and a.age_s is not None and b.age_s is not None):
        return False
    return abs((at_a - a.age_s) - (at_b - b.age_s)) <= SAME_START_S


def _view_holder(w: Window) -> "Transaction | None":
    """The oldest transaction that may hold purge back: the oldest whose read view is shown or
    unknown (core/read_views.py: other sessions' statement text can hide a view, never make one).
    So a transaction named with a read view is the oldest that can hold one. Where the last
    frame cannot tell, an earlier frame of the window that showed this very transaction's view
    on the server's own lines still holds: under REPEATABLE READ InnoDB keeps a transaction's
    view until it ends."""
    last = w.last
    trx = [t for t in last.transactions if t.age_s is not None and t.read_view is not False]
    holder = max(trx, key=lambda t: t.age_s or 0.0, default=None)
    if holder is None or holder.read_view is not None or holder.isolation != "REPEATABLE READ":
        return holder
    for f in reversed(w.frames):
        if any(t.read_view and _same_trx(t, holder, f.time, last.time) for t in f.transactions):
            return replace(holder, read_view=True)
    return holder


def _trx_named(t: Transaction) -> str:
    """A transaction as the evidence names it: its id, or for a read-only one (its id 0 in
    INNODB_TRX: the server gives it none) its thread and that it has none."""
    if t.trx_id and t.trx_id.strip() not in ("0", "?"):
        return t.trx_id
    return f"of thread {t.thread_id if t.thread_id is not None else '?'}, read-only with no transaction id"


def _shown_view(last: Frame, holder: Transaction) -> Transaction | None:
    """Where the oldest transaction's read view is unknown: the oldest younger one whose view the
    server's own lines show (what holds purge back for sure, beside the one that may)."""
    if holder.read_view is not None:
        return None
    shown = [t for t in last.transactions if t.read_view and t.confirmed and t is not holder
             and t.thread_id and t.thread_id != holder.thread_id and (t.age_s or 0) >= VIEW_MIN_AGE_S]
    return max(shown, key=lambda t: t.age_s or 0.0, default=None)


def _kill_line(holder: Transaction) -> str:
    """The action: KILL only a session the server's rows name whose read view the server's own
    lines show; otherwise how to confirm it first."""
    if holder.confirmed and holder.read_view and holder.thread_id:
        return f"KILL {holder.thread_id} or commit it"
    if not holder.confirmed:
        return ("find its session (INNODB_TRX was not read: the thread is the status text's), then KILL it "
                "or commit it")
    return ("check first that it holds a read view (its entry in SHOW ENGINE INNODB STATUS sits beside other "
            "sessions' statement text, so mysqltop cannot read it), then end or commit it")


@span(TREND_S)
def purge_lag(w: Window, v: Vars) -> Iterator[Advice]:
    """History list growing. Facts: history list length (TRANSACTIONS, every flavor; MariaDB
    10.6+ also Innodb_history_list_length), the oldest transaction and whether it holds a read
    view (TRANSACTIONS "Trx read view" lines — 5.x/8.x/Percona/MariaDB; INNODB_TRX adds user,
    host and thread where readable). An old read view pins purge whatever the thread count, so
    it is named first (KILL or commit it); purge threads only when no old view exists."""
    points = [(f.time, f.flush.history_list_length) for f in w.frames if f.flush.history_list_length is not None]
    if len(points) < MIN_POINTS:
        return
    rate = trends.slope(points)
    first, last = points[0][1], points[-1][1]
    peak = max(p for _, p in points)
    growth = (rate or 0) * (points[-1][0] - points[0][0])
    still_high = last >= HLL_MIN and last >= HLL_STILL_HIGH * peak
    if rate is None or rate <= 0 or not still_high or growth < HLL_GROWTH_SHARE * max(first, 1):
        return
    span = points[-1][0] - points[0][0]
    holder = _view_holder(w)
    old_view = holder is not None and (holder.age_s or 0) >= max(VIEW_MIN_AGE_S, min(span, VIEW_SPAN_AGE_S) * 0.5)
    drops = trends.drops(w.frames)
    if not old_view and len(drops) < DROPS_MIN and peak < HLL_CRITICAL:
        return
    trend = (f"history list {num(first)} → {num(last)} (peak {num(peak)}, trend +{num(rate)}/s) {w.label}")
    if old_view and holder is not None:
        who = f"{holder.user or '?'}@{holder.host or '?'}"
        view = ", read view" if holder.read_view else ""
        msg = (f"Purge is held back by an old transaction: thread {holder.thread_id or '?'}, {visible(who)}, open "
               f"{num(holder.age_s)} s{view} — {_kill_line(holder)}; undo it pins cannot be purged while it is "
               "open, and more purge threads cannot help until it ends")
        shown = _shown_view(w.last, holder)
        if shown is not None:
            # the oldest one's entry could not be read; a younger one's view the server's lines show
            # is named too, never in its place
            msg += (f"; thread {shown.thread_id} {visible(f'{shown.user or chr(63)}@{shown.host or chr(63)}')}, open "
                    f"{num(shown.age_s)} s, holds a read view the server's lines show — {_kill_line(shown)}")
        stmt = f", statement: {visible(holder.statement[:80])}" if holder.statement else ""
        evidence = (f"{trend}; oldest transaction {_trx_named(holder)} ({holder.state or 'ACTIVE'}, "
                    f"{num(holder.age_s)} s{view}{stmt})")
        sev = "critical" if peak >= HLL_CRITICAL or rate >= HLL_CRITICAL_RATE else "warning"
        yield advice("purge_lag", sev, msg, evidence)
        return
    n = v.int("innodb_purge_threads")
    restart = ("dynamic on MariaDB 10.5.2+" if is_mariadb(w.last.server) else "needs a restart")
    msg = (f"Purge falls behind with no old read view holding it: {v.show('innodb_purge_threads')} — raise it "
           f"(e.g. {min(32, max(8, (n or 4) * 2))}; {restart}); innodb_max_purge_lag can throttle writers meanwhile")
    when = ", ".join(clock(d.start) for d in drops[:5]) + (" …" if len(drops) > 5 else "")
    drop_text = (f"; {len(drops)} TPS drops below {pct(trends.DROP_RATIO)} of the TPS just before "
                 f"({when})") if drops else ""
    oldest = f"; oldest transaction open {num(holder.age_s)} s" if holder is not None else ""
    yield advice("purge_lag", "critical" if peak >= HLL_CRITICAL else "warning", msg, trend + drop_text + oldest)


# Early hint, below HLL_MIN: a transaction open this long (with a read view shown or unknown)
# while the history list rose steadily over at least this span, by at least HINT_MIN_GROWTH.
HINT_VIEW_AGE_S = 60.0
HINT_MIN_SPAN_S = 60.0
HINT_MIN_GROWTH = 1_000


def _rising_steadily(points: list[tuple[float, float]]) -> bool:
    """Each half of the span ends higher than it began: a climb, not one jump and a plateau."""
    mid = points[len(points) // 2][1]
    return points[0][1] < mid < points[-1][1]


@span(TREND_S)
def purge_early(w: Window, v: Vars) -> Iterator[Advice]:
    """The history list rising behind an old read view before it reaches purge_lag's HLL_MIN:
    the same holder named the same way, as an early hint (info). Facts: history list length and
    the oldest transaction's read view (TRANSACTIONS; INNODB_TRX), every flavor."""
    points = [(f.time, f.flush.history_list_length) for f in w.frames if f.flush.history_list_length is not None]
    if len(points) < MIN_POINTS:
        return
    first, last = points[0][1], points[-1][1]
    span = points[-1][0] - points[0][0]
    rate = trends.slope(points)
    if (last >= HLL_MIN or span < HINT_MIN_SPAN_S or rate is None or rate <= 0
            or last - first < HINT_MIN_GROWTH or not _rising_steadily(points)):
        return
    holder = _view_holder(w)
    if holder is None or holder.read_view is False or (holder.age_s or 0) < HINT_VIEW_AGE_S:
        return
    who = f"{holder.user or '?'}@{holder.host or '?'}"
    view = ", read view" if holder.read_view else ""
    msg = (f"Early hint — purge is starting to fall behind an old transaction: thread {holder.thread_id or '?'}, "
           f"{visible(who)}, open {num(holder.age_s)} s{view} — {_kill_line(holder)} before the history grows "
           f"further (purge_lag is reported from {num(HLL_MIN)})")
    stmt = f", statement: {visible(holder.statement[:80])}" if holder.statement else ""
    evidence = (f"history list {num(first)} → {num(last)} (trend +{num(rate)}/s, rising in both halves) "
                f"{w.label}; oldest transaction {_trx_named(holder)} ({holder.state or 'ACTIVE'}, {num(holder.age_s)} s"
                f"{view}{stmt})")
    yield advice("purge_early", "info", msg, evidence)


# A second of row-lock wait per second is, on average, one session always blocked on a row.
ROW_LOCK_WAIT_MS_PER_S = 1000.0
ROW_LOCK_CRITICAL_MS_PER_S = 5000.0


def hottest_row(w: Window) -> tuple[str, int, int] | None:
    """(row, most sessions waiting for it at once, samples it was waited for in): the row the
    window's sessions waited for most (sessions waiting, summed over the samples), from the
    server's lock rows (table, index, key); None where no sample lists one."""
    seen: dict[str, list[int]] = {}
    for f in w.frames:
        now: dict[str, int] = {}
        for b in f.blocking:
            if (row := hot_row(b)) is not None:
                now[row] = max(now.get(row, 0), b.blocked)
        for row, n in now.items():
            seen.setdefault(row, []).append(n)
    if not seen:
        return None
    row, counts = max(seen.items(), key=lambda kv: (sum(kv[1]), kv[0]))
    return row, max(counts), len(counts)


def _lock_wait_timeout(w: Window, v: Vars) -> str:
    """What the global innodb_lock_wait_timeout does here: a session may set its own, so waits
    longer than the global are said to be so, not that the global caps them."""
    limit = v.int("innodb_lock_wait_timeout")
    longest = w.peak(lambda f: f.locks.longest_lock_wait_s)
    if limit is None:
        return "innodb_lock_wait_timeout caps each wait (an error instead of a stall)"
    if longest is not None and longest > limit:
        return (f"the global innodb_lock_wait_timeout is {limit} s, yet waits here reached {num(longest)} s: these "
                "sessions set a longer one of their own (SET SESSION innodb_lock_wait_timeout), so no global "
                "setting cuts them short")
    return f"the global innodb_lock_wait_timeout = {limit} s caps each wait (an error instead of a stall) unless a " \
        "session sets its own"


@span(RECENT_S)
def row_lock_waits(w: Window, v: Vars) -> Iterator[Advice]:
    waited = lambda f: f.locks.row_lock_wait_ms_per_s  # noqa: E731
    held = w.held(waited, lambda x: x >= ROW_LOCK_WAIT_MS_PER_S)
    if held < SUSTAINED:
        return
    avg = w.avg(waited) or 0.0
    hot = hottest_row(w)
    where = (f"; the row most waited on: {visible(hot[0])} (up to {hot[1]} sessions waiting for it at once, in "
             f"{hot[2]} of {len(w.frames)} samples)") if hot is not None else ""
    msg = ("Sessions queue on row locks (a hot row, not a latch): no server variable removes this — keep "
           "the transactions that update the hot rows short, commit sooner, or spread a hot counter over "
           f"several rows{where}; {_lock_wait_timeout(w, v)}")
    deadlocks = w.avg(lambda f: f.locks.deadlocks_per_s)
    evidence = (f"{num(avg)} ms/s waited on row locks (≈ {num(avg / 1000)} sessions always blocked), "
                f"{num(w.avg(lambda f: f.locks.row_lock_waits_per_s))} lock waits/s, up to "
                f"{num(w.peak(lambda f: f.locks.row_lock_current_waits))} waiting at once"
                + (f", {num(deadlocks)} deadlocks/s" if deadlocks else "")
                + f", in {pct(held)} of samples {w.label}")
    who = who_carries(w.frames, "row_lock")
    if who is not None:
        evidence += f"; {visible(who)}"
    yield advice("row_lock_waits", "critical" if avg >= ROW_LOCK_CRITICAL_MS_PER_S else "warning", msg, evidence)


RULES = (cpu_saturation, spin_wait, purge_lag, purge_early, row_lock_waits)
