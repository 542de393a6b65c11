"""`mysqltop parse --format text`: a readable summary of one parsed file (the `parse_any` dict).

Counters from a saved output are shown exact (with thousands separators): a DBA compares them
with the text. Only lines with at least one value are printed; missing values never show as 0.
"""

from __future__ import annotations

from typing import Any, Iterable

from mysqltop.core import units
from mysqltop.core.derive import dirty_pct
from mysqltop.core.safe_text import visible

TOP = 15
_TITLES = {"innodb_status": "SHOW ENGINE INNODB STATUS", "innodb_mutex": "SHOW ENGINE INNODB MUTEX",
           "ps_waits": "performance_schema wait summary", "global_status": "SHOW GLOBAL STATUS",
           "global_variables": "SHOW GLOBAL VARIABLES"}
_KEY_STATUS = ("Uptime", "Questions", "Com_commit", "Com_rollback", "Threads_running", "Threads_connected",
               "Innodb_row_lock_waits", "Innodb_row_lock_time", "Innodb_buffer_pool_pages_total",
               "Innodb_buffer_pool_pages_dirty", "Innodb_buffer_pool_pages_flushed", "Innodb_buffer_pool_wait_free",
               "Innodb_data_pending_reads", "Innodb_data_pending_writes", "Innodb_data_pending_fsyncs",
               "Innodb_os_log_pending_fsyncs", "Innodb_log_waits", "Innodb_checkpoint_age",
               "Innodb_checkpoint_max_age", "Innodb_history_list_length")
_KEY_VARIABLES = ("version", "innodb_buffer_pool_size", "innodb_buffer_pool_instances", "innodb_log_file_size",
                  "innodb_flush_log_at_trx_commit", "sync_binlog", "innodb_io_capacity", "innodb_io_capacity_max",
                  "innodb_read_io_threads", "innodb_write_io_threads", "innodb_purge_threads",
                  "innodb_adaptive_hash_index", "innodb_adaptive_hash_index_parts", "innodb_spin_wait_delay",
                  "innodb_change_buffer_max_size", "table_open_cache_instances", "performance_schema")


def _n(x: Any) -> str:
    if isinstance(x, bool) or x is None:
        return units.NA
    if isinstance(x, int):
        return f"{x:,}"
    if isinstance(x, float):
        return units.num(x)
    return str(x)


def _pairs(d: dict[str, Any] | None, fields: Iterable[tuple[str, str]]) -> str:
    d = d or {}
    return ", ".join(f"{label} {_n(d.get(key))}" for key, label in fields if d.get(key) is not None)


def _line(label: str, text: str) -> list[str]:
    return [f"  {label:<15} {text}"] if text else []


