"""Polling the throwaway MariaDB: what one RawSample holds, in how many round trips."""

from __future__ import annotations

import os
import threading
import time

import pytest

from mysqltop.sources import lock_reads as locks_src
from mysqltop.sources import poll_statements as stmts_mod
from mysqltop.sources.host import read_host
from mysqltop.sources.live_source import LiveSource
from mysqltop.core.derive import METRIC_NAMES
from mysqltop.sources.mysql import STATUS_NAMES, MySQLSource
from tests.support.load import LoadGenerator, LoadSpec
from tests.support.mariadb import TEST_DB, ThrowawayMariaDB
from tests.support.row_waits import start_row_waiter
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live

NEEDED = ("Com_commit", "Com_rollback", "Questions", "Threads_running", "Threads_connected", "Uptime",
          "Innodb_buffer_pool_pages_dirty", "Innodb_buffer_pool_pages_total", "Innodb_data_pending_reads",
          "Innodb_data_fsyncs", "Innodb_os_log_written", "Innodb_checkpoint_age", "Innodb_history_list_length",
          "Innodb_row_lock_waits", "Innodb_lsn_current", "Table_open_cache_hits")


@pytest.fixture
def source(mariadb: ThrowawayMariaDB):
    src = MySQLSource(mariadb.options(), interval=1.0)
    src.open()
    yield src
    src.close()


def count_round_trips(src: MySQLSource) -> list[int]:
    """Count COM_QUERY packets the connection really sends (independent of our own stats)."""
    calls = [0]
    conn = src.link.conn
    orig = conn._execute_command

    def counting(command, sql):
        calls[0] += 1
        return orig(command, sql)

    conn._execute_command = counting
    return calls


def test_one_poll_holds_every_statement_in_one_round_trip(source: MySQLSource, mariadb) -> None:
    trips = count_round_trips(source)
    s = source.read()
    assert s.error is None and s.errors == {}
    assert trips[0] == 1 and source.stats.round_trips == 1
    # nobody waits for a lock and no transaction is old: neither INNODB_TRX nor the lock-wait join
    # is sent (the lock waits are known to be none; transactions come from the status text)
    # (the statement digests too: their baseline, read at the first poll and every 10 s after)
    assert source.stats.statements == 9 and source.stats.bytes_received > 1000
    assert set(s.timings_ms) == {"innodb_status", "ps_waits", "global_status", "innodb_metrics", "variables",
                                 "server_time", "sessions", "session_states", "digests", "poll"}
    assert s.lock_waits == [] and s.transactions is None
    assert s.sessions == [] and s.session_states is not None
    # the server's own clock, read in the same round trip (the same machine here: the same time)
    assert s.server_time is not None and abs(s.server_time - s.wall) < 5.0
    assert all(v >= 0 for v in s.timings_ms.values())
    # InnoDB status text, whole
    assert "INNODB MONITOR OUTPUT" in s.innodb_status and "END OF INNODB MONITOR OUTPUT" in s.innodb_status
    assert "BUFFER POOL AND MEMORY" in s.innodb_status
    # P_S synch summary: only rows that counted something
    # (name, count, total wait): all derive reads; condition waits are never hotspots, left on the server
    assert s.ps_waits and all(r[0].startswith("wait/synch/") and r[1] > 0 for r in s.ps_waits)
    assert not any(r[0].startswith("wait/synch/cond/") for r in s.ps_waits)
    assert all(len(r) == 3 and all(isinstance(x, int) for x in r[1:]) for r in s.ps_waits)
    # filtered global status: what the frame needs and nothing else
    assert set(NEEDED) <= set(s.global_status) and set(s.global_status) <= set(STATUS_NAMES)
    assert int(s.global_status["Threads_connected"]) >= 1
    # INNODB_METRICS: asked only for what the status variables do not count on MariaDB (the page
    # cleaner's split, off by default: no row, so not asked again for a minute)
    assert s.innodb_metrics is not None and all(isinstance(v, int) for v in s.innodb_metrics.values())
    assert set(s.innodb_metrics) <= set(METRIC_NAMES) - set(stmts_mod.STATUS_HAS_METRICS)
    assert s.variables["innodb_buffer_pool_size"] == str(64 * 1024 * 1024)
    assert s.variables["table_open_cache"] == "400"
    assert s.innodb_mutex is None                    # MariaDB 10.6+: not even asked
    assert (s.server.flavor, s.server.local) == ("mariadb", True)
    assert s.wall > 1.7e9 and s.mono > 0


