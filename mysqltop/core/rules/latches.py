"""Latch hot spots: one structure taking a large share of all InnoDB/SQL wait, sustained.

Each rule names the structure, the variable that spreads it, and the measured share and rate.
Names and sites come from whichever latch source the server offers (performance_schema event
names, SHOW ENGINE INNODB MUTEX sites, SEMAPHORES created-at files).
"""

from __future__ import annotations

from typing import Iterator

from mysqltop.core.frame import Advice
from mysqltop.core.rules.base import (
    SUSTAINED, LatchFamily, LatchStats, Vars, Window, advice, mean, num, pct,
)
from mysqltop.core.rules.server import is_mariadb_at_least

# One family holding a fifth of all wait is "the" hot spot: below that, waits are spread over
# several structures and no single knob helps (a busy sysbench run spreads ~10 % per latch).
LATCH_SHARE = 0.20
# Half of all wait on one family, nearly all the time, is an incident, not a tuning hint.
LATCH_SHARE_CRITICAL = 0.50
CRITICAL_HELD = 0.9
# Floors so an idle server's few waits (100 % share of almost nothing) never fire: 5 ms of wait
# per second is 0.5 % of one thread's time; 100 waits/s when the source only counts waits.
LATCH_MIN_WAIT_MS_PER_S = 5.0
LATCH_MIN_WAITS_PER_S = 100.0
# SEMAPHORES lists threads that gave up spinning and sleep on a latch: two at once on the same
# family in most samples is a queue, one is chance.
LATCH_MIN_WAITING_THREADS = 2

AHI_PARTS_MAX = 512        # innodb_adaptive_hash_index_parts range is 1..512

# Adaptive hash index: btr_search_latch (5.x, P_S `btr_search_latch`), its partitions created in
# btr0sea.cc (5.7+/8.0 SHOW ENGINE INNODB MUTEX "rwlock: btr0sea.cc:202").
AHI = LatchFamily("ahi", r"btr_search|btr0sea|\bahi\b|adaptive.hash")
# Buffer pool: the pool/LRU/free/flush-list mutexes and the page-hash latches (hash_table_locks,
# created in hash0hash.cc for buf_pool->page_hash in 5.7/8.0 — one set per instance). Block latches
# ("sum rwlock: buf0buf.cc", buf_block_lock) are hot *pages*, which instances do not spread.
BUFFER_POOL = LatchFamily(
    "buffer_pool",
    r"buf_pool|flush_list|lru_list|buf0buf|buf0flu|buf0lru|page_hash|hash_table_locks|hash0hash",
    exclude=r"sum rwlock|\(sum\)|buf_block",
)
# Table definition/open cache: LOCK_table_cache (5.6+, MariaDB 10.x), LOCK_open before it.
TABLE_CACHE = LatchFamily("table_cache", r"LOCK_table_cache|\bLOCK_open\b|tdc.*LOCK_table")


def _hot(w: Window, family: LatchFamily) -> tuple[LatchStats, float] | None:
    """The family's stats and the share of frames where it was hot, when that is sustained."""
    s = w.latch(family)

    def hot(i: int) -> bool:
        if s.shares[i] < LATCH_SHARE:
            return False
        ms, waits, threads = s.wait_ms[i], s.waits[i], s.threads[i]
        if ms is not None:
            return ms >= LATCH_MIN_WAIT_MS_PER_S
        if waits is not None:
            return waits >= LATCH_MIN_WAITS_PER_S
        return (threads or 0) >= LATCH_MIN_WAITING_THREADS

    held = sum(1 for i in range(len(s.shares)) if hot(i)) / len(s.shares) if s.shares else 0.0
    return (s, held) if held >= SUSTAINED else None


def _severity(s: LatchStats, held: float) -> str:
    return "critical" if (mean(s.shares) or 0) >= LATCH_SHARE_CRITICAL and held >= CRITICAL_HELD else "warning"


def _evidence(w: Window, s: LatchStats, held: float) -> str:
    ms = [m for m in s.wait_ms if m is not None]
    waits = [x for x in s.waits if x is not None]
    threads = [x for x in s.threads if x is not None]
    rate = (f"{num(mean(waits))} waits/s avg" if waits
            else f"{num(mean(threads))} threads waiting avg" if threads else "")
    waited = f", {num(mean(ms))} ms/s waited" if ms else ""
    return (f"{s.top_name} {pct(mean(s.shares))} of {s.measure}, {rate}{waited} {w.label}; "
            f"hot in {pct(held)} of samples")


