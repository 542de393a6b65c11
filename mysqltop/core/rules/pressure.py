"""Waits on a buffer, cache or queue of fixed size, each with the setting that sizes it.

Each rule judges the last RECENT_S (60 s) of frames by time, not by frame count: the rate is the
window's own (Σ rate × Δt / Σ Δt), the window must span at least MIN_SPAN_S seconds, and every
third of it must show the pressure (a steady condition, not one burst), so the same incident
polled at 0.25 s, 1 s or 10 s gives the same finding. The signals and their knobs are listed in
docs/signals.md.
"""

from __future__ import annotations

from typing import Callable, Iterator

from mysqltop.core.frame import Advice, Frame
from mysqltop.core.rules.rule_kit import (RECENT_S, Vars, Window, advice, mean, num, pct, running_sessions,
                                      size_text, span)
from mysqltop.core.server_version import is_mariadb

Rate = Callable[[Frame], "float | None"]

# A pressure finding needs this many seconds of frames: a 20-second condition, at any interval.
MIN_SPAN_S = 20.0
# Every third of the window must carry at least this share of the window's mean rate.
THIRDS = 3
THIRD_SHARE = 1.0 / 3.0

# Sessions waited for room in the redo log buffer at least once a second.
LOG_WAITS_MIN_PER_S = 1.0
# No free page at least once a second: a session's read waited for a flush.
WAIT_FREE_MIN_PER_S = 1.0
# Transactions spilling their binary log events to a temporary file.
BINLOG_SPILLS_MIN_PER_S = 0.5
BINLOG_SPILL_SHARE = 0.1
# Every transaction spilling is no burst to sit out: judged on the last FULL_SPILL_SPAN_S of frames
# (at least FULL_SPILL_MIN_SPAN_S of them), found in seconds and named before the commit path it
# slows (each commit writes a temporary file first). A cache below a quarter of the transaction
# size is "far below": doubling it would not do.
FULL_SPILL_SHARE = 0.9
FULL_SPILL_SPAN_S = 10.0
FULL_SPILL_MIN_SPAN_S = 5.0
FAR_BELOW = 4.0
# New threads for connections: one a second, and a tenth of connections or more missing the cache.
THREADS_CREATED_MIN_PER_S = 1.0
THREAD_CACHE_MISS_SHARE = 0.1
# Implicit temporary tables on disk: one a second and a quarter of all of them.
TMP_DISK_MIN_PER_S = 1.0
TMP_DISK_SHARE = 0.25
# Connections refused because max_connections was reached: every refusal is a client's error, so a
# steady few a minute is already a finding, and one the application sees.
REFUSED_MIN_PER_S = 0.1
# Refused while at least this share of the connected sessions run: a pile-up, not idle pools.
PILE_UP_RUNNING_SHARE = 0.5


def mean_rate(frames: list[Frame], get: Rate) -> tuple[float | None, float]:
    """(Σ rate × Δt / Σ Δt over the frames that have the rate, Σ Δt)."""
    total = seconds = 0.0
    for f in frames:
        x = get(f)
        if x is not None and f.elapsed:
            total += x * f.elapsed
            seconds += f.elapsed
    return (total / seconds if seconds else None), seconds


def steady(w: Window, get: Rate, min_rate: float, min_span_s: float = MIN_SPAN_S) -> float | None:
    """The window's mean rate when it is at least `min_rate` over at least `min_span_s` seconds and
    every third of the window carries its share; None otherwise."""
    avg, seconds = mean_rate(w.frames, get)
    if avg is None or avg < min_rate or seconds < min_span_s:
        return None
    start = w.frames[0].time - (w.frames[0].elapsed or 0.0)
    span = w.frames[-1].time - start
    for i in range(THIRDS):
        lo, hi = start + span * i / THIRDS, start + span * (i + 1) / THIRDS
        part, _ = mean_rate([f for f in w.frames if lo < f.time <= hi + 1e-6], get)
        if part is None or part < avg * THIRD_SHARE:
            return None
    return avg


