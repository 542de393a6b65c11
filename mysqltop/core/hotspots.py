"""Latch hotspots from the three sources a server may offer, ranked hottest first.

Sources and what their numbers mean:
- performance_schema: Δ COUNT_STAR and Δ SUM_TIMER_WAIT (picoseconds → ms) of `wait/synch/*`
  per second. `wait/synch/cond/*` is left out: a condition wait is a thread sleeping until it
  is signalled (idle timers, managers), not contention, and it would dominate the shares.
- innodb_mutex: Δ os_waits (5.5/5.6) or Δ waits (5.7+) per name/site per second.
- semaphores: the InnoDB wait array is a snapshot, not a counter, so a rate is impossible:
  waits_per_s and wait_ms_per_s stay None; `waiting_threads` (threads in the array on that
  latch now) and `longest_wait_s` carry the evidence and the share is by waiting threads.

`share` is the hotspot's part of its own source's total (by wait time when every row of the
source is timed, else by count): sources measure different things, so shares are never mixed.
The merged list is ordered by share, ties broken by source quality (P_S, MUTEX, SEMAPHORES).
"""

from __future__ import annotations

from typing import Mapping

from mysqltop.core.frame import Hotspot, HotspotTotal
from mysqltop.core.innodb.model import SemaphoreWait
from mysqltop.core.mutex import MutexRow
from mysqltop.core.waits import WaitRow

MAX_HOTSPOTS = 20      # kept per frame
TOP_HOTSPOTS = 10      # listed by `snapshot` text and by `report`
SYNCH_PREFIX = "wait/synch/"
IDLE_PREFIX = "wait/synch/cond/"
PS_PICO_PER_MS = 1e9
# A live source reads performance_schema's latch summary at most this often (it is the dearest
# read of a poll: every instance of every synch instrument aggregated): the samples between carry
# its last two reads, whose rates are over the real span between them.
PS_SUMMARY_EVERY_S = 3.0
_SOURCE_RANK = {"performance_schema": 0, "innodb_mutex": 1, "semaphores": 2}
SOURCE_SHORT = {"performance_schema": "P_S", "innodb_mutex": "mutex", "semaphores": "sema"}   # column labels
_PS_KINDS = {"mutex": "mutex", "rwlock": "rwlock", "prlock": "rwlock", "sxlock": "sxlock", "cond": "cond"}
_GENERIC_MUTEX_NAMES = {"mutex", "rwlock", "rw_lock", "sxlock"}
# Latches only a monitor's reads take: the INNODB_TRX/INNODB_LOCKS cache (information_schema
# reads fill it under trx_i_s_cache_lock) and SHOW ENGINE INNODB STATUS (srv_innodb_monitor_mutex,
# srv_monitor_file_mutex). Waits on them are mysqltop's footprint, not the server's problem.
OWN_LATCHES = frozenset({"trx_i_s_cache_lock", "srv_innodb_monitor_mutex", "srv_monitor_file_mutex"})
OWN_LABEL = "mysqltop's own reads"


def is_own(name: str) -> bool:
    """The latch (short name, or a 5.x "file:line" site) is one mysqltop's own reads take."""
    return name in OWN_LATCHES or name.split("::")[-1] in OWN_LATCHES


def ps_hotspots(prev: Mapping[str, WaitRow], cur: Mapping[str, WaitRow], dt: float) -> list[Hotspot] | None:
    """None when P_S went backwards (TRUNCATE, restart): the query reads only rows with
    COUNT_STAR > 0, so a row that vanished was reset too."""
    for name, p in prev.items():
        c = cur.get(name)
        if c is None or c.count_star < p.count_star or c.sum_timer_wait < p.sum_timer_wait:
            return None
    out: list[Hotspot] = []
    for name, c in cur.items():
        if not name.startswith(SYNCH_PREFIX) or name.startswith(IDLE_PREFIX):
            continue
        old = prev.get(name)
        d_count = c.count_star - (old.count_star if old else 0)
        d_sum = c.sum_timer_wait - (old.sum_timer_wait if old else 0)
        if d_count <= 0 and d_sum <= 0:
            continue
        timed = c.sum_timer_wait > 0   # TIMED='NO' instruments count but keep SUM at 0
        short = ps_short_name(name)
        out.append(Hotspot(name=short, kind=ps_kind(name), source="performance_schema",
                           waits_per_s=d_count / dt,
                           wait_ms_per_s=d_sum / PS_PICO_PER_MS / dt if timed else None, own=is_own(short)))
    _set_shares(out)
    return out


def mutex_hotspots(prev: Mapping[tuple[str, str | None], MutexRow],
                   cur: Mapping[tuple[str, str | None], MutexRow], dt: float) -> list[Hotspot]:
    """Per name/site. A site whose count went backwards is skipped alone: 5.7+ print one row per
    latch instance, and instances die with evicted tables, so one site shrinking is not a reset."""
    out: list[Hotspot] = []
    for key, c in cur.items():
        p = prev.get(key)
        now = _mutex_metric(c)
        before = _mutex_metric(p) if p is not None else 0
        if now is None or before is None or now <= before:
            continue
        short = mutex_short_name(c.name, c.site)
        out.append(Hotspot(name=short, kind=_mutex_row_kind(c),
                           source="innodb_mutex", waits_per_s=(now - before) / dt, site=c.site, own=is_own(short)))
    _set_shares(out)
    return out


