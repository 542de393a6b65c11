"""IO, redo and flushing: pending aio, fsync-bound commits, checkpoint age, change buffer."""

from __future__ import annotations

import re
from typing import Iterator

from mysqltop.core.frame import Advice, Frame
from mysqltop.core.rules.rule_kit import (
    LOST_WARNING_SHARE, RECENT_S, SUSTAINED, LatchFamily, LatchStats, Vars, Window, advice, num, pct, pool_has_room,
    running_sessions, size_text, time_severity, span,
)
from mysqltop.core.server_version import is_mariadb

# InnoDB normally drains its aio queues within a poll; a queue at least this deep (and at least
# one request per IO thread of that kind) in most samples means requests wait for a thread or disk.
PENDING_IO_MIN = 8
# Host iowait above this is storage saturation: more IO threads will not help, less IO will.
IOWAIT_HIGH_PCT = 20.0
# Checkpoint age as % of its maximum: InnoDB starts async pre-flushing near 7/8 (87.5 %) and
# stalls writers near 15/16; warn at 75 % to act before the stalls, critical from the async point.
CHECKPOINT_WARN_PCT = 75.0
CHECKPOINT_CRITICAL_PCT = 87.5
# "Fast enough to be the cause": the redo rate would fill the whole log within 10 minutes.
REDO_FILL_S = 600.0
# A change buffer holding a tenth of the buffer pool is memory not caching data, and a merge
# backlog that shows up as read IO later (and slow shutdowns).
CHANGE_BUFFER_POOL_SHARE = 0.10
DEFAULT_PAGE_SIZE = 16384


def _iowait(f: Frame) -> float | None:
    return f.host.cpu_iowait_pct if f.host else None


def _iowait_note(w: Window) -> tuple[str, bool]:
    iow = w.avg(_iowait)
    return ("", False) if iow is None else (f"; host iowait avg {num(iow)} %", iow >= IOWAIT_HIGH_PCT)


@span(RECENT_S)
def pending_aio(w: Window, v: Vars) -> Iterator[Advice]:
    iow_text, storage_bound = _iowait_note(w)
    room = pool_has_room(w, v)
    pool = (f"; the pool is not short of memory ({pct(room / 100)} free), so a larger one would not cut them"
            if room is not None else "; a larger innodb_buffer_pool_size means fewer reads")
    storage = (" — but iowait is high, so the storage itself is saturated: more threads help only if "
               "it has spare queue depth") if storage_bound else ""
    kinds = (
        ("reads", lambda f: f.io.pending_reads, lambda f: f.io.reads_per_s, "innodb_read_io_threads",
         "raise it (e.g. {n2}; needs a restart){pool}"),
        ("writes", lambda f: f.io.pending_writes, lambda f: f.io.writes_per_s, "innodb_write_io_threads",
         "raise it (e.g. {n2}; needs a restart) and, if the storage has headroom, innodb_io_capacity "
         "(now {cap}) toward its real write IOPS (dynamic)"),
    )
    for kind, pending, rate, var, direction in kinds:
        threads = v.int(var) or 4
        floor = max(PENDING_IO_MIN, threads)
        held = w.held(pending, lambda x: x >= floor)
        if held < SUSTAINED:
            continue
        msg = (f"Async {kind} queue up: {v.show(var)} — "
               + direction.format(n2=max(8, threads * 2), cap=v.text("innodb_io_capacity") or "unknown", pool=pool)
               + storage)
        evidence = (f"pending {kind} avg {num(w.avg(pending))}, peak {num(w.peak(pending))} "
                    f"(≥ {floor} in {pct(held)} of samples), {num(w.avg(rate))} {kind}/s {w.label}{iow_text}")
        yield advice(f"pending_aio_{kind}", "critical" if storage_bound else "warning", msg, evidence)


# Latches a commit queues on: the binary log (LOCK_log is held across the binlog write and its
# fsync; LOCK_commit_ordered / LOCK_prepare_ordered / LOCK_after_binlog_sync order the group) and
# the redo log (log_sys / log_flush_order / log_write / log_flusher on MySQL 8.0+).
COMMIT = LatchFamily(
    "commit",
    r"LOCK_log\b|LOCK_commit_ordered|LOCK_prepare_ordered|LOCK_after_binlog_sync|LOCK_commit\b|"
    r"LOCK_sync\b|LOCK_binlog_end_pos|log_sys|log_flush_order|log_writer|log_flusher|log_write_notifier|"
    r"log_flush_notifier|\bredo|log0log",
)
# Below this many write transactions/s fsync cost cannot be what bounds throughput.
COMMIT_TPS_MIN = 20.0
# Commit latches a fifth of all wait, or half an fsync per commit with fsyncs queueing.
COMMIT_SHARE = 0.20
COMMIT_MIN_WAIT_MS_PER_S = 5.0


