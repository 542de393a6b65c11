"""CPU and queues: run queue saturation, spin waits burning CPU, purge falling behind, row-lock queues."""

from __future__ import annotations

from typing import Iterator

from mysqltop.core.frame import Advice, Frame
import mysqltop.core.rules.signals as signals   # the submodule, not the package (__init__ imports this module)
from mysqltop.core.rules.base import SUSTAINED, Vars, Window, advice, clock, num, pct
from mysqltop.core.rules.base import cpu_busy_pct as _busy
from mysqltop.core.rules.server import is_mariadb_at_least

# Run queue counts running + runnable threads: at the core count the CPUs are fully used; at
# 1.5× a runnable thread waits for a CPU a third of the time. 3× is a host in trouble.
RUN_QUEUE_PER_CPU = 1.5
RUN_QUEUE_CRITICAL_PER_CPU = 3.0
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


def _cpus(f: Frame) -> float | None:
    return f.host.cpus if f.host and f.host.cpus else None


def cpu_saturation(w: Window, v: Vars) -> Iterator[Advice]:
    def per_cpu(f: Frame) -> float | None:
        cpus, rq = _cpus(f), f.host.run_queue if f.host else None
        if cpus is None or rq is None:
            return None
        tr = f.throughput.threads_running
        # Threads_running must also exceed the cores: a busy host from other processes is not
        # something an InnoDB knob fixes.
        return rq / cpus if tr is None or tr > cpus else None

    held = w.held(per_cpu, lambda x: x >= RUN_QUEUE_PER_CPU)
    if held < SUSTAINED:
        return
    cpus = w.peak(_cpus) or 0
    target = int(cpus * 2)
    tc = v.int("innodb_thread_concurrency")
    if (v.text("thread_handling") or "").lower() == "pool-of-threads":
        knob = "the thread pool is already on (thread_handling = pool-of-threads): the load itself exceeds the CPUs"
    elif tc is None and is_mariadb_at_least(w.last.server, (10, 6)):
        knob = ("MariaDB 10.6+ has no innodb_thread_concurrency: use thread_handling = pool-of-threads "
                "(thread pool) to cap how many statements run at once")
    elif tc is None:
        knob = "cap concurrency with innodb_thread_concurrency (≈ 2× cores) or a thread pool"
    elif tc == 0 or tc > target:
        knob = (f"innodb_thread_concurrency = {tc}{' (unlimited)' if tc == 0 else ''} — try about 2× cores "
                f"(e.g. {target}; dynamic) so InnoDB queues threads instead of the scheduler thrashing them")
    else:
        knob = f"innodb_thread_concurrency = {tc} already limits InnoDB; the load itself is too high"
    msg = (f"CPU saturated: more runnable threads than {num(cpus)} CPUs. {knob}; otherwise cap client "
           "concurrency (connection pool) or add CPUs")
    sev = "critical" if (w.avg(per_cpu) or 0) >= RUN_QUEUE_CRITICAL_PER_CPU else "warning"
    busy = w.avg(_busy)
    evidence = (f"run queue avg {num(w.avg(lambda f: f.host.run_queue if f.host else None))}, peak "
                f"{num(w.peak(lambda f: f.host.run_queue if f.host else None))} on {num(cpus)} CPUs, "
                f"Threads_running avg {num(w.avg(lambda f: f.throughput.threads_running))}"
                f"{f', CPU busy avg {num(busy)} %' if busy is not None else ''}; "
                f"≥ {RUN_QUEUE_PER_CPU}× cores in {pct(held)} of samples {w.label}")
    yield advice("cpu_saturation", sev, msg, evidence)


def _rounds_per_wait(f: Frame) -> float | None:
    s = f.semaphores
    if not s.spin_waits_per_s or s.spin_rounds_per_s is None or s.spin_waits_per_s < SPIN_WAITS_MIN_PER_S:
        return None
    busy = _busy(f)
    return s.spin_rounds_per_s / s.spin_waits_per_s if busy is not None and busy >= CPU_BUSY_PCT else None


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


def purge_lag(w: Window, v: Vars) -> Iterator[Advice]:
    # Purge lag and its periodic stalls play out over minutes: judge every frame given.
    w = w.whole()
    points = [(f.time, f.flush.history_list_length) for f in w.frames if f.flush.history_list_length is not None]
    if len(points) < 2:
        return
    rate = signals.slope(points)
    first, last = points[0][1], points[-1][1]
    peak = max(p for _, p in points)
    growth = (rate or 0) * (points[-1][0] - points[0][0])
    # Still high now: a list that peaked and was purged away again is purge keeping up.
    still_high = last >= HLL_MIN and last >= HLL_STILL_HIGH * peak
    if rate is None or rate <= 0 or not still_high or growth < HLL_GROWTH_SHARE * max(first, 1):
        return
    drops = signals.drops(w.frames)
    if len(drops) < DROPS_MIN and peak < HLL_CRITICAL:
        return
    n = v.int("innodb_purge_threads")
    msg = (f"Purge falls behind: {v.show('innodb_purge_threads')} — raise it (e.g. {min(32, max(8, (n or 4) * 2))}; "
           "a restart on MySQL) and look for long-running transactions or old read views, which hold purge "
           "back whatever the thread count; innodb_max_purge_lag can throttle writers meanwhile")
    when = ", ".join(clock(d.start) for d in drops[:5]) + (" …" if len(drops) > 5 else "")
    drop_text = (f"; {len(drops)} TPS drops below {pct(signals.DROP_RATIO)} of the TPS just before "
                 f"({when})") if drops else ""
    evidence = (f"history list {num(first)} → {num(last)} (peak {num(peak)}, trend +{num(rate)}/s) "
                f"{w.label}{drop_text}")
    yield advice("purge_lag", "critical" if peak >= HLL_CRITICAL else "warning", msg, evidence)



# A second of row-lock wait per second is, on average, one session always blocked on a row.
ROW_LOCK_WAIT_MS_PER_S = 1000.0
ROW_LOCK_CRITICAL_MS_PER_S = 5000.0


def row_lock_waits(w: Window, v: Vars) -> Iterator[Advice]:
    waited = lambda f: f.locks.row_lock_wait_ms_per_s  # noqa: E731
    held = w.held(waited, lambda x: x >= ROW_LOCK_WAIT_MS_PER_S)
    if held < SUSTAINED:
        return
    avg = w.avg(waited) or 0.0
    msg = ("Sessions queue on row locks (a hot row, not a latch): no server variable removes this — keep "
           "the transactions that update the hot rows short, commit sooner, or spread a hot counter over "
           f"several rows; {v.show('innodb_lock_wait_timeout')} s caps each wait (an error instead of a stall)")
    deadlocks = w.avg(lambda f: f.locks.deadlocks_per_s)
    evidence = (f"{num(avg)} ms/s waited on row locks (≈ {num(avg / 1000)} sessions always blocked), "
                f"{num(w.avg(lambda f: f.locks.row_lock_waits_per_s))} lock waits/s, up to "
                f"{num(w.peak(lambda f: f.locks.row_lock_current_waits))} waiting at once"
                + (f", {num(deadlocks)} deadlocks/s" if deadlocks else "")
                + f", in {pct(held)} of samples {w.label}")
    yield advice("row_lock_waits", "critical" if avg >= ROW_LOCK_CRITICAL_MS_PER_S else "warning", msg, evidence)


RULES = (cpu_saturation, spin_wait, purge_lag, row_lock_waits)