def _status_lines(d: dict[str, Any]) -> list[str]:
    out: list[str] = []
    head = [x for x in (d.get("time"), f"averages over {d['averaging_s']} s" if d.get("averaging_s") else None) if x]
    if d.get("truncated"):
        head.append("TRUNCATED (no END OF INNODB MONITOR OUTPUT)")
    out += _line("monitor", ", ".join(head))
    for note in d.get("notes") or []:
        out += _line("note", str(note))
    out += _line("sections", ", ".join(d.get("sections") or []))
    sem = d.get("semaphores") or {}
    out += _line("SEMAPHORES", _pairs(sem, [("reservation_count", "reservations"), ("signal_count", "signals"),
                                            ("mutex_spin_waits", "mutex spin waits"),
                                            ("mutex_spin_rounds", "rounds"), ("mutex_os_waits", "OS waits")]))
    for kind in ("shared", "excl", "sx"):
        out += _line("", _pairs(sem, [(f"rw_{kind}_spins", f"RW-{kind} spins"), (f"rw_{kind}_rounds", "rounds"),
                                      (f"rw_{kind}_os_waits", "OS waits")]))
    if "SEMAPHORES" in (d.get("sections") or []) and not any(v not in (None, []) for v in sem.values()):
        out += _line("SEMAPHORES", "empty (normal on MariaDB 10.6+: latch waits are only in performance_schema)")
    waits = sem.get("waits") or []
    if waits:
        longest = max(waits, key=lambda w: w.get("seconds") or 0)
        out += _line("", f"{len(waits)} thread(s) in the wait array; longest {_n(longest.get('seconds'))} s: "
                         f"{longest.get('lock') or '?'} {longest.get('name') or ''} created at "
                         f"{longest.get('created_at') or '?'}, waited at {longest.get('waited_at') or '?'}"
                         .replace("  ", " "))
    trx = d.get("transactions") or {}
    states = ", ".join(f"{k} {v}" for k, v in (trx.get("by_state") or {}).items())
    out += _line("TRANSACTIONS", "; ".join(x for x in (
        _pairs(trx, [("trx_id_counter", "trx id counter"), ("history_list_length", "history list length"),
                     ("longest_active_s", "longest active s")]),
        f"by state: {states}" if states else "",
        f"{len(trx['lock_waits'])} lock wait(s)" if trx.get("lock_waits") else "") if x))
    fio = d.get("file_io") or {}
    roles: dict[str, int] = {}
    for t in fio.get("io_threads") or []:
        roles[t.get("role") or "?"] = roles.get(t.get("role") or "?", 0) + 1
    out += _line("FILE I/O", "; ".join(x for x in (
        ", ".join(f"{n} {r}" for r, n in roles.items()) + (" I/O threads" if roles else ""),
        _pairs(fio, [("pending_reads", "pending reads"), ("pending_writes", "pending writes"),
                     ("pending_flush_log", "pending log fsyncs"), ("pending_flush_buffer_pool", "pending bp fsyncs")]),
        _pairs(fio, [("os_file_reads", "OS file reads"), ("os_file_writes", "writes"), ("os_fsyncs", "fsyncs"),
                     ("reads_per_s", "reads/s"), ("writes_per_s", "writes/s"), ("fsyncs_per_s", "fsyncs/s")])) if x))
    ib = d.get("insert_buffer") or {}
    out += _line("INSERT BUFFER", _pairs(ib, [("ibuf_size", "ibuf size"), ("ibuf_free_list_len", "free list"),
                                              ("ibuf_seg_size", "seg size"), ("ibuf_merges", "merges"),
                                              ("hash_searches_per_s", "hash searches/s"),
                                              ("non_hash_searches_per_s", "non-hash searches/s")]))
    log = d.get("log") or {}
    age = (log["lsn"] - log["checkpoint_lsn"]) if isinstance(log.get("lsn"), int) and isinstance(
        log.get("checkpoint_lsn"), int) else None
    out += _line("LOG", ", ".join(x for x in (
        _pairs(log, [("lsn", "LSN"), ("flushed_lsn", "flushed up to"), ("checkpoint_lsn", "last checkpoint")]),
        f"checkpoint age {units.bytes_(age)}" if age is not None else "",
        _pairs(log, [("log_ios_per_s", "log i/o's/s")])) if x))
    bp = d.get("buffer_pool") or {}
    pct = dirty_pct(*(bp.get(k) if isinstance(bp.get(k), int) else None
                      for k in ("modified_pages", "database_pages", "free_pages")))
    dirty = f"dirty {units.pct(pct)}" if pct is not None else ""
    out += _line("BUFFER POOL", ", ".join(x for x in (
        _pairs(bp, [("size_pages", "size pages"), ("free_pages", "free"), ("database_pages", "database"),
                    ("modified_pages", "modified")]), dirty,
        _pairs(bp, [("pages_read", "pages read"), ("pages_created", "created"), ("pages_written", "written")]),
        f"hit rate {bp['hit_rate']:.3f}" if isinstance(bp.get("hit_rate"), float) else "") if x))
    row = d.get("row_operations") or {}
    out += _line("ROW OPERATIONS", _pairs(row, [
        ("queries_inside", "queries inside"), ("queries_queued", "queued"), ("read_views", "read views"),
        ("rows_inserted", "rows inserted"), ("rows_updated", "updated"), ("rows_deleted", "deleted"),
        ("rows_read", "read")]))
    for key, label in (("deadlock", "LATEST DEADLOCK"), ("foreign_key_error", "LATEST FK ERROR")):
        if d.get(key):
            out += _line(label, f"at {d[key].get('time') or '?'}" + _deadlock_tail(d[key]))
            out += _deadlock_lines(d[key])
    return out