def _writes(f: Frame) -> float | None:
    """Write transactions/s, autocommit included: binary log commits where the server counts
    them (MariaDB), InnoDB's transaction ids (every flavor), Com_commit last (BEGIN…COMMIT only)."""
    t = f.throughput
    return next((x for x in (t.binlog_commits_per_s, t.write_trx_per_s, t.commits_per_s) if x is not None), None)


def _binlog_fsyncs(f: Frame, sync_binlog: int | None) -> float | None:
    """sync_binlog = 1 syncs once per group commit, N once per N groups, 0 never."""
    groups = f.throughput.binlog_group_commits_per_s
    if groups is None or sync_binlog is None:
        return None
    return groups / sync_binlog if sync_binlog > 0 else 0.0


def _redo_fsyncs(f: Frame) -> float | None:
    return f.throughput.redo_fsyncs_per_s if f.throughput.redo_fsyncs_per_s is not None else f.io.fsyncs_per_s


# The binary log's group-commit lock: one acquisition per commit group (its leader's).
GROUP_LOCK = r"LOCK_log\b"


def _commit_wait_threads(s: LatchStats, writes: float | None, groups: float | None) -> float | None:
    """Thread-equivalents commits lose waiting on the logs. The latches' own wait time counts one
    waiter per lock: in a binary log group commit the next group's leader waits on LOCK_log while
    its followers sleep on a condition (MariaDB's THD::COND_wakeup_ready, not a latch) until that
    leader has written and synced under LOCK_log. So each group's leader waits for the lock, then
    every commit of the group waits out its hold, and a hold lasts at least as long as the wait it
    causes: (groups/s + writes/s) × LOCK_log's mean wait per acquisition (one per group) is a
    floor. (MariaDB 10.11, 16 writers, 20 ms log syncs: LOCK_log 0.6 thread-equivalents, the
    followers' condition 6.2.)"""
    lost = s.lost_threads()
    group = next((m for name, m in s.members.items() if re.search(GROUP_LOCK, name)), None)
    ms, acquisitions = (group.wait_ms_per_s(), group.waits_per_s()) if group is not None else (None, None)
    if lost is None or not writes or ms is None or not acquisitions:
        return lost
    return max(lost, (writes + (groups or 0.0)) * ms / acquisitions / 1000.0)


