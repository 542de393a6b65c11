"""Hotspots from P_S, MUTEX and SEMAPHORES: names, kinds, rates, shares, ranking, idle waits out."""

from __future__ import annotations

import pytest

from mysqltop.core.hotspots import (lock_kind, mutex_hotspots, mutex_short_name, name_kind, ps_hotspots,
                                    rank, semaphore_hotspots, short_name)
from mysqltop.core.innodb.model import SemaphoreWait
from mysqltop.core.mutex import MutexRow
from mysqltop.core.waits import WaitRow

MS = 1_000_000_000   # picoseconds per millisecond


def rows(*spec: tuple[str, int, int]) -> dict[str, WaitRow]:
    return {n: WaitRow(n, c, s) for n, c, s in spec}


def test_ps_rates_ms_and_shares_by_wait_time() -> None:
    prev = rows(("wait/synch/mutex/innodb/buf_pool_mutex", 100, 10 * MS),
                ("wait/synch/sxlock/innodb/index_tree_rw_lock", 50, 5 * MS))
    cur = rows(("wait/synch/mutex/innodb/buf_pool_mutex", 300, 70 * MS),        # +200, +60 ms
               ("wait/synch/sxlock/innodb/index_tree_rw_lock", 450, 25 * MS),   # +400, +20 ms
               ("wait/synch/rwlock/sql/MDL_lock::rwlock", 20, 20 * MS))         # new row: prev was 0
    out = ps_hotspots(prev, cur, 2.0)
    assert out is not None
    got = {h.name: h for h in out}
    bp = got["buf_pool_mutex"]
    assert (bp.kind, bp.source, bp.site) == ("mutex", "performance_schema", None)
    assert bp.waits_per_s == 100.0 and bp.wait_ms_per_s == pytest.approx(30.0)
    assert bp.share == pytest.approx(60 / 100)
    assert got["index_tree_rw_lock"].kind == "sxlock"
    assert got["index_tree_rw_lock"].share == pytest.approx(20 / 100)
    assert got["MDL_lock::rwlock"].kind == "rwlock" and got["MDL_lock::rwlock"].waits_per_s == 10.0


def test_ps_idle_cond_waits_are_not_hotspots_nor_in_shares() -> None:
    prev = rows(("wait/synch/cond/mysys/COND_timer", 1, 1))
    cur = rows(("wait/synch/cond/mysys/COND_timer", 68, 18_000 * MS),
               ("wait/synch/mutex/sql/LOCK_table_cache", 10, 4 * MS))
    out = ps_hotspots(prev, cur, 1.0)
    assert out is not None and [h.name for h in out] == ["LOCK_table_cache"]
    assert out[0].share == 1.0


def test_ps_truncate_gives_no_hotspots() -> None:
    prev = rows(("wait/synch/mutex/sql/LOCK_table_cache", 10, 4 * MS))
    assert ps_hotspots(prev, rows(("wait/synch/mutex/sql/LOCK_table_cache", 3, 1 * MS)), 1.0) is None
    assert ps_hotspots(prev, {}, 1.0) is None       # row vanished: its COUNT_STAR went to 0


def test_ps_untimed_instruments_share_by_count() -> None:
    out = ps_hotspots({}, rows(("wait/synch/mutex/innodb/a", 30, 0), ("wait/synch/mutex/innodb/b", 10, 0)), 1.0)
    assert out is not None
    assert [(h.name, h.wait_ms_per_s, h.share) for h in out] == [("a", None, 0.75), ("b", None, 0.25)]