def test_variables_only_at_start_then_latest_map_carried(source: MySQLSource, mariadb, monkeypatch) -> None:
    first = source.read()
    second = source.read()
    assert "variables" in first.timings_ms and "variables" not in second.timings_ms
    # no lock waits asked: nobody waits; INNODB_METRICS had nothing the status lacks: not asked for a minute
    assert source.stats.statements == 6 and source.stats.round_trips == 1
    assert "innodb_metrics" not in second.timings_ms
    assert second.variables == first.variables and second.variables
    # when due again, a changed setting shows up
    monkeypatch.setattr(stmts_mod, "VARIABLES_EVERY_S", 0.0)
    mariadb.query("SET GLOBAL table_open_cache = 401")
    try:
        third = source.read()
        assert third.variables["table_open_cache"] == "401"
    finally:
        mariadb.query("SET GLOBAL table_open_cache = 400")


def test_status_counts_match_a_known_load(source: MySQLSource, mariadb) -> None:
    gen = LoadGenerator(mariadb.root_kwargs(), LoadSpec(mode="oltp", threads=3, transactions=40,
                                                        rollback_every=4, rows=500))
    gen.prepare()
    before = source.read()
    gen.start()
    done = gen.wait()
    after = source.read()
    assert done.commits == 90 and done.rollbacks == 30 and done.errors == 0
    d = {k: int(after.global_status[k]) - int(before.global_status[k]) for k in ("Com_commit", "Com_rollback")}
    assert d == {"Com_commit": 90, "Com_rollback": 30}
    dq = int(after.global_status["Questions"]) - int(before.global_status["Questions"])
    # the generator's statements + its 3 connections' setup + our own poll statements
    assert done.statements <= dq <= done.statements + 30


def test_failing_statement_does_not_kill_the_others(mariadb: ThrowawayMariaDB) -> None:
    mariadb.query("CREATE USER IF NOT EXISTS 'revoked'@'%' IDENTIFIED BY 'rv-pw'")
    mariadb.query("GRANT PROCESS ON *.* TO 'revoked'@'%'")
    mariadb.query("GRANT SELECT ON performance_schema.* TO 'revoked'@'%'")
    src = MySQLSource(mariadb.options(user="revoked", password="rv-pw"), interval=1.0)
    try:
        assert src.open().performance_schema
        assert src.read().ps_waits
        mariadb.query("REVOKE SELECT ON performance_schema.* FROM 'revoked'@'%'")
        s = src.read()
        assert s.error is None and s.ps_waits is None
        assert "SELECT command denied" in s.errors["ps_waits"]
        assert s.innodb_status and "Com_commit" in s.global_status
        # the refused statement is not sent again, and the sample still says why it is missing
        trips = count_round_trips(src)
        s2 = src.read()
        assert trips[0] == 1 and "ps_waits" not in s2.timings_ms
        assert s2.errors["ps_waits"].startswith("skipped: SELECT command denied")
        assert "Com_commit" in s2.global_status
    finally:
        src.close()


def test_a_slow_poll_is_waited_for_generously(mariadb: ThrowawayMariaDB) -> None:
    """Not answering only after seconds, never below the interval; the socket's own timeout is a
    hard cap far beyond it (a busy server is not cut, so its log gets no "Aborted connection")."""
    for interval, answer in ((0.5, 5.0), (1.0, 5.0), (5.0, 15.0)):
        src = MySQLSource(mariadb.options(), interval=interval)
        assert src.answer_timeout == pytest.approx(answer)
        assert src.read_timeout >= 10 * src.answer_timeout
    assert MySQLSource(mariadb.options(), interval=2.0, answer_timeout=1.0).answer_timeout == 2.0
    assert MySQLSource(mariadb.options(), interval=1.0, answer_timeout=9.0).answer_timeout == 9.0