@span(RECENT_S)
def commit_path(w: Window, v: Vars) -> Iterator[Advice]:
    """Commits bound by durable log writes. Facts: write transactions/s from Binlog_commits
    (MariaDB) or the trx id counter (all flavors; TRANSACTIONS or Innodb_max_trx_id), binlog
    group commits (MariaDB Binlog_group_commits; MySQL/Percona print none, so no ratio there),
    redo fsyncs (Innodb_os_log_fsyncs on MySQL/Percona; MariaDB 10.6+ has only Innodb_data_fsyncs),
    commit latches by name (P_S), sync_binlog / log_bin / innodb_flush_log_at_trx_commit."""
    trx_commit, sync_binlog = v.int("innodb_flush_log_at_trx_commit"), v.int("sync_binlog")
    binlog = v.on("log_bin") is True
    durable_binlog = binlog and sync_binlog == 1
    if trx_commit != 1 and not durable_binlog:
        return   # commits do not wait for an fsync: nothing to trade
    s = w.latch(COMMIT)

    def waiting(i: int, f: Frame) -> bool:
        writes = _writes(f)
        if writes is None or writes < COMMIT_TPS_MIN:
            return False
        ms = s.wait_ms[i] if i < len(s.wait_ms) else None
        if s.shares and s.shares[i] >= COMMIT_SHARE and (ms is None or ms >= COMMIT_MIN_WAIT_MS_PER_S):
            return True
        fsyncs = (_redo_fsyncs(f) or 0.0) + (_binlog_fsyncs(f, sync_binlog) or 0.0)
        return fsyncs / writes >= 0.5 and ((f.io.pending_fsyncs or 0) >= 1
                                            or (f.host is not None and (f.host.cpu_iowait_pct or 0) >= IOWAIT_HIGH_PCT))

    held = sum(1 for i, f in enumerate(w.frames) if waiting(i, f)) / len(w.frames)
    if held < SUSTAINED:
        return
    writes = w.avg(_writes) or 0.0
    groups = w.avg(lambda f: f.throughput.binlog_group_commits_per_s)
    lost, running = _commit_wait_threads(s, writes, groups), w.avg(running_sessions)
    if lost is not None and running is not None:
        lost = min(lost, max(running, 1.0))   # a floor from two averages: never more than the sessions
    if lost is not None and lost < LOST_WARNING_SHARE * max(running or 0.0, 1.0):
        return   # commits wait on the logs, but for a sliver of the sessions' time: not what bounds them
    redo = w.avg(_redo_fsyncs)
    binlog_fs = w.avg(lambda f: _binlog_fsyncs(f, sync_binlog))
    # The redo fsync first: a commit waits for it at prepare, before its binlog group even forms,
    # so relaxing it shortens every commit (MariaDB 10.11, log_bin + sync_binlog = 1, 4 writers:
    # +22 % commits/s from innodb_flush_log_at_trx_commit = 2 alone, −6 % to +11 % from
    # sync_binlog = 0 alone — though LOCK_log held 97 % of the wait, its holder waits on both).
    binlog_first = durable_binlog and trx_commit != 1
    cost_binlog = ("sync_binlog = 0 (dynamic) leaves the binary log's fsync to the OS: an OS crash or power "
                   "loss (not a mysqld crash) can lose the last binlog events, so replicas and point-in-time "
                   "recovery miss transactions InnoDB kept")
    cost_redo = ("innodb_flush_log_at_trx_commit = 2 (dynamic) writes the redo log at commit and fsyncs it "
                 "about once a second: an OS crash or power loss can lose ~1 s of commits (a mysqld crash "
                 "loses none)")
    maria = is_mariadb(w.last.server)
    keep = ("to keep full durability instead, group more commits per fsync — "
            + ("binlog_commit_wait_count = 16 with binlog_commit_wait_usec = 2000 (dynamic; each commit may "
               "wait up to 2 ms)" if maria else
               "binlog_group_commit_sync_delay = 1000 µs (dynamic, 5.7+; each commit may wait 1 ms)")
            + " — or put the logs on storage with a power-protected write cache (fsync in µs, not ms)")
    if binlog_first:
        msg = (f"Commits wait on the binary log fsync (sync_binlog = {sync_binlog}, "
               f"innodb_flush_log_at_trx_commit = {trx_commit}): {cost_binlog}. Or {keep}")
    else:
        msg = (f"Commits wait on log fsyncs (innodb_flush_log_at_trx_commit = {trx_commit}"
               f"{f', sync_binlog = {sync_binlog}' if binlog else ''}): {cost_redo}"
               + (f". Then {cost_binlog}" if durable_binlog else "") + f". Or {keep}")
    parts = [f"{num(writes)} write transactions/s (autocommit included)"]
    if groups:
        parts.append(f"{num(groups)} binlog group commits/s = {num(writes / groups)} commits per group")
    fs = [x for x in (f"{num(redo / writes)} redo" if redo is not None and writes else "",
                      f"{num(binlog_fs / writes)} binlog" if binlog_fs is not None and writes else "") if x]
    if fs:
        parts.append(" + ".join(fs) + " fsyncs per commit")
    if s.members:
        parts.append("commit latches: " + s.describe(len(s.shares)))
    if lost is not None and running is not None:
        parts.append(f"{num(lost)} thread-equivalents waiting on commit of {num(running)} sessions running")
    evidence = ", ".join(parts) + f"; in {pct(held)} of samples {w.label}"
    yield advice("commit_path", time_severity(lost, running) if lost is not None else "warning", msg, evidence)


def _bytes(n: int | None) -> str:
    return "unknown" if n is None else size_text(n)


def _age_pct_while_writing(f: Frame) -> float | None:
    """Checkpoint age % of its maximum, only while redo is written fast enough to fill the whole
    log within REDO_FILL_S: an age left over from a bulk load on an idle server is no redo-size
    problem (InnoDB flushes it away in the background)."""
    fl = f.flush
    if fl.checkpoint_age_pct is None or not fl.checkpoint_age_bytes or fl.log_bytes_per_s is None:
        return None
    max_age = fl.checkpoint_age_bytes * 100.0 / fl.checkpoint_age_pct if fl.checkpoint_age_pct else None
    if not max_age or fl.log_bytes_per_s * REDO_FILL_S < max_age:
        return None
    return fl.checkpoint_age_pct