def test_mutex_sums_per_site_uses_os_waits_then_waits_and_skips_shrunk_sites() -> None:
    prev = {("rwlock", "hash0hash.cc:162"): MutexRow("rwlock", "hash0hash.cc:162", waits=100),
            ("rwlock", "dict0dict.cc:2512"): MutexRow("rwlock", "dict0dict.cc:2512", waits=500),
            ("&buf_pool->mutex", None): MutexRow("&buf_pool->mutex", None, os_waits=10, waits=999)}
    cur = {("rwlock", "hash0hash.cc:162"): MutexRow("rwlock", "hash0hash.cc:162", waits=400),
           ("rwlock", "dict0dict.cc:2512"): MutexRow("rwlock", "dict0dict.cc:2512", waits=90),  # evicted
           ("&buf_pool->mutex", None): MutexRow("&buf_pool->mutex", None, os_waits=110, waits=5000),
           ("sum rwlock", "buf0buf.cc:788"): MutexRow("sum rwlock", "buf0buf.cc:788", waits=200)}
    out = {h.name: h for h in mutex_hotspots(prev, cur, 10.0)}
    assert set(out) == {"hash0hash.cc:162", "buf_pool_mutex", "buf0buf.cc:788 (sum)"}
    assert out["hash0hash.cc:162"].waits_per_s == 30.0 and out["hash0hash.cc:162"].kind == "rwlock"
    assert out["hash0hash.cc:162"].site == "hash0hash.cc:162"
    assert out["buf_pool_mutex"].waits_per_s == 10.0 and out["buf_pool_mutex"].kind == "mutex"
    assert out["buf0buf.cc:788 (sum)"].waits_per_s == 20.0
    assert out["hash0hash.cc:162"].share == pytest.approx(30 / 60)
    assert all(h.source == "innodb_mutex" and h.wait_ms_per_s is None for h in out.values())


def test_semaphores_group_by_latch_and_site_with_waiting_threads() -> None:
    waits = [SemaphoreWait(seconds=0, lock="S-lock", created_at="hash0hash.cc:116"),
             SemaphoreWait(seconds=3, lock="X-lock", created_at="hash0hash.cc:116"),
             SemaphoreWait(seconds=241, lock="X-lock", name="&btr_search_latch", created_at="btr0sea.c:139"),
             SemaphoreWait(seconds=1, lock="mutex", name="&kernel_mutex", created_at="srv0srv.c:1018")]
    out = {h.name: h for h in semaphore_hotspots(waits)}
    assert set(out) == {"hash0hash.cc:116", "btr_search_latch", "kernel_mutex"}
    h = out["hash0hash.cc:116"]
    assert (h.kind, h.waiting_threads, h.longest_wait_s, h.share) == ("rwlock", 2, 3, 0.5)
    assert h.waits_per_s is None and h.wait_ms_per_s is None and h.source == "semaphores"
    assert out["btr_search_latch"].site == "btr0sea.c:139" and out["btr_search_latch"].longest_wait_s == 241
    assert out["kernel_mutex"].kind == "mutex"


def test_rank_by_share_then_source_and_cap() -> None:
    ps = ps_hotspots({}, rows(*[(f"wait/synch/mutex/innodb/m{i}", 1, (i + 1) * MS) for i in range(30)]), 1.0)
    assert ps is not None
    sem = semaphore_hotspots([SemaphoreWait(seconds=1, lock="X-lock", created_at="x.cc:1")])
    out = rank(ps, sem)
    assert len(out) == 20
    assert out[0].source == "semaphores"             # share 1.0 of its source
    assert [h.name for h in out[1:4]] == ["m29", "m28", "m27"]
    shares = [h.share for h in out]
    assert shares == sorted(shares, reverse=True)


@pytest.mark.parametrize("name, short", [
    ("&buf_pool->mutex", "buf_pool_mutex"), ("&btr_search_latch", "btr_search_latch"),
    ("/usr/src/mysql/storage/innobase/buf/buf0buf.c:1208", "buf0buf.c:1208"),
    ("'&dict_sys->mutex'", "dict_sys_mutex"),
])
def test_short_names(name: str, short: str) -> None:
    assert short_name(name) == short