def ahi_latch(w: Window, v: Vars) -> Iterator[Advice]:
    hit = _hot(w, AHI)
    if hit is None or v.on("innodb_adaptive_hash_index") is False:
        return
    s, held = hit
    parts = next((n for n in ("innodb_adaptive_hash_index_parts", "innodb_adaptive_hash_index_partitions")
                  if v.has(n)), None)
    n = v.int(parts) if parts else None
    if parts and n is not None and n < AHI_PARTS_MAX:
        msg = (f"Adaptive hash index latch is the hot spot: {parts} = {n} — raise it "
               f"(e.g. {min(AHI_PARTS_MAX, max(16, n * 4))}; needs a restart) to spread the latch, or set "
               "innodb_adaptive_hash_index = OFF (dynamic) if this workload gains little from the AHI")
    elif parts:
        msg = (f"Adaptive hash index latch is the hot spot with {parts} = {n} already at its maximum: "
               "set innodb_adaptive_hash_index = OFF (dynamic) and compare throughput")
    else:
        msg = ("Adaptive hash index latch (btr_search_latch) is the hot spot and this server cannot "
               "partition the AHI: try innodb_adaptive_hash_index = OFF (dynamic) and compare throughput; "
               "servers with innodb_adaptive_hash_index_parts (5.7+, MariaDB 10.2+) can spread it instead")
    yield advice("ahi_latch", _severity(s, held), msg, _evidence(w, s, held))


def buffer_pool_mutex(w: Window, v: Vars) -> Iterator[Advice]:
    hit = _hot(w, BUFFER_POOL)
    if hit is None:
        return
    s, held = hit
    cpus = w.peak(lambda f: f.host.cpus if f.host else None)
    n = v.int("innodb_buffer_pool_instances")
    size = v.int("innodb_buffer_pool_size")
    on_cpus = f" on {num(cpus)} CPUs" if cpus else ""
    if n is None and is_mariadb_at_least(w.last.server, (10, 5)):
        msg = ("Buffer pool mutex / flush list waits: MariaDB 10.5+ has a single buffer pool "
               "(innodb_buffer_pool_instances was removed) — cut page churn instead: a larger "
               f"{v.show('innodb_buffer_pool_size')}, or faster LRU flushing (innodb_lru_scan_depth)")
    elif n is None:
        msg = ("Buffer pool mutex / flush list waits, and innodb_buffer_pool_instances is unknown here: "
               "split the pool into instances toward the core count (needs a restart)")
    else:
        # MySQL caps instances at 64 and ignores them below 1 GiB of pool; a useful target is
        # one per core within that.
        cap = min(64, int(cpus) if cpus else 64, max(1, size // 2**30) if size else 64)
        if n < cap:
            msg = (f"Buffer pool mutex / flush list waits: innodb_buffer_pool_instances = {n}{on_cpus} — "
                   f"raise it toward the core count (e.g. {cap}; needs a restart; keep ≥ 1 GiB of "
                   f"innodb_buffer_pool_size per instance)")
        else:
            msg = (f"Buffer pool mutex / flush list waits with innodb_buffer_pool_instances = {n}{on_cpus} "
                   "already at its useful maximum — reduce churn: larger innodb_buffer_pool_size, "
                   "faster LRU flushing (innodb_lru_scan_depth)")
    yield advice("buffer_pool_mutex", _severity(s, held), msg, _evidence(w, s, held))


def table_cache(w: Window, v: Vars) -> Iterator[Advice]:
    hit = _hot(w, TABLE_CACHE)
    if hit is None:
        return
    s, held = hit
    n = v.int("table_open_cache_instances")
    if n is None:
        msg = ("Table cache lock is the hot spot and this server has no table_open_cache_instances "
               f"(MySQL < 5.6.6, MariaDB < 10.2.2): check {v.show('table_open_cache')} is large enough, "
               "or upgrade to get a partitioned table cache")
    elif n < 16:
        msg = (f"Table cache lock (LOCK_table_cache) is the hot spot: table_open_cache_instances = {n} — "
               f"raise it (e.g. {min(64, max(16, n * 2))}; needs a restart) so sessions lock different "
               f"partitions; keep {v.show('table_open_cache')} large enough for all open tables")
    else:
        msg = (f"Table cache lock is the hot spot with table_open_cache_instances = {n} already high: "
               f"check {v.show('table_open_cache')} is large enough (Table_open_cache_misses) and "
               "whether the workload opens/closes tables (temporary tables, FLUSH TABLES)")
    yield advice("table_cache", _severity(s, held), msg, _evidence(w, s, held))


RULES = (ahi_latch, buffer_pool_mutex, table_cache)