def counted_totals(waits: Mapping[str, WaitRow] | None,
                   mutex: Mapping[tuple[str, str | None], MutexRow] | None) -> list[HotspotTotal]:
    """The latch counters as they stand, hottest first: the rows the rates would have over one
    second from zero, so totals and rates name, sort and share latches alike."""
    groups = [ps_hotspots({}, waits, 1.0) or [] if waits else [], mutex_hotspots({}, mutex, 1.0) if mutex else []]
    return [HotspotTotal(h.name, h.kind, h.source, waits=h.waits_per_s, wait_ms=h.wait_ms_per_s, share=h.share,
                         site=h.site) for h in rank(*groups)]


def semaphore_hotspots(waits: list[SemaphoreWait]) -> list[Hotspot]:
    """Wait-array cells grouped by latch kind and name (or created-at site when unnamed)."""
    groups: dict[tuple[str, str], Hotspot] = {}
    for w in waits:
        kind = lock_kind(w.lock)
        name = short_name(w.name) if w.name else (w.created_at or w.waited_at or "unknown")
        h = groups.get((kind, name))
        if h is None:
            h = groups[(kind, name)] = Hotspot(name=name, kind=kind, source="semaphores",
                                               site=w.created_at, waiting_threads=0, longest_wait_s=0.0,
                                               own=is_own(name))
        h.waiting_threads = (h.waiting_threads or 0) + 1
        h.longest_wait_s = max(h.longest_wait_s or 0.0, w.seconds or 0.0)
    out = list(groups.values())
    total = sum(h.waiting_threads or 0 for h in out if not h.own)
    for h in out:
        h.share = (h.waiting_threads or 0) / total if total and not h.own else None
    return out


def rank(*groups: list[Hotspot], limit: int = MAX_HOTSPOTS) -> list[Hotspot]:
    merged = [h for g in groups for h in g]
    merged.sort(key=lambda h: (h.own, -(h.share or 0.0), _SOURCE_RANK.get(h.source, 9),
                               -(h.wait_ms_per_s or 0.0), -(h.waits_per_s or 0.0), h.name))
    return merged[:limit]


def _set_shares(hs: list[Hotspot]) -> None:
    """Shares of the server's own waiting: mysqltop's footprint has none and counts in no total."""
    server = [h for h in hs if not h.own]
    by_time = bool(server) and all(h.wait_ms_per_s is not None for h in server)
    values = [(h.wait_ms_per_s if by_time else h.waits_per_s) or 0.0 for h in server]
    total = sum(values)
    for h, v in zip(server, values):
        h.share = v / total if total > 0 else None
    for h in hs:
        if h.own:
            h.share = None


def _mutex_row_kind(row: MutexRow) -> str:
    """By name; an unnamed kind with call counts ("TRX_SYS | spins=…,waits=…,calls=…", 5.7.8+ latch
    counters; 5.0 "Count") is a mutex: rw-locks are only counted per instance there."""
    kind = name_kind(row.name)
    return "mutex" if kind == "other" and row.calls is not None else kind


def _mutex_metric(row: MutexRow) -> int | None:
    return row.os_waits if row.os_waits is not None else row.waits


def ps_short_name(event: str) -> str:
    """'wait/synch/mutex/innodb/buf_pool_mutex' → 'buf_pool_mutex'."""
    return event.rsplit("/", 1)[-1]


def ps_kind(event: str) -> str:
    parts = event.split("/")
    return _PS_KINDS.get(parts[2], "other") if len(parts) > 2 else "other"


def short_name(name: str) -> str:
    """'&buf_pool->mutex' → 'buf_pool_mutex'; '/src/storage/innobase/buf/buf0buf.c:1208' → 'buf0buf.c:1208'."""
    name = name.strip().strip("'\"").lstrip("&")
    if "/" in name and ":" in name:
        return name.rsplit("/", 1)[-1]
    return name.replace("->", "_").replace(".", "_")


def mutex_short_name(name: str, site: str | None) -> str:
    n = name.strip()
    if site and (n.lower() in _GENERIC_MUTEX_NAMES or n == site):  # 5.1–5.6 rows name only a site
        return site
    if n.lower().startswith("sum ") and site:
        return f"{site} (sum)"           # 5.7+ aggregate of all buffer-block latches
    return short_name(n)


def name_kind(name: str) -> str:
    n = name.lower()
    if "sx" in n.split("_") or n.startswith("sxlock"):
        return "sxlock"
    if "rwlock" in n or "rw_lock" in n or "latch" in n or n.endswith("_lock"):
        return "rwlock"
    if "mutex" in n:
        return "mutex"
    return "other"


def lock_kind(lock: str | None) -> str:
    """SEMAPHORES 'S-lock'/'X-lock' on an RW-latch → rwlock, 'SX-lock' → sxlock, Mutex → mutex.
    A mode in brackets ('X-lock (wait_ex)') does not change the latch's kind."""
    n = (lock or "").lower().split(" (", 1)[0]
    if n.startswith("sx"):
        return "sxlock"
    if "mutex" in n:
        return "mutex"
    if n.endswith("lock") or "rw" in n:
        return "rwlock"
    return "semaphore"
