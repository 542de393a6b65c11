"""IO, redo and flushing: pending aio, fsync-bound commits, checkpoint age, change buffer."""

from __future__ import annotations

from typing import Iterator

from mysqltop.core.frame import Advice, Frame
from mysqltop.core.rules.base import SUSTAINED, Vars, Window, advice, num, pct, size_text

# InnoDB normally drains its aio queues within a poll; a queue at least this deep (and at least
# one request per IO thread of that kind) in most samples means requests wait for a thread or disk.
PENDING_IO_MIN = 8
# Host iowait above this is storage saturation: more IO threads will not help, less IO will.
IOWAIT_HIGH_PCT = 20.0
# Below this many commits/s, fsync cost cannot be what bounds throughput.
FSYNC_TPS_MIN = 50.0
# Half an fsync per commit or more: commits are not being grouped, each waits on its own flush.
FSYNC_PER_COMMIT = 0.5
# Checkpoint age as % of its maximum: InnoDB starts async pre-flushing near 7/8 (87.5 %) and
# stalls writers near 15/16; warn at 75 % to act before the stalls, critical from the async point.
CHECKPOINT_WARN_PCT = 75.0
CHECKPOINT_CRITICAL_PCT = 87.5
# A change buffer holding a tenth of the buffer pool is memory not caching data, and a merge
# backlog that shows up as read IO later (and slow shutdowns).
CHANGE_BUFFER_POOL_SHARE = 0.10
DEFAULT_PAGE_SIZE = 16384


def _iowait(f: Frame) -> float | None:
    return f.host.cpu_iowait_pct if f.host else None


def _iowait_note(w: Window) -> tuple[str, bool]:
    iow = w.avg(_iowait)
    return ("", False) if iow is None else (f"; host iowait avg {num(iow)} %", iow >= IOWAIT_HIGH_PCT)


def pending_aio(w: Window, v: Vars) -> Iterator[Advice]:
    iow_text, storage_bound = _iowait_note(w)
    storage = (" — but iowait is high, so the storage itself is saturated: more threads help only if "
               "it has spare queue depth") if storage_bound else ""
    kinds = (
        ("reads", lambda f: f.io.pending_reads, lambda f: f.io.reads_per_s, "innodb_read_io_threads",
         "raise it (e.g. {n2}; needs a restart); a larger innodb_buffer_pool_size means fewer reads"),
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
               + direction.format(n2=max(8, threads * 2), cap=v.text("innodb_io_capacity") or "unknown")
               + storage)
        evidence = (f"pending {kind} avg {num(w.avg(pending))}, peak {num(w.peak(pending))} "
                    f"(≥ {floor} in {pct(held)} of samples), {num(w.avg(rate))} {kind}/s {w.label}{iow_text}")
        yield advice(f"pending_aio_{kind}", "critical" if storage_bound else "warning", msg, evidence)


def _fsyncs_per_commit(f: Frame) -> float | None:
    tps, fs = f.throughput.tps, f.io.fsyncs_per_s
    return fs / tps if tps and fs is not None and tps >= FSYNC_TPS_MIN else None


def fsync_commit(w: Window, v: Vars) -> Iterator[Advice]:
    trx_commit, sync_binlog = v.int("innodb_flush_log_at_trx_commit"), v.int("sync_binlog")
    if trx_commit != 1 and sync_binlog != 1:
        return   # commits do not wait for fsync; nothing to trade

    def bound(f: Frame) -> float | None:
        ratio = _fsyncs_per_commit(f)
        if ratio is None or ratio < FSYNC_PER_COMMIT:
            return None
        waiting = (f.io.pending_fsyncs or 0) >= 1 or (_iowait(f) or 0) >= IOWAIT_HIGH_PCT
        return ratio if waiting else None

    held = w.held(bound, lambda _: True)
    if held < SUSTAINED:
        return
    iow_text, _ = _iowait_note(w)
    msg = (f"Commits wait on fsync: innodb_flush_log_at_trx_commit = {trx_commit}, sync_binlog = {sync_binlog}"
           f"{' (dual one: fully durable)' if trx_commit == 1 and sync_binlog == 1 else ''}. Relaxing costs "
           "durability: innodb_flush_log_at_trx_commit = 2 fsyncs the redo log about once a second, so an OS "
           "crash or power loss (not a mysqld crash) can lose ~1 s of committed transactions; sync_binlog = 0 "
           "or N lets the binary log lose events after a crash, so replicas and point-in-time recovery diverge. "
           "To keep durability, cut fsync latency instead: storage with a power-protected write cache, or "
           "binlog_group_commit_sync_delay to group commits")
    evidence = (f"{num(w.avg(lambda f: f.io.fsyncs_per_s))} fsyncs/s for {num(w.avg(lambda f: f.throughput.tps))} "
                f"TPS ({num(w.avg(bound))} fsyncs per commit), pending fsyncs peak "
                f"{num(w.peak(lambda f: f.io.pending_fsyncs))}, in {pct(held)} of samples {w.label}{iow_text}")
    yield advice("fsync_commit", "warning", msg, evidence)


def _bytes(n: int | None) -> str:
    return "unknown" if n is None else size_text(n)


def checkpoint_age(w: Window, v: Vars) -> Iterator[Advice]:
    age = lambda f: f.flush.checkpoint_age_pct  # noqa: E731 - % of the maximum checkpoint age
    held = w.held(age, lambda x: x >= CHECKPOINT_WARN_PCT)
    if held < SUSTAINED:
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
    sev = "critical" if (w.avg(age) or 0) >= CHECKPOINT_CRITICAL_PCT else "warning"
    evidence = (f"checkpoint age avg {num(w.avg(age))} %, peak {num(w.peak(age))} % of max "
                f"(≥ {num(CHECKPOINT_WARN_PCT)} % in {pct(held)} of samples), redo "
                f"{_bytes(int(w.avg(lambda f: f.flush.log_bytes_per_s) or 0))}/s, "
                f"{num(w.avg(lambda f: f.flush.pages_flushed_per_s))} pages flushed/s {w.label}")
    yield advice("checkpoint_age", sev, msg, evidence)


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


RULES = (pending_aio, fsync_commit, checkpoint_age, change_buffer)
