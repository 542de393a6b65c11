"""Latch hot spots: one structure taking a large share of all InnoDB/SQL wait, sustained.

Each rule names the structure, the variable that spreads it, and the measured share and rate.
Names and sites come from whichever latch source the server offers (performance_schema event
names, SHOW ENGINE INNODB MUTEX sites, SEMAPHORES created-at files).
"""

from __future__ import annotations

from typing import Iterator

from mysqltop.core.frame import Advice, Frame
from mysqltop.core.frame_memo import memo_of
from mysqltop.core.rules.rule_kit import (
    RECENT_S, SUSTAINED, LatchFamily, LatchStats, Vars, Window, advice, mean, num, pct, pool_has_room, running_sessions,
    time_severity, span,
)
from mysqltop.core.rules.pressure import LOG_WAITS_MIN_PER_S, WAIT_FREE_MIN_PER_S, steady
from mysqltop.core.server_version import is_mariadb, is_mariadb_at_least

# One family holding a fifth of all wait is "the" hot spot: below that, waits are spread over
# several structures and no single knob helps (a busy sysbench run spreads ~10 % per latch).
LATCH_SHARE = 0.20
# Half of all wait on one family, nearly all the time, is an incident, not a tuning hint.
LATCH_SHARE_CRITICAL = 0.50
CRITICAL_HELD = 0.9
BURSTY_HELD = 0.25
# Floors so an idle server's few waits (100 % share of almost nothing) never fire: 5 ms of wait
# per second is 0.5 % of one thread's time; 100 waits/s when the source only counts waits.
LATCH_MIN_WAIT_MS_PER_S = 5.0
LATCH_MIN_WAITS_PER_S = 100.0
# SEMAPHORES lists threads that gave up spinning and sleep on a latch: two at once on the same
# family in most samples is a queue, one is chance.
LATCH_MIN_WAITING_THREADS = 2

AHI_PARTS_MAX = 512        # innodb_adaptive_hash_index_parts range is 1..512
# The AHI serving most searches is worth keeping if partitions could spread it.
AHI_HASH_SHARE_HIGH = 0.8

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
# One index's tree latch (P_S `index_tree_rw_lock`, 5.7+/MariaDB 10.2+): taken exclusive for a
# change to the index's structure — a page split or merge, and on MariaDB/MySQL the write of an
# off-page BLOB/TEXT value of a clustered index record. Sites (dict0dict.cc) are shared with other
# dictionary latches, so only the P_S name is taken.
INDEX_TREE = LatchFamily("index_tree", r"index_tree")
# Table definition/open cache: LOCK_table_cache (5.6+, MariaDB 10.x), LOCK_open before it.
# LOCK_unused_shares: MariaDB's list of table shares no table uses, taken on every eviction.
TABLE_CACHE = LatchFamily("table_cache", r"LOCK_table_cache|\bLOCK_open\b|tdc.*LOCK_table|LOCK_unused_shares")


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

    flags = [hot(i) for i in range(len(s.shares))]
    held = sum(flags) / len(flags) if flags else 0.0
    if held >= SUSTAINED:
        return s, held
    half = len(flags) // 2
    if half == 0 or min(sum(flags[:half]) / half, sum(flags[half:]) / (len(flags) - half)) < BURSTY_HELD:
        return None       # a block of contention that began or ended inside the window: not yet / no longer
    # Bursty contention (a preempted holder on a busy host makes per-second shares swing 0 ↔ 90 %)
    # is still the hot spot when it takes a fifth of all wait time over the window and is hot in
    # a good part of each half of it; a short burst (a few seconds of a minute) is not.
    return (s, held) if _window_share(w, family) >= LATCH_SHARE else None


def _window_share(w: Window, family: LatchFamily) -> float:
    """The family's share of all P_S wait time over the whole window (time-weighted)."""
    fam = total = 0.0
    for f in w.frames:
        dt = f.elapsed or 0.0
        memo = memo_of(f)
        ps_ms = memo.get("ps_wait_ms")
        if ps_ms is None:
            ps_ms = memo["ps_wait_ms"] = sum(h.wait_ms_per_s for h in f.hotspots
                                             if h.source == "performance_schema" and h.wait_ms_per_s is not None
                                             and not h.own)
        total += ps_ms * dt
        fam += sum(h.wait_ms_per_s for h in w.frame_family(f, family).by_source.get("performance_schema", ())
                   if h.wait_ms_per_s is not None) * dt
    return fam / total if total else 0.0