def _deadlock_tail(dl: dict[str, Any]) -> str:
    trx = dl.get("transactions")
    if not isinstance(trx, list) or not trx:
        return ""
    return (f": {len(trx)} transactions, rolled back ({dl.get('victim') or '?'})"
            + (", section truncated" if dl.get("truncated") else ""))


def _lock_words(lk: dict[str, Any]) -> str:
    return f"{lk.get('mode') or '?'} {lk.get('kind') or '?'} {lk.get('table') or '?'} {lk.get('index') or ''}".rstrip()


def _deadlock_lines(dl: dict[str, Any]) -> list[str]:
    """Each transaction: its thread, statement (one line), the locks held and waited for."""
    out: list[str] = []
    for t in dl.get("transactions") or []:
        if not isinstance(t, dict):
            continue
        stmt = " ".join(str(t.get("statement") or "?").split())[:160]
        out.append(f"    ({t.get('number')}) thread {t.get('thread_id')} {t.get('user') or '?'}@{t.get('host') or '?'}: "
                   f"{stmt}")
        for word, locks in (("holds", t.get("holds")), ("waits", t.get("waits_for"))):
            for lk in locks or []:
                out.append(f"        {word} {_lock_words(lk)}")
    return out


def _mutex_lines(d: dict[str, Any]) -> list[str]:
    rows = d.get("rows") or []
    if not rows:
        return ["  no rows: nothing waited (MariaDB 10.6+ always returns none: use performance_schema "
                "wait/synch instruments instead)"]

    def metric(r: dict[str, Any]) -> int:
        waits = r.get("waits")
        return waits if waits is not None else (r.get("os_waits") or 0)

    ranked = sorted(rows, key=lambda r: -metric(r))
    total = sum(metric(r) for r in rows)
    out = [f"  {len(rows)} latch(es), {_n(total)} waits in all; top {min(TOP, len(rows))} by waits:",
           f"  {'waits':>12} {'share':>6} {'inst':>5}  name / site"]
    for r in ranked[:TOP]:
        label = r["name"] if not r.get("site") or r["site"] == r["name"] else f"{r['name']}: {r['site']}"
        out.append(f"  {_n(metric(r)):>12} {units.share(metric(r) / total if total else None):>6} "
                   f"{r.get('instances', 1):>5}  {label}")
    return out


def _waits_lines(d: dict[str, Any]) -> list[str]:
    rows = d.get("rows") or []
    if not rows:
        return ["  no rows"]
    ranked = sorted(rows, key=lambda r: -(r.get("sum_timer_wait") or 0))
    total = sum(r.get("sum_timer_wait") or 0 for r in rows)
    out = [f"  {len(rows)} event(s), {units.ms(total / 1e9)} waited in all; top {min(TOP, len(rows))} by time:",
           f"  {'total':>8} {'share':>6} {'count':>14} {'avg':>8}  event"]
    for r in ranked[:TOP]:
        t, c = r.get("sum_timer_wait") or 0, r.get("count_star") or 0
        out.append(f"  {units.ms(t / 1e9):>8} {units.share(t / total if total else None):>6} {_n(c):>14} "
                   f"{units.ms(t / c / 1e9) if c else units.NA:>8}  {r['event_name']}")
    return out


def _vars_lines(d: dict[str, Any], keys: tuple[str, ...]) -> list[str]:
    v = d.get("variables") or {}
    lower = {k.lower(): (k, val) for k, val in v.items()}
    out = [f"  {len(v)} variable(s)"]
    for key in keys:
        if key.lower() in lower:
            name, val = lower[key.lower()]
            out.append(f"  {name:<36} {val}")
    return out


def render(path: str, d: dict[str, Any]) -> str:
    kind = d.get("kind", "?")
    lines = [f"== {path}: {_TITLES.get(kind, kind)}"]
    if kind == "innodb_status":
        lines += _status_lines(d)
    elif kind == "innodb_mutex":
        lines += _mutex_lines(d)
    elif kind == "ps_waits":
        lines += _waits_lines(d)
    else:
        lines += _vars_lines(d, _KEY_STATUS if kind == "global_status" else _KEY_VARIABLES)
    return "\n".join(visible(line) for line in lines)