# Flushing "held to the configured capacity": the pages flushed stay within a quarter above
# innodb_io_capacity on average (where INNODB_METRICS splits it: the paced flushing does, while
# forced flushing does at least as much) while the checkpoint age stays near its maximum. MariaDB
# 10.11 measured (random updates, 96 MB redo, io_capacity 100 / max 200): 65 pages/s on average,
# never above 200, age pinned at 88 %; with an 8 MB redo at 200 / 2000: 375 pages/s, bursts to 2,400.
IO_CAPACITY_SHARE = 1.25
PACED_CAPACITY_SHARE = 1.25
# ... and only while the redo log holds this long of writes at the rate seen: a log that fills in
# seconds is too small whatever the capacity (the 8 MB log above filled in 2–13 s, flushing far past
# its capacity; the 96 MB one in 24–80 s on a shared host and in 15 s on a quiet one, flushing at
# its capacity of 100).
REDO_ROOMY_S = 10.0
# Flushing near innodb_io_capacity_max — adaptive flushing's ceiling, which it climbs toward while
# the checkpoint age is high — is held by the configuration too, at a smaller margin of redo: the
# 96 MB log above filled in 10–12 s on a starved box while the page cleaner flushed 209 pages/s
# against a max of 200, and on a busy one it flushed 157/s (0.79 of the max) with 17 s of redo;
# the 8 MB log at the default 2000 never flushed near its max (375/s, 0.19 of it).
MAX_PINNED = (0.6, 1.25)
REDO_PINNED_S = 5.0


def _max_age(f: Frame) -> float | None:
    fl = f.flush
    if not fl.checkpoint_age_pct or fl.checkpoint_age_bytes is None:
        return None
    return fl.checkpoint_age_bytes * 100.0 / fl.checkpoint_age_pct


# Writes the server has queued on the storage, on average: below one, its writes are not waiting.
QUEUED_WRITES_MIN = 1.0


def _queued_writes(f: Frame) -> float | None:
    if f.io.pending_writes is None and f.io.pending_fsyncs is None:
        return None
    return (f.io.pending_writes or 0) + (f.io.pending_fsyncs or 0)


def _storage_saturated(w: Window) -> bool:
    """Host iowait high and the server's own writes queued. iowait alone is any process's (a
    backup, another instance, a test run on the same box): with no write of the server waiting,
    its flushing is paced by its IO capacity, not held by the storage."""
    if not _iowait_note(w)[1]:
        return False
    queued = w.avg(_queued_writes)
    return queued is None or queued >= QUEUED_WRITES_MIN


def _io_capacity_bound(w: Window, v: Vars) -> str | None:
    """The evidence that the configured IO capacity, not the redo size, holds flushing back: the
    pages flushed stay at innodb_io_capacity (or, where INNODB_METRICS splits it, the paced
    flushing does while forced flushing does the rest) and the storage is not what is saturated."""
    cap = v.int("innodb_io_capacity")
    if not cap:
        return None
    if _storage_saturated(w):
        return None       # the storage is saturated: more IO capacity would not be written
    max_age, redo = w.avg(_max_age), w.avg(lambda f: f.flush.log_bytes_per_s)
    if not max_age or not redo or max_age / redo < REDO_PINNED_S:
        return None
    flushed = w.avg(lambda f: f.flush.pages_flushed_per_s)
    paced = w.avg(lambda f: f.flush.paced_flushed_per_s)
    forced = w.avg(lambda f: f.flush.sync_flushed_per_s)
    split = (f" ({num(paced)} paced by the page cleaner, {num(forced)} forced by the full redo log)"
             if paced is not None and forced is not None else "")
    ceiling = v.int("innodb_io_capacity_max")
    if ceiling and flushed is not None and MAX_PINNED[0] * ceiling <= flushed <= MAX_PINNED[1] * ceiling:
        return (f"{num(flushed)} pages flushed/s{split}, near {v.show('innodb_io_capacity_max')} (adaptive "
                f"flushing's ceiling), {v.show('innodb_io_capacity')}; the redo log holds {num(max_age / redo)} s "
                "of writes")
    if max_age / redo < REDO_ROOMY_S:
        return None
    if (flushed is not None and flushed <= IO_CAPACITY_SHARE * cap) or (
            paced is not None and forced is not None and paced <= PACED_CAPACITY_SHARE * cap and forced >= paced):
        return (f"{num(flushed)} pages flushed/s{split} against {v.show('innodb_io_capacity')}, "
                f"{v.show('innodb_io_capacity_max')}; the redo log holds {num(max_age / redo)} s of writes")
    return None