def _severity(w: Window, s: LatchStats, held: float) -> str:
    """Timed sources: the time the family costs against the sessions running. Untimed (MUTEX
    counts, SEMAPHORES snapshots): its share, nearly all the time."""
    lost = s.lost_threads()
    if lost is not None:
        return time_severity(lost, w.avg(running_sessions), critical_ok=held >= CRITICAL_HELD)
    return "critical" if (mean(s.shares) or 0) >= LATCH_SHARE_CRITICAL and held >= CRITICAL_HELD else "warning"


def _evidence(w: Window, s: LatchStats, held: float) -> str:
    """Each latch of the family with its own figures; the family's time against the sessions."""
    lost = s.lost_threads()
    running = w.avg(running_sessions)
    cost = (f"; {num(lost)} thread-equivalents waiting of {num(running)} sessions running"
            if lost is not None and running is not None else "")
    threads = [x for x in s.threads if x is not None]
    members = s.describe(len(s.shares)) if s.members and s.measure != "waiting threads" else (
        f"{s.top_name} {pct(mean(s.shares))} of {s.measure}"
        + (f", {num(mean(threads))} threads waiting avg" if threads else ""))
    return f"{members} {w.label}{cost}; hot in {pct(held)} of samples"


def _title_name(s: LatchStats) -> str:
    ranked = s.ranked()
    return ranked[0][0] if ranked else s.top_name


def _hash_share(w: Window) -> float | None:
    """Share of index searches the adaptive hash index served over the window."""
    hashed = w.avg(lambda f: f.ahi.hash_searches_per_s)
    btree = w.avg(lambda f: f.ahi.btree_searches_per_s)
    if hashed is None or btree is None or hashed + btree <= 0:
        return None
    return hashed / (hashed + btree)


@span(RECENT_S)
def ahi_latch(w: Window, v: Vars) -> Iterator[Advice]:
    """Facts: the AHI latch by name (P_S `btr_search_latch` on 5.6+/MariaDB, MUTEX/SEMAPHORES
    `btr0sea.cc` on 5.x/8.x); hash vs B-tree searches from MariaDB's Innodb_adaptive_hash_*
    status or MySQL/Percona INNODB_METRICS adaptive_hash_searches(_btree). Partitions split the
    AHI by index, so a load hot on one index gains nothing from them (MariaDB 10.11: 98.7 % of
    wait at 1 and at 16 parts): OFF is the remedy that works, and it is dynamic everywhere."""
    hit = _hot(w, AHI)
    if hit is None or v.on("innodb_adaptive_hash_index") is False:
        return
    s, held = hit
    parts = next((n for n in ("innodb_adaptive_hash_index_parts", "innodb_adaptive_hash_index_partitions")
                  if v.has(n)), None)
    n = v.int(parts) if parts else None
    share = _hash_share(w)
    served = (f"the AHI serves {pct(share)} of index searches" if share is not None
              else "the share of searches it serves is not measured here")
    msg = (f"Adaptive hash index latch ({_title_name(s)}) is the hot spot: set innodb_adaptive_hash_index = OFF "
           f"(dynamic: SET GLOBAL) — {served}; the latch wait should vanish at once. Check that QPS holds: if it "
           "falls, the hash was carrying the reads — turn it back ON")
    if parts and n is not None and n < AHI_PARTS_MAX and share is not None and share >= AHI_HASH_SHARE_HIGH:
        msg += (f", and raise {parts} (now {n}; needs a restart) instead — that helps only when the hot "
                "searches span several indexes, since partitions split the hash by index")
    elif parts and n is not None and n > 1:
        msg += f" ({parts} = {n} already: partitions split by index and did not spread this one)"
    elif not parts:
        msg += " (this server cannot partition the AHI)"
    evidence = _evidence(w, s, held)
    hashed = w.avg(lambda f: f.ahi.hash_searches_per_s)
    if hashed is not None:
        evidence += (f"; {num(hashed)} hash searches/s vs "
                     f"{num(w.avg(lambda f: f.ahi.btree_searches_per_s))} B-tree searches/s")
    yield advice("ahi_latch", _severity(w, s, held), msg, evidence)