def test_kinds() -> None:
    assert mutex_short_name("mutex", "srv0srv.cc:1022") == "srv0srv.cc:1022"
    assert name_kind("&btr_search_latch") == "rwlock"
    assert name_kind("&dict_operation_lock") == "rwlock"
    assert name_kind("&log_sys->mutex") == "mutex"
    assert lock_kind("SX-lock") == "sxlock"
    assert lock_kind("Mutex") == "mutex"
    assert lock_kind(None) == "semaphore"


def test_mysql_57_latch_counter_rows_are_mutexes() -> None:
    # 5.7.8+/8.0 with innodb_monitor_enable='latch': "TRX_SYS | spins=0,waits=5,calls=120" — only
    # mutexes have latch counters (rw-locks are the "rwlock: file:line" instance rows).
    from mysqltop.core.mutex import parse_mutex_rows

    def by_key(status: str):
        return {(r.name, r.site): r for r in parse_mutex_rows([["InnoDB", "TRX_SYS", status]])}

    out = mutex_hotspots(by_key("spins=0,waits=5,calls=120"), by_key("spins=2,waits=25,calls=900"), 2.0)
    assert [(h.name, h.kind, h.waits_per_s) for h in out] == [("TRX_SYS", "mutex", 10.0)]


def test_a_wait_ex_waiter_is_the_same_rwlock_hotspot() -> None:
    # "X-lock (wait_ex) on RW-latch at 0x… created in file buf0buf.cc line 1455": the writer that
    # already reserved the latch waits for readers to leave — same latch, same rwlock kind.
    text = ("--Thread 1 has waited at buf0buf.cc line 3735 for 2.00 seconds the semaphore:\n"
            "X-lock (wait_ex) on RW-latch at 0x7f01 created in file buf0buf.cc line 1455\n"
            "--Thread 2 has waited at btr0cur.cc line 424 for 1.00 seconds the semaphore:\n"
            "S-lock on RW-latch at 0x7f01 created in file buf0buf.cc line 1455\n")
    from mysqltop.core.innodb.model import InnodbStatus
    from mysqltop.core.innodb.line_rules import Context
    from mysqltop.core.innodb.semaphores import parse

    status = InnodbStatus()
    parse(text, status, Context())
    assert lock_kind(status.semaphores.waits[0].lock) == "rwlock"
    out = semaphore_hotspots(status.semaphores.waits)
    assert [(h.name, h.kind, h.waiting_threads, h.share) for h in out] == [("buf0buf.cc:1455", "rwlock", 2, 1.0)]


def test_the_first_sample_counts_totals_ranked_like_rates() -> None:
    """No rates without a second sample, but the counters already say where threads waited."""
    from mysqltop.core.hotspots import counted_totals

    waits = rows(("wait/synch/mutex/innodb/buf_pool_mutex", 300, 70 * MS),
                 ("wait/synch/sxlock/innodb/index_tree_rw_lock", 450, 30 * MS),
                 ("wait/synch/cond/mysys/COND_timer", 68, 18_000 * MS),          # idle: not a hotspot
                 ("wait/io/file/innodb/innodb_data_file", 9, 9 * MS))            # not a latch
    mutex = {("&log_sys->mutex", None): MutexRow("&log_sys->mutex", None, os_waits=40)}
    out = counted_totals(waits, mutex)
    assert [(t.name, t.source) for t in out] == [("log_sys_mutex", "innodb_mutex"),       # as rank() orders rates
                                                 ("buf_pool_mutex", "performance_schema"),
                                                 ("index_tree_rw_lock", "performance_schema")]
    log, bp, tree = out
    assert (bp.waits, bp.wait_ms, bp.share) == (300, pytest.approx(70.0), pytest.approx(0.7))
    assert (log.waits, log.wait_ms, log.share) == (40, None, 1.0)     # shares within each source
    assert tree.waits == 450 and tree.share == pytest.approx(0.3)
    assert counted_totals(None, None) == [] and counted_totals({}, {}) == []