@span(RECENT_S)
def checkpoint_age(w: Window, v: Vars) -> Iterator[Advice]:
    """Checkpoint age near its maximum while redo is written fast. Facts: LSN and checkpoint LSN
    (LOG section, every flavor), max checkpoint age (printed, or from the redo size), pages
    flushed (Innodb_buffer_pool_pages_flushed / BUFFER POOL "pages written"), INNODB_METRICS
    buffer_flush_* where enabled, innodb_io_capacity/_max. Flushing held to the configured IO
    capacity is named first; the redo size otherwise."""
    age = _age_pct_while_writing
    held = w.held(age, lambda x: x >= CHECKPOINT_WARN_PCT)
    if held < SUSTAINED:
        return
    sev = "critical" if (w.avg(age) or 0) >= CHECKPOINT_CRITICAL_PCT else "warning"
    ages = (f"checkpoint age avg {num(w.avg(age))} %, peak {num(w.peak(age))} % of max "
            f"(≥ {num(CHECKPOINT_WARN_PCT)} % in {pct(held)} of samples), redo "
            f"{_bytes(int(w.avg(lambda f: f.flush.log_bytes_per_s) or 0))}/s")
    bound = _io_capacity_bound(w, v)
    if bound is not None:
        cap = v.int("innodb_io_capacity") or 0
        new = max(1000, cap * 4)
        msg = (f"Flushing is held to the configured IO capacity: {v.show('innodb_io_capacity')} — raise it toward "
               f"what the storage can write (e.g. {new}; dynamic) and {v.show('innodb_io_capacity_max')} with it "
               f"(e.g. {new * 2}; dynamic); the checkpoint age sits near its maximum because pages are flushed "
               "too slowly, and a larger redo log would only postpone the same wall")
        yield advice("checkpoint_age", sev, msg, f"{bound}; {ages} {w.label}")
        return
    if v.has("innodb_redo_log_capacity"):
        redo = (f"innodb_redo_log_capacity = {_bytes(v.int('innodb_redo_log_capacity'))} — raise it "
                "(dynamic in 8.0.30+)")
    else:
        files = v.int("innodb_log_files_in_group")
        size = f"innodb_log_file_size = {_bytes(v.int('innodb_log_file_size'))}"
        redo = (f"{size}{f' × {files} files' if files else ''} — raise it (a restart on most versions; "
                "MariaDB 10.9+ resizes it online)")
    msg = (f"Checkpoint age near its maximum: the redo log is too small for the write rate. {redo}, and raise "
           f"{v.show('innodb_io_capacity_max')} so adaptive flushing can keep up if the storage has headroom")
    evidence = (f"{ages}, {num(w.avg(lambda f: f.flush.pages_flushed_per_s))} pages flushed/s "
                f"({v.show('innodb_io_capacity')}) {w.label}")
    yield advice("checkpoint_age", sev, msg, evidence)


@span(RECENT_S)
def change_buffer(w: Window, v: Vars) -> Iterator[Advice]:
    pool = v.int("innodb_buffer_pool_size")
    if not pool:
        return
    pool_pages = pool / (v.int("innodb_page_size") or DEFAULT_PAGE_SIZE)
    # Larger than the whole pool is a counter the server fills with garbage (MariaDB 10.11 reports
    # Innodb_ibuf_size in the 10^13s), not a change buffer: treat it as unknown.
    ibuf = lambda f: x if (x := f.flush.ibuf_size_pages) is not None and x <= pool_pages else None  # noqa: E731
    held = w.held(ibuf, lambda x: x >= CHANGE_BUFFER_POOL_SHARE * pool_pages)
    if held < SUSTAINED:
        return
    avg = w.avg(ibuf) or 0.0
    msg = (f"Large change buffer: {v.show('innodb_change_buffer_max_size')} (% of the buffer pool) — lower it "
           "(dynamic) so the pool caches data instead of buffered index changes, or set "
           "innodb_change_buffering = none on fast storage; a big change buffer also means merge IO later "
           "and a slow shutdown")
    evidence = (f"change buffer avg {num(avg)} pages ({pct(avg / pool_pages)} of a {num(pool_pages)}-page "
                f"buffer pool), ≥ {pct(CHANGE_BUFFER_POOL_SHARE)} in {pct(held)} of samples {w.label}")
    yield advice("change_buffer", "warning", msg, evidence)


RULES = (pending_aio, commit_path, checkpoint_age, change_buffer)