def test_polls_never_overlap(source: MySQLSource) -> None:
    active, peak = [0], [0]
    orig = source._poll
    guard = threading.Lock()

    def tracking(mono, conn):
        with guard:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        try:
            time.sleep(0.05)
            return orig(mono, conn)
        finally:
            with guard:
                active[0] -= 1

    source._poll = tracking
    results = []
    threads = [threading.Thread(target=lambda: results.append(source.read())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(results) == 4 and all(r.error is None for r in results)
    assert peak[0] == 1


def test_live_source_adds_host_counters(mariadb: ThrowawayMariaDB) -> None:
    src = MySQLSource(mariadb.options(), interval=1.0)
    src.open()
    live = LiveSource(src)
    try:
        s = live.read()
    finally:
        live.close()
    h = s.host
    assert h is not None and s.error is None
    assert h.cpus == os.cpu_count()
    assert set(h.cpu_times) == {"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"}
    assert h.procs_running >= 1 and h.ctx_switches > 0
    assert h.mysqld_threads and h.mysqld_threads > 5     # mariadbd runs many threads
    assert h.mysqld_rss and h.mysqld_rss > 10 * 1024 * 1024 and h.mysqld_cpu_s is not None


def test_read_host_counters_grow() -> None:
    a = read_host(os.getpid())
    t0 = time.process_time()
    while time.process_time() - t0 < 0.05:                 # burn CPU above psutil's 10 ms resolution
        sum(i * i for i in range(10_000))
    b = read_host(os.getpid())
    assert b.ctx_switches >= a.ctx_switches
    assert sum(b.cpu_times.values()) >= sum(a.cpu_times.values())
    assert b.mysqld_cpu_s > a.mysqld_cpu_s and b.mysqld_threads >= 1
    assert read_host(None).mysqld_cpu_s is None
    assert read_host(2**22 + 12345).mysqld_threads is None   # no such process
    assert len(a.loadavg) == 3
    assert a.disk_reads is None or b.disk_reads >= a.disk_reads >= 0


def test_a_new_interval_moves_the_timeouts_on_the_open_connection(source: MySQLSource) -> None:
    assert source.answer_timeout == pytest.approx(5.0)
    source.set_interval(5.0)
    assert source.answer_timeout == pytest.approx(15.0)
    assert source.link.conn._read_timeout == pytest.approx(source.read_timeout)
    assert source.read_timeout >= 150
    assert source.read().error is None


def test_host_counters_are_read_at_the_sample_time_not_after_a_slow_poll(mariadb: ThrowawayMariaDB) -> None:
    # Host rates divide by Δ RawSample.mono (the poll's start): counters read after a poll that
    # took 300 ms would span 1.3 s and be divided by 1 s (mysqld CPU 30 % too high).
    # The poll takes longer than the 0.2 s interval: it is delivered late, not dropped.
    src = MySQLSource(mariadb.options(), interval=0.2)
    src.open()
    slow_poll = src._poll

    def slow(mono: float, conn):  # a poll under contention: SHOW ENGINE INNODB STATUS takes a while
        time.sleep(0.3)
        return slow_poll(mono, conn)

    src._poll = slow
    read_at: list[float] = []

    def host_reader(pid: int | None):
        read_at.append(time.monotonic())
        return read_host(pid)

    live = LiveSource(src, host_reader=host_reader)
    try:
        s = live.read()
    finally:
        live.close()
    assert s.error is None and s.host is not None
    assert abs(read_at[0] - s.mono) < 0.1
    assert s.timings_ms["poll"] >= 300 and s.timings_ms["late"] >= 100


def test_an_empty_mutex_result_is_asked_again_later(source: MySQLSource, monkeypatch) -> None:
    # MySQL/Percona list a latch only once it has waited: an idle server just started returns no
    # rows. Giving up for good after a few empty polls would lose the source for the incident
    # that follows; after the give-up it is asked again every MUTEX_RETRY_S.
    from dataclasses import replace

    source.plan.caps = replace(source.plan.caps, poll_mutex=True)   # as detected on MySQL 8.0
    monkeypatch.setattr(stmts_mod, "MUTEX_RETRY_S", 0.5)
    for _ in range(stmts_mod.MUTEX_GIVE_UP_POLLS):
        assert "innodb_mutex" in source.read().timings_ms
    assert "innodb_mutex" not in source.read().timings_ms       # empty every time: ask less often
    time.sleep(0.6)
    assert "innodb_mutex" in source.read().timings_ms           # … but still ask
    assert "innodb_mutex" not in source.read().timings_ms


def test_an_odd_result_shape_costs_one_sample_not_the_session(source: MySQLSource, monkeypatch) -> None:
    real = source._sample
    calls = {"n": 0}

    def odd_once(wall, mono, host, poll):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 1:
            raise TypeError("int() argument must be a string, not 'NoneType'")
        return real(wall, mono, host, poll)

    monkeypatch.setattr(source, "_sample", odd_once)
    bad, good = source.read(), source.read()
    assert bad.error == "unexpected poll result: TypeError: int() argument must be a string, not 'NoneType'"
    assert good.error is None and good.innodb_status and source.link.conn is not None


def test_an_idle_server_reads_no_rows_the_monitor_did_not_read(source: MySQLSource) -> None:
    """MariaDB counts Rows_read for every session, the monitor's P_S, status and lock queries
    too (~370 rows a poll: "rows r/s 349" on an idle server); the poll reads its own session's
    Rows_read in the same round trip and derive takes it out."""
    from mysqltop.timeline.polled import PolledTimeline

    pipe = PolledTimeline()
    frames = []
    for _ in range(4):
        raw = source.read()
        assert raw.own_rows_read is not None and raw.server_time is not None
        frames.append(pipe.push(raw))
        time.sleep(0.3)
    rates = [f.throughput.rows_read_per_s for f in frames[1:]]
    assert all(r is not None and r < 5.0 for r in rates), rates


def _tmp_tables(mariadb, thread_id: int) -> dict[str, int]:
    """Created_tmp_tables / Created_tmp_disk_tables of one connection, read from another."""
    rows = mariadb.query(
        "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM performance_schema.status_by_thread s "
        "JOIN performance_schema.threads t ON t.THREAD_ID = s.THREAD_ID "
        f"WHERE t.PROCESSLIST_ID = {int(thread_id)} AND VARIABLE_NAME LIKE 'Created_tmp%tables'")
    return {str(k).lower(): int(v) for k, v in rows}


def test_a_poll_through_a_lock_wait_needs_no_temporary_table_of_its_own(source: MySQLSource, mariadb) -> None:
    """Plain bounded reads only: with a real lock wait on the server (both round trips sent), a poll
    makes no on-disk temporary table and no in-memory one beyond those the server fills for the
    information_schema tables it reads (INNODB_METRICS, INNODB_TRX twice, INNODB_LOCK_WAITS,
    INNODB_LOCKS, INNODB_TRX for the transactions, INNODB_TRX for the sessions that may hold the
    lock, INNODB_LOCKS and INNODB_TRX for every lock's holder; the metadata-lock plugin's re-check
    reads LIMIT 0 and fills none): no sort, no grouping, no JSON aggregate. The
    blocking tree still names both sides, and hostile statement text stays data."""
    import pymysql

    from mysqltop.timeline.polled import PolledTimeline

    table = f"{TEST_DB}.plainreads"
    setup = pymysql.connect(**mariadb.root_kwargs(), autocommit=True)
    holder = pymysql.connect(**mariadb.root_kwargs(), autocommit=True)
    waiters = [pymysql.connect(**mariadb.root_kwargs(), autocommit=True) for _ in range(2)]
    threads = []
    try:
        with setup.cursor() as c:
            c.execute(f"CREATE TABLE IF NOT EXISTS {table} (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
            c.execute(f"REPLACE INTO {table} VALUES (1, 0)")
        with holder.cursor() as c:
            c.execute("BEGIN")
            c.execute(f"UPDATE {table} SET v = v + 1 WHERE id = 1")
        for w in waiters:
            threads.append(start_row_waiter(w, f"UPDATE {table} SET v = v + 1 WHERE id = 1 /* \x1b[2J \"q\" \\\\ ünï 🐬 */"))
        assert wait_until(lambda: mariadb.query(
            "SELECT COUNT(*) FROM information_schema.INNODB_LOCK_WAITS")[0][0] >= 2)

        own = source.link.conn.server_thread_id[0]
        source.read()
        before = _tmp_tables(mariadb, own)
        pipe = PolledTimeline()
        raw = source.read()
        after = _tmp_tables(mariadb, own)
        frame = pipe.push(raw)
        assert raw.errors == {} and source.stats.round_trips == 2
        assert {"lock_waits", "transactions", "lock_sessions"} <= set(raw.timings_ms)   # asked: someone waits
        assert after["created_tmp_disk_tables"] == before["created_tmp_disk_tables"]
        assert after["created_tmp_tables"] - before["created_tmp_tables"] <= 9
        assert frame.blocking and frame.blocking[0].blocked == 2 and frame.locks.blocked_sessions == 2
        top = frame.blocking[0]
        assert top.user == "root" and top.waiters[0].user == "root"              # names from P_S threads
        text = top.waiters[0].statement or ""
        assert '\x1b[2J "q" \\\\ ünï' in text
        assert len(raw.transactions) == 3 and raw.transactions[0][2] == "root"
        busy = {tuple(g[:3]) for g in raw.session_states if g[0] == "Query"}
        assert sum(n for _, _, n in busy) >= 2                                    # the two waiters, grouped here
        assert frame.throughput is not None and "Com_commit" in raw.global_status
    finally:
        with holder.cursor() as c:
            c.execute("ROLLBACK")
        for t in threads:
            t.join(timeout=60)
        for conn in (setup, holder, *waiters):
            conn.close()


def test_lock_and_transaction_reads_only_when_one_waits_or_is_old(source: MySQLSource, mariadb, monkeypatch) -> None:
    """INNODB_TRX and the lock-wait join: not sent while no transaction waits and none is old;
    INNODB_TRX once one is old (ACTIVE in the status text); both (one more round trip) as soon
    as one waits, even a waiter younger than the transactions kept, and the blocking tree is
    found."""
    import pymysql

    from mysqltop.timeline.polled import PolledTimeline

    table = f"{TEST_DB}.condwait"
    n_old = locks_src.MAX_TRANSACTIONS + 2
    conns = [pymysql.connect(**mariadb.root_kwargs(), autocommit=True) for _ in range(n_old + 2)]
    olds, holder, waiter = conns[:n_old], conns[n_old], conns[n_old + 1]
    waiting: list[threading.Thread] = []
    try:
        with holder.cursor() as c:
            c.execute(f"CREATE TABLE IF NOT EXISTS {table} (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
            c.execute(f"REPLACE INTO {table} VALUES " + ", ".join(f"({i}, 0)" for i in range(n_old + 1)))
        for i, conn in enumerate(olds):        # older transactions fill the LIMIT of the transactions
            with conn.cursor() as c:
                c.execute("BEGIN")
                c.execute(f"UPDATE {table} SET v = 1 WHERE id = {i + 1}")
        pipe = PolledTimeline()
        calm = source.read()
        assert calm.errors == {} and calm.lock_waits == [] and "lock_waits" not in calm.timings_ms
        assert "transactions" not in calm.timings_ms and calm.transactions is None
        assert source.stats.round_trips == 1 and not pipe.push(calm).blocking
        assert len(pipe.push(source.read()).transactions) == locks_src.MAX_TRANSACTIONS   # from the status text
        monkeypatch.setattr(stmts_mod, "OLD_TRANSACTION_S", 1)
        old = wait_until(lambda: (r := source.read()).transactions is not None and r)
        assert "lock_waits" not in old.timings_ms and old.lock_waits == [] and source.stats.round_trips == 2
        assert len(old.transactions) == locks_src.MAX_TRANSACTIONS and old.transactions[0][2] == "root"
        with holder.cursor() as c:
            c.execute("BEGIN")
            c.execute(f"UPDATE {table} SET v = 2 WHERE id = 0")
            c.execute("SELECT CONNECTION_ID()")
            holder_id = c.fetchone()[0]

        waiting.append(start_row_waiter(waiter, f"UPDATE {table} SET v = 3 WHERE id = 0"))

        def blocked():
            raw = source.read()
            frame = pipe.push(raw)
            return frame.blocking and (raw, frame)
        raw, frame = wait_until(blocked)
        # the waiter is not among the transactions rows (the LIMIT took the older ones) …
        assert len(raw.transactions) == locks_src.MAX_TRANSACTIONS
        assert all(r[4] != "LOCK WAIT" for r in raw.transactions)
        # … and still its lock wait was asked for and found
        assert source.stats.round_trips == 2 and "lock_waits" in raw.timings_ms and raw.errors == {}
        assert frame.blocking[0].thread_id == holder_id and frame.blocking[0].blocked == 1
        assert frame.locks.blocked_sessions == 1
    finally:
        with holder.cursor() as c:
            c.execute("ROLLBACK")
        for t in waiting:
            t.join(60)
        for conn in olds:
            with conn.cursor() as c:
                c.execute("ROLLBACK")
        for conn in conns:
            conn.close()


def test_the_latch_summary_read_short_keeps_what_the_filtered_read_keeps(source: MySQLSource, mariadb) -> None:
    """After its first whole read the poll reads the latch summary up to the first row after the
    latch classes (LIMIT): the same rows as the WHERE it replaced, between one read before the
    poll and one after it (counts only grow)."""
    where = ("SELECT EVENT_NAME FROM performance_schema.events_waits_summary_global_by_event_name WHERE EVENT_NAME "
             "LIKE 'wait/synch/%' AND EVENT_NAME NOT LIKE 'wait/synch/cond/%' AND COUNT_STAR > 0")
    source.read()
    plan = source.plan
    assert plan is not None and plan.latches.classes
    before = {str(n) for (n,) in mariadb.query(where)}
    raw = source.read()
    after = {str(n) for (n,) in mariadb.query(where)}
    assert "LIMIT" in dict(plan.statements(time.monotonic()))["ps_waits"]
    got = {r[0] for r in raw.ps_waits or ()}
    assert before <= got <= after and len(got) > 10
    assert all(int(r[1]) > 0 for r in raw.ps_waits or ())