@span(RECENT_S)
def buffer_pool_mutex(w: Window, v: Vars) -> Iterator[Advice]:
    hit = _hot(w, BUFFER_POOL)
    if hit is None:
        return
    s, held = hit
    cpus = w.peak(lambda f: f.host.cpus if f.host else None)
    n = v.int("innodb_buffer_pool_instances")
    size = v.int("innodb_buffer_pool_size")
    on_cpus = f" on {num(cpus)} CPUs" if cpus else ""
    title = f"Buffer pool latch waits ({_title_name(s)})"
    room = pool_has_room(w, v)
    if room is not None:
        grow = (f"not a larger innodb_buffer_pool_size: {pct(room / 100)} of the pool is free — the churn comes "
                "from pages read and dropped (scans), so cut the scans (indexes) or speed LRU flushing "
                "(innodb_lru_scan_depth)")
    else:
        grow = f"a larger {v.show('innodb_buffer_pool_size')}, or faster LRU flushing (innodb_lru_scan_depth)"
    if n is None and is_mariadb_at_least(w.last.server, (10, 5)):
        msg = (f"{title}: MariaDB 10.5+ has a single buffer pool "
               f"(innodb_buffer_pool_instances was removed) — cut page churn instead: {grow}")
    elif n is None:
        msg = (f"{title}, and innodb_buffer_pool_instances is unknown here: "
               "split the pool into instances toward the core count (needs a restart)")
    else:
        # MySQL caps instances at 64 and ignores them below 1 GiB of pool; a useful target is
        # one per core within that.
        cap = min(64, int(cpus) if cpus else 64, max(1, size // 2**30) if size else 64)
        if n < cap:
            msg = (f"{title}: innodb_buffer_pool_instances = {n}{on_cpus} — "
                   f"raise it toward the core count (e.g. {cap}; needs a restart; keep ≥ 1 GiB of "
                   f"innodb_buffer_pool_size per instance)")
        else:
            msg = (f"{title} with innodb_buffer_pool_instances = {n}{on_cpus} "
                   f"already at its useful maximum — reduce churn: {grow}")
    yield advice("buffer_pool_mutex", _severity(w, s, held), msg, _evidence(w, s, held))


# A miss is an open that found no free cached table instance and had to open one: a few per
# second is routine; this many, as a fifth of all opens, is the cache too small for the load.
TABLE_MISSES_MIN_PER_S = 50.0
TABLE_MISS_RATIO = 0.2
# table_open_cache_instances takes effect only from 16 instances down to one per 4 cores.
TABLE_CACHE_INSTANCES_USEFUL = 16


def _miss_ratio(f: Frame) -> float | None:
    tc = f.table_cache
    if tc.misses_per_s is None or tc.misses_per_s < TABLE_MISSES_MIN_PER_S:
        return None
    opens = tc.misses_per_s + (tc.hits_per_s or 0.0)
    return tc.misses_per_s / opens if opens else None


@span(RECENT_S)
def table_cache(w: Window, v: Vars) -> Iterator[Advice]:
    """Facts: Table_open_cache_misses/_overflows/_hits (MySQL 5.6+, Percona, MariaDB 10.1+; older
    servers: none, so only the latch speaks), Opened_tables, table_open_cache(_instances), and
    on MariaDB Table_open_cache_active_instances (10.2.2+: it activates instances itself when
    it sees contention, so raising the variable does nothing until they are all active).
    Misses first: a cache too small makes every open take LOCK_table_cache for longer; once
    misses are gone, instances split the lock (MySQL; MariaDB only when all are already active)."""
    held_miss = w.held(_miss_ratio, lambda r: r >= TABLE_MISS_RATIO)
    size = v.int("table_open_cache")
    if held_miss >= SUSTAINED:
        misses = w.avg(lambda f: f.table_cache.misses_per_s) or 0.0
        target = max(2000, (size or 0) * 4)
        latch = w.latch(TABLE_CACHE)
        lost = latch.lost_threads()
        msg = (f"Table cache too small: {v.show('table_open_cache')} — raise it (e.g. SET GLOBAL table_open_cache = "
               f"{target}; dynamic, costs a file descriptor and a little memory per cached table — check "
               "open_files_limit) so opens find a cached table instead of opening and evicting one")
        evidence = (f"{num(misses)} misses/s = {pct(w.avg(_miss_ratio))} of opens, "
                    f"{num(w.avg(lambda f: f.table_cache.overflows_per_s))} overflows/s, Open_tables "
                    f"{num(w.last.table_cache.open_tables)} {w.label}")
        if latch.members:
            evidence += f"; latches: {latch.describe(len(latch.shares))}"
        sev = time_severity(lost, w.avg(running_sessions)) if lost is not None else "warning"
        yield advice("table_cache_misses", "warning" if sev == "info" else sev, msg, evidence)
        return
    hit = _hot(w, TABLE_CACHE)
    if hit is None:
        return
    s, held = hit
    n = v.int("table_open_cache_instances")
    active = w.last.table_cache.active_instances
    if is_mariadb(w.last.server) and active is not None and n is not None and active < n:
        return        # MariaDB activates the remaining instances itself when it sees contention
    if n is None:
        msg = ("Table cache lock is the hot spot and this server has no table_open_cache_instances "
               f"(MySQL < 5.6.6, MariaDB < 10.2.2): check {v.show('table_open_cache')} is large enough, "
               "or upgrade to get a partitioned table cache")
    elif n < TABLE_CACHE_INSTANCES_USEFUL:
        msg = (f"Table cache lock ({_title_name(s)}) is the hot spot without misses: table_open_cache_instances = "
               f"{n}{f' (all {num(active)} active)' if active is not None else ''} — raise it (e.g. "
               f"{TABLE_CACHE_INSTANCES_USEFUL}; needs a restart) so sessions lock different partitions")
    else:
        msg = (f"Table cache lock is the hot spot with table_open_cache_instances = {n} already high: "
               "look for a workload that opens/closes tables (temporary tables, FLUSH TABLES)")
    yield advice("table_cache", _severity(w, s, held), msg, _evidence(w, s, held))


def _busiest_shape(f: Frame) -> str | None:
    """The statement shape most busy sessions of the sample ran (wait_load's per-class tops)."""
    by: dict[str, float] = {}
    for t in f.load.top:
        by[t.shape] = by.get(t.shape, 0.0) + t.sessions
    return max(by, key=lambda k: (by[k], k)) if by else None


def _holders_wait_elsewhere(w: Window) -> bool:
    """The tree latch's holder writes its pages while it holds it: when those writes wait for room
    in the redo log buffer or for a free buffer pool page, the queue on the latch is that wait seen
    from the sessions behind it, and log_waits / buffer_pool_wait_free name its knob."""
    return (steady(w, lambda f: f.pressure.log_waits_per_s, LOG_WAITS_MIN_PER_S) is not None
            or steady(w, lambda f: f.pressure.buffer_pool_wait_free_per_s, WAIT_FREE_MIN_PER_S) is not None)


@span(RECENT_S)
def index_tree_latch(w: Window, v: Vars) -> Iterator[Advice]:
    """Facts: P_S `index_tree_rw_lock` wait time (MariaDB 10.11 with the hint's instruments: 16
    sessions rewriting off-page BLOBs of one table wait 14 s/s on it, tests/support/latch_storm).
    No setting spreads one index's latch: the table's shape and the writes' pattern do."""
    hit = _hot(w, INDEX_TREE)
    if hit is None or _holders_wait_elsewhere(w):
        return
    s, held = hit
    severity = _severity(w, s, held)
    if severity == "info":
        return            # without a knob, a latch costing a detail of the running sessions' time is noise
    busiest = _busiest_shape(w.last)
    running = f"; the statement most sessions run: {busiest}" if busiest else ""
    msg = ("Writes queue on one index's tree latch (index_tree_rw_lock): a change to an index's structure — a "
           "page split or merge, or a large BLOB/TEXT value stored off-page — holds that whole index for itself"
           f"{running}. No setting spreads it: partition the hot table (each partition has its own index "
           "trees), move large BLOB/TEXT columns to a table of their own or write them less often, insert in "
           "key order (AUTO_INCREMENT) rather than random keys, or run fewer writers on that table at once")
    yield advice("index_tree_latch", severity, msg, _evidence(w, s, held))


RULES = (ahi_latch, buffer_pool_mutex, index_tree_latch, table_cache)