def steady_share(w: Window, get: Rate, min_rate: float, of: Rate, min_share: float,
                 min_span_s: float = MIN_SPAN_S) -> tuple[float, float | None] | None:
    """(the steady rate, the mean rate of `of`) when `steady` holds and the rate is at least
    `min_share` of `of` (a window without `of` passes on the rate alone); None otherwise."""
    avg = steady(w, get, min_rate, min_span_s)
    if avg is None:
        return None
    base = mean_rate(w.frames, of)[0]
    if base and avg / base < min_share:
        return None
    return avg, base


@span(RECENT_S)
def log_waits(w: Window, v: Vars) -> Iterator[Advice]:
    """Innodb_log_waits: a write found the redo log buffer full and waited for it to be written
    (every flavor). The buffer holds a transaction's redo until commit writes it: large
    transactions or bursts need a larger one."""
    avg = steady(w, lambda f: f.pressure.log_waits_per_s, LOG_WAITS_MIN_PER_S)
    if avg is None:
        return
    size = v.int("innodb_log_buffer_size")
    to = size_text(max(4 * size, 64 * 2**20)) if size else "64 MiB"
    when = "needs a restart" if is_mariadb(w.last.server) else "dynamic on MySQL 8.0+"
    msg = (f"Writes wait for room in the redo log buffer: {v.show('innodb_log_buffer_size')} — raise it "
           f"(e.g. {to}; {when}); large transactions fill it before commit writes it out")
    requests = mean_rate(w.frames, lambda f: f.pressure.log_write_requests_per_s)[0]
    evidence = (f"{num(avg)} log waits/s (Innodb_log_waits)"
                + (f" for {num(requests)} log write requests/s" if requests is not None else "")
                + f", steady in every third {w.label}")
    yield advice("log_waits", "warning", msg, evidence)


@span(RECENT_S)
def buffer_pool_wait_free(w: Window, v: Vars) -> Iterator[Advice]:
    """Innodb_buffer_pool_wait_free: a session needed a free page and waited for the page cleaner
    to flush one (every flavor). The pool is too small for the working set, or LRU flushing lags."""
    avg = steady(w, lambda f: f.pressure.buffer_pool_wait_free_per_s, WAIT_FREE_MIN_PER_S)
    if avg is None:
        return
    lru = "" if is_mariadb(w.last.server) else f", or raise {v.show('innodb_lru_scan_depth')} (dynamic) so " \
        "the page cleaners free more pages per round"
    msg = (f"Sessions wait for a free page in the buffer pool: {v.show('innodb_buffer_pool_size')} — raise it "
           f"(dynamic, in chunks){lru}; {v.show('innodb_io_capacity')} bounds how fast dirty pages are "
           "written back")
    reads = mean_rate(w.frames, lambda f: f.pressure.buffer_pool_disk_reads_per_s)[0]
    free = w.last.flush.free_pct
    evidence = (f"{num(avg)} waits for a free page/s (Innodb_buffer_pool_wait_free)"
                + (f", {num(reads)} pages read from disk/s" if reads is not None else "")
                + (f", {num(free)} % of the pool free now" if free is not None else "")
                + f", steady in every third {w.label}")
    yield advice("buffer_pool_wait_free", "warning", msg, evidence)


def _spills(f: Frame) -> float | None:
    return f.pressure.binlog_cache_disk_use_per_s


def _cache_uses(f: Frame) -> float | None:
    return f.pressure.binlog_cache_use_per_s


@span(RECENT_S)
def binlog_cache_disk(w: Window, v: Vars) -> Iterator[Advice]:
    """Binlog_cache_disk_use: a transaction's binary log events outgrew binlog_cache_size and went
    to a temporary file (every flavor with log_bin on): disk writes at commit. Every transaction
    spilling (Binlog_cache_disk_use ≈ Binlog_cache_use) is critical and judged on seconds."""
    size = v.int("binlog_cache_size")
    recent = w.over(max(FULL_SPILL_SPAN_S, 3 * (w.last.elapsed or 0.0)))    # three polls at least
    full = steady_share(recent, _spills, BINLOG_SPILLS_MIN_PER_S, _cache_uses, FULL_SPILL_SHARE,
                        FULL_SPILL_MIN_SPAN_S)
    used = full[1] if full is not None else None
    if full is not None and used:
        avg = full[0]
        written = mean_rate(recent.frames, lambda f: f.pressure.binlog_bytes_per_s)[0]
        trx = written / used if written else None
        far = trx is not None and size is not None and trx >= FAR_BELOW * size
        to = size_text(max(8 * (size or 0), 2**20, 2 * int(trx or 0)))
        below = f"far below the ~{size_text(trx)} a transaction writes" if far and trx else "below the transactions"
        msg = (f"Every transaction spills its binary log to disk: {v.show('binlog_cache_size')} is {below} — raise "
               f"it (e.g. {to}; dynamic, per session: new connections get it); each commit first writes a "
               "temporary file")
        evidence = (f"{num(avg)} spills to disk/s (Binlog_cache_disk_use) of {num(used)} transactions/s through "
                    f"the cache ({pct(avg / used)})"
                    + (f", {size_text(written)}/s written to the binary log (Binlog_bytes_written)" if written else "")
                    + f", steady in every third {recent.label}")
        yield advice("binlog_cache_disk", "critical", msg, evidence)
        return
    found = steady_share(w, _spills, BINLOG_SPILLS_MIN_PER_S, _cache_uses, BINLOG_SPILL_SHARE)
    if found is None:
        return
    avg, used = found
    to = size_text(max(8 * size, 2**20)) if size else "1 MiB"
    msg = (f"Transactions spill their binary log to disk: {v.show('binlog_cache_size')} — raise it "
           f"(e.g. {to}; dynamic, per session: new connections get it); each spill writes a temporary file")
    share = f" ({pct(avg / used)} of {num(used)} transactions/s through the cache)" if used else ""
    evidence = (f"{num(avg)} spills to disk/s (Binlog_cache_disk_use){share}, steady in every third {w.label}")
    yield advice("binlog_cache_disk", "warning", msg, evidence)


@span(RECENT_S)
def threads_created(w: Window, v: Vars) -> Iterator[Advice]:
    """Threads_created: a new connection found no cached thread and the server made one (every
    flavor; with the thread pool, pool threads). Connection churn with an empty thread cache."""
    if (v.text("thread_handling") or "").lower() == "pool-of-threads":
        return
    found = steady_share(w, lambda f: f.pressure.threads_created_per_s, THREADS_CREATED_MIN_PER_S,
                         lambda f: f.pressure.connections_per_s, THREAD_CACHE_MISS_SHARE)
    if found is None:
        return
    avg, conns = found
    size = v.int("thread_cache_size")
    peak = w.peak(lambda f: f.pressure.threads_connected)
    to = max(int(peak or 0), (size or 0) * 2, 16)
    msg = (f"Connections make a new thread each: {v.show('thread_cache_size')} — raise it (e.g. {to}; dynamic); "
           "a connection pool in the application avoids the churn altogether")
    share = f" for {num(conns)} connections/s ({pct(avg / conns)} missed the cache)" if conns else ""
    evidence = (f"{num(avg)} threads created/s (Threads_created){share}, up to {num(peak)} connected, "
                f"steady in every third {w.label}")
    yield advice("thread_cache", "warning", msg, evidence)


@span(RECENT_S)
def tmp_disk_tables(w: Window, v: Vars) -> Iterator[Advice]:
    """Created_tmp_disk_tables: an implicit temporary table (GROUP BY, DISTINCT, UNION, derived
    tables) outgrew min(tmp_table_size, max_heap_table_size) and went to disk (every flavor)."""
    found = steady_share(w, lambda f: f.pressure.tmp_disk_tables_per_s, TMP_DISK_MIN_PER_S,
                         lambda f: f.pressure.tmp_tables_per_s, TMP_DISK_SHARE)
    if found is None:
        return
    avg, tmp = found
    limit = min((x for x in (v.int("tmp_table_size"), v.int("max_heap_table_size")) if x), default=None)
    to = size_text(max(4 * limit, 64 * 2**20)) if limit else "64 MiB"
    msg = (f"Temporary tables go to disk: the smaller of {v.show('tmp_table_size')} and "
           f"{v.show('max_heap_table_size')} caps one in memory — raise both (e.g. {to}; dynamic, new sessions "
           "get it); a query that still spills needs an index for its GROUP BY / DISTINCT")
    share = f" ({pct(avg / tmp)} of {num(tmp)} temporary tables/s)" if tmp else ""
    evidence = f"{num(avg)} temporary tables on disk/s (Created_tmp_disk_tables){share}, steady in every third {w.label}"
    yield advice("tmp_disk_tables", "warning", msg, evidence)


def _monitor_clause(admin: object) -> str:
    """What a full server means for mysqltop's own connection (its account's privileges)."""
    if admin is True:
        return ("; mysqltop's account has SUPER / CONNECTION ADMIN: it gets back in through the one connection "
                "the server keeps past the limit, unless another administrator holds that one")
    if admin is False:
        return ("; mysqltop's own connection stays, but its account lacks SUPER / CONNECTION ADMIN: if that "
                "connection drops, mysqltop is refused too")
    return ""


@span(RECENT_S)
def max_connections(w: Window, v: Vars) -> Iterator[Advice]:
    """Connection_errors_max_connections, or Aborted_connects at the limit (pressure_signals.
    connections_refused): a client's connect was refused ("Too many connections") because
    max_connections sessions were connected (every flavor). Either sessions pile up (behind
    a lock, a slow statement) and hold their connections, or pools together open more than allowed."""
    avg = steady(w, lambda f: f.pressure.connections_refused_per_s, REFUSED_MIN_PER_S)
    if avg is None:
        return
    limit = v.int("max_connections") or w.last.pressure.max_connections
    connected = w.peak(lambda f: f.pressure.threads_connected)
    running = mean(w.values(running_sessions))
    piled = bool(connected and running is not None and running >= PILE_UP_RUNNING_SHARE * connected)
    raise_it = f"raise it ({f'e.g. {max(2 * int(limit), int(limit) + 50)}; ' if limit else ''}dynamic: " \
        "SET GLOBAL max_connections)"
    if piled:
        how = ("most sessions are running — a pile-up behind a lock or a slow statement (a stall finding names "
               f"the holder): end that first; to {raise_it} only lengthens the pile")
    else:
        how = ("most sessions are idle — connection pools together open more than it allows: size them to fit "
               f"under it, or {raise_it}; each connection costs its session buffers")
    msg = (f"The server refuses connections: {v.show('max_connections')} is reached and {how}"
           + _monitor_clause(w.last.server.monitor_connection_admin))
    used = w.last.pressure.max_used_connections
    aborted = mean_rate(w.frames, lambda f: f.pressure.aborted_connects_per_s)[0]
    counters = mean_rate(w.frames, lambda f: f.pressure.connection_errors_max_connections_per_s)[0]
    by_counter = counters is not None and counters >= avg * 0.5
    how_counted = ("Connection_errors_max_connections" if by_counter else
                   "Aborted_connects at the limit: MariaDB counts a refusal after the login only there")
    evidence = (f"{num(avg)} refused connections/s ({how_counted})"
                + (f", up to {num(connected)}" + (f" of {num(limit)}" if limit else "") + " connected (Threads_connected)"
                   if connected is not None else "")
                + (f", {num(running)} running on average" if running is not None else "")
                + (f", Max_used_connections {num(used)}" if used is not None else "")
                + (f", {num(aborted)} aborted connects/s" if aborted is not None and by_counter else "")
                + f", steady in every third {w.label}")
    yield advice("max_connections", "critical", msg, evidence)


RULES = (log_waits, buffer_pool_wait_free, binlog_cache_disk, threads_created, tmp_disk_tables, max_connections)
