"""derive(prev, cur) on corpus-derived sample pairs; expected figures computed by hand from the texts."""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from mysqltop.core.derive import STATUS_NAMES, derive
from mysqltop.core.innodb.model import (BufferPool, FileIO, InnodbStatus, IoThreadState, Log, SemaphoreWait,
                                        Semaphores, Transactions)
from mysqltop.core.parsed import ParsedSample, parse_sample
from mysqltop.core.sample import HostSample, RawSample, ServerIdentity, own_statements

CORPUS = Path(__file__).parents[1] / "fixtures" / "corpus"
PERCONA = str(CORPUS / "innodb-status" / "percona-5.5__percona-toolkit__2018_03_05_13_24_55-innodbstatus{}.txt")
LAB = "mariadb-10.11__mysqltop-lab__oltp-rw-32thr"


def parsed(mono: float, **kw: Any) -> ParsedSample:
    return parse_sample(RawSample(wall=1_520_256_296.0 + mono, mono=mono, **kw))


def tsv(path: Path) -> list[list[str]]:
    with path.open(newline="") as f:
        return list(csv.reader(f, delimiter="\t"))[1:]


# --- percona-5.5 pt-secure-collect pair: 13:24:56 → 13:25:26, 30 s apart ----------------------

@pytest.fixture(scope="module")
def percona_frame():
    prev = parsed(100.0, innodb_status=Path(PERCONA.format(1)).read_text(), ps_waits=None)
    cur = parsed(130.0, innodb_status=Path(PERCONA.format(2)).read_text(), ps_waits=None)
    assert not cur.errors, cur.errors
    return derive(prev, cur)


def test_percona_pair_throughput(percona_frame) -> None:
    t = percona_frame.throughput
    assert percona_frame.elapsed == 30.0
    assert t.tps is None and t.qps is None                      # no global status in this capture
    # 2687 numbers taken from the counter; each write transaction takes two (id and trx_no)
    assert t.write_trx_per_s == pytest.approx((0x55D016114 - 0x55D015695) / 2 / 30)
    assert t.rows_read_per_s == pytest.approx((2455341879877 - 2455335965266) / 30)
    # inserted +538, updated +396, deleted +60
    assert t.rows_changed_per_s == pytest.approx((538 + 396 + 60) / 30)


def test_percona_pair_semaphores(percona_frame) -> None:
    s = percona_frame.semaphores
    assert s.os_waits_per_s == pytest.approx((3 + 6 + 1) / 30)         # mutex + RW-shared + RW-excl
    assert s.spin_waits_per_s == pytest.approx((989 + 7 + 1) / 30)
    assert s.spin_rounds_per_s == pytest.approx((555 + 181 + 32) / 30)
    assert (s.waiting_threads, s.longest_wait_s) == (0, 0.0)
    assert percona_frame.sources == ["semaphores"]
    assert percona_frame.hotspots == []


def test_percona_pair_io_and_flush(percona_frame) -> None:
    io, fl = percona_frame.io, percona_frame.flush
    assert [t.role for t in io.threads] == ["insert buffer", "log"] + ["read"] * 4 + ["write"] * 4
    assert (io.pending_reads, io.pending_writes, io.pending_fsyncs) == (0, 0, 0)
    assert io.reads_per_s == 0.0
    assert io.writes_per_s == pytest.approx((648912256 - 648910440) / 30)
    assert io.fsyncs_per_s == pytest.approx((26513623 - 26513529) / 30)
    assert fl.pages_flushed_per_s == pytest.approx((178731580 - 178730753) / 30)
    assert fl.dirty_pages == 576
    assert fl.dirty_pct == pytest.approx(576 / (1439137 + 1) * 100)          # + Free buffers 1
    assert fl.checkpoint_age_bytes == 22611168022484 - 22611157596570 == 10425914
    assert fl.checkpoint_age_pct == pytest.approx(10425914 / 434154333 * 100)    # Percona max age
    assert fl.log_bytes_per_s == pytest.approx((22611168022484 - 22611157035212) / 30)
    assert fl.history_list_length == 5648
    assert fl.ibuf_size_pages == 1                                            # "Ibuf: size 1"


def test_first_sample_has_gauges_but_no_rates() -> None:
    f = derive(None, parsed(0.0, innodb_status=Path(PERCONA.format(1)).read_text()))
    assert f.elapsed is None
    assert f.throughput.write_trx_per_s is None and f.io.writes_per_s is None
    assert f.semaphores.os_waits_per_s is None and f.flush.log_bytes_per_s is None
    assert f.flush.dirty_pages == 578 and f.flush.history_list_length == 5198


# --- MariaDB 10.11 lab capture: P_S + global status, second sample = counters doubled ----------

DOUBLED = ("Uptime", "Com_commit", "Com_rollback", "Questions", "Innodb_data_reads", "Innodb_data_writes",
           "Innodb_data_fsyncs", "Innodb_buffer_pool_pages_flushed", "Innodb_lsn_current", "Rows_read",
           "Handler_write", "Handler_update", "Handler_delete")
PS_NON_IDLE_SUM_PS = 4_669_495_781_718     # Σ SUM_TIMER_WAIT of the 208 non-cond wait/synch rows (awk)


def _doubled_ps(rows: list[list[str]]) -> list[list[Any]]:
    return [[r[0], *(2 * int(v) for v in r[1:3]), *r[3:]] for r in rows]


@pytest.fixture(scope="module")
def lab_frame():
    ps = tsv(CORPUS / "ps-waits" / f"{LAB}.tsv")
    status = {r[0]: r[1] for r in tsv(CORPUS / "global-status" / f"{LAB}.tsv")}
    doubled = {**status, **{k: str(2 * int(status[k])) for k in DOUBLED}}
    server = ServerIdentity(version="10.11.19-MariaDB", flavor="mariadb", address="lab")
    text = (CORPUS / "innodb-status" / f"{LAB}.txt").read_text()
    prev = parsed(0.0, server=server, ps_waits=ps, global_status=status, innodb_mutex=[])
    cur = parsed(18.0, server=server, ps_waits=_doubled_ps(ps), global_status=doubled, innodb_mutex=[],
                 innodb_status=text, variables={"innodb_read_io_threads": "4", "innodb_write_io_threads": "2"})
    return derive(prev, cur)


def test_lab_top_hotspot_by_wait_time(lab_frame) -> None:
    top = lab_frame.hotspots[0]
    assert (top.name, top.kind, top.source) == ("LOCK_table_cache", "mutex", "performance_schema")
    assert top.waits_per_s == pytest.approx(253361 / 18)
    assert top.wait_ms_per_s == pytest.approx(3198718732164 / 1e9 / 18)
    assert top.share == pytest.approx(3198718732164 / PS_NON_IDLE_SUM_PS)
    second = lab_frame.hotspots[1]
    assert (second.name, second.kind) == ("index_tree_rw_lock", "sxlock")
    assert second.share == pytest.approx(799107888362 / PS_NON_IDLE_SUM_PS)
    assert len(lab_frame.hotspots) == 20


def test_lab_idle_cond_waits_excluded(lab_frame) -> None:
    names = {h.name for h in lab_frame.hotspots}
    assert "COND_timer" not in names                     # largest SUM of the capture, but idle
    assert all(h.kind != "cond" for h in lab_frame.hotspots)
    assert lab_frame.sources == ["performance_schema"]
    assert not any("instruments are off" in n for n in lab_frame.notes)


def test_lab_throughput_io_flush_from_status(lab_frame) -> None:
    t, io, fl = lab_frame.throughput, lab_frame.io, lab_frame.flush
    assert t.tps == pytest.approx((7088 + 0) / 18)
    assert t.commits_per_s == pytest.approx(7088 / 18) and t.rollbacks_per_s == 0.0
    assert t.qps == pytest.approx(142084 / 18)
    assert t.threads_running == 14
    assert t.rows_read_per_s == pytest.approx(2961286 / 18)                  # MariaDB Rows_read
    assert t.rows_changed_per_s == pytest.approx((7091 + 14187 + 7091) / 18)  # Handler_write/update/delete
    # MariaDB 10.6+ prints no I/O thread lines: the async pool's slots from the variables
    assert [t.role for t in io.threads] == ["read"] * 4 + ["write"] * 2
    assert (io.pending_reads, io.pending_writes, io.pending_fsyncs) == (0, 0, 0)
    assert io.reads_per_s == pytest.approx(12116 / 18)      # text only in cur → status counters
    assert io.fsyncs_per_s == pytest.approx(2992 / 18)
    # InnoDB's own ratio: modified / (database pages + free buffers), 10670 / (12490 + 3734)
    assert fl.dirty_pages == 10670 and fl.dirty_pct == pytest.approx(10670 / (12490 + 3734) * 100)
    assert fl.free_pct == pytest.approx(3734 / (12490 + 3734) * 100)                     # Free buffers
    assert fl.checkpoint_age_bytes == 282464134 - 271370747
    assert fl.checkpoint_age_pct == pytest.approx((282464134 - 271370747) / 107998618 * 100)
    assert fl.log_bytes_per_s == pytest.approx(282785742 / 18)              # Innodb_lsn_current
    # Innodb_history_list_length first (the status text says 317: the two captures were taken
    # apart): a statement can print a fake TRANSACTIONS head into the status, never into this
    assert fl.history_list_length == 85


def test_ps_truncate_nulls_latch_rates_with_a_note() -> None:
    ps = tsv(CORPUS / "ps-waits" / f"{LAB}.tsv")
    f = derive(parsed(0.0, ps_waits=_doubled_ps(ps)), parsed(1.0, ps_waits=ps))
    assert f.hotspots == []
    assert any("went backwards" in n for n in f.notes)


def test_ps_without_innodb_latches_says_how_to_enable() -> None:
    rows = [["wait/synch/mutex/sql/LOCK_table_cache", "5", "100", "1", "20", "50"]]
    f = derive(None, parsed(0.0, ps_waits=rows))
    assert any("performance-schema-instrument = 'wait/synch/rwlock/innodb/%=ON'" in n for n in f.notes)
    f = derive(None, parsed(0.0, ps_waits=[]))
    assert any("instruments are off" in n and "UPDATE performance_schema.setup_instruments" in n for n in f.notes)


# --- rules every frame follows -----------------------------------------------------------------

def _status_sample(mono: float, uptime: int, commits: int, version: str = "8.0.36") -> ParsedSample:
    return parsed(mono, server=ServerIdentity(version=version), global_status={
        "Uptime": str(uptime), "Com_commit": str(commits), "Com_rollback": "0", "Questions": str(commits * 3)})


def test_restart_gives_null_rates_then_numbers() -> None:
    a, b, c = _status_sample(0, 1000, 50_000), _status_sample(1, 1, 10), _status_sample(2, 2, 110)
    f = derive(a, b)
    assert f.throughput.tps is None and f.throughput.qps is None
    assert any("restarted" in n for n in f.notes)
    assert derive(b, c).throughput.tps == 100.0 and derive(b, c).throughput.qps == 300.0


def test_flush_status_resets_only_the_counter_that_went_back() -> None:
    a = parsed(0, global_status={"Uptime": "100", "Com_commit": "500", "Questions": "9000"})
    b = parsed(2, global_status={"Uptime": "102", "Com_commit": "20", "Questions": "9100"})
    f = derive(a, b)
    assert f.throughput.commits_per_s is None and f.throughput.qps == 50.0


@pytest.mark.parametrize("dt", [0.0, -3.0])
def test_non_positive_dt_gives_null_rates(dt: float) -> None:
    f = derive(_status_sample(10, 100, 100), _status_sample(10 + dt, 101, 200))
    assert f.elapsed is None and f.throughput.tps is None


def test_stale_frame_has_no_numbers_and_carries_errors() -> None:
    raw = RawSample(wall=5.0, mono=5.0, error="read timeout after 0.9 s", errors={"innodb_status": "timeout"},
                    server=ServerIdentity(version="10.11.19", flavor="mariadb", address="db:3306"))
    f = derive(_status_sample(4, 100, 100), ParsedSample(raw))
    assert f.stale and f.errors == {"innodb_status": "timeout", "poll": "read timeout after 0.9 s"}
    assert f.throughput.tps is None and f.host is None and f.hotspots == []
    assert (f.server.flavor, f.server.address) == ("mariadb", "db:3306")


def test_garbage_innodb_text_is_a_noted_error_not_a_crash() -> None:
    f = derive(None, parsed(0.0, innodb_status="\x00garbage\n" * 5, global_status={"Threads_running": "3"}))
    assert f.throughput.threads_running == 3


def test_hand_built_semaphore_waits_and_max_age_from_variables() -> None:
    inno = InnodbStatus(
        semaphores=Semaphores(waits=[SemaphoreWait(seconds=12, lock="X-lock", name="&btr_search_latch",
                                                   created_at="btr0sea.c:139")] * 3),
        log=Log(lsn=5_000, checkpoint_lsn=1_000),
        file_io=FileIO(io_threads=[IoThreadState(3, "read", "waiting for i/o request")],
                       pending_aio_reads=[2, 3], pending_aio_writes=[0, 1], pending_flush_log=1,
                       pending_flush_buffer_pool=2),
        buffer_pool=BufferPool(modified_pages=25, database_pages=100),
        transactions=Transactions(history_list_length=7))
    cur = ParsedSample(RawSample(wall=0, mono=0, variables={"innodb_log_file_size": "1000",
                                                             "innodb_log_files_in_group": "2"}),
                       innodb=inno, variables={"innodb_log_file_size": "1000", "innodb_log_files_in_group": "2"})
    f = derive(None, cur)
    assert (f.semaphores.waiting_threads, f.semaphores.longest_wait_s) == (3, 12)
    h = f.hotspots[0]
    assert (h.name, h.kind, h.source, h.waiting_threads, h.share, h.site) == \
        ("btr_search_latch", "rwlock", "semaphores", 3, 1.0, "btr0sea.c:139")
    assert (f.io.pending_reads, f.io.pending_writes, f.io.pending_fsyncs) == (5, 1, 3)
    assert f.io.threads[0].role == "read"
    assert f.flush.checkpoint_age_bytes == 4_000
    assert f.flush.checkpoint_age_pct == pytest.approx(4_000 / (2_000 * 0.81) * 100)
    assert f.flush.dirty_pct == 25.0 and f.flush.history_list_length == 7


def _host(t: float, busy: float, ctx: int, mysqld: float | None) -> HostSample:
    return HostSample(cpus=4, cpu_times={"user": 10 + busy, "nice": 0, "system": 5 + busy / 2, "idle": 100 + t,
                                         "iowait": 1, "irq": 0, "softirq": 0, "steal": 0, "guest": busy},
                      ctx_switches=ctx, procs_running=6, procs_blocked=0, loadavg=(3.5, 2, 1), mysqld_cpu_s=mysqld)


def test_host_percentages_and_rates() -> None:
    local = ServerIdentity(local=True)
    a = parsed(0, host=_host(0, 0, 1_000, 50.0), server=local)
    b = parsed(2, host=_host(2, 4, 5_000, 53.0), server=local)   # Δ user 4, system 2, idle 2: total 8
    h = derive(a, b).host
    assert h is not None
    assert (h.cpus, h.run_queue, h.load1) == (4, 5, 3.5)       # our own reader thread not counted
    assert h.cpu_user_pct == 50.0 and h.cpu_system_pct == 25.0 and h.cpu_iowait_pct == 0.0
    assert h.ctx_switches_per_s == 2_000.0 and h.mysqld_cpu_pct == 150.0
    remote = derive(parsed(0, host=_host(0, 0, 1, 1.0)), parsed(1, host=_host(1, 1, 2, 2.0))).host
    assert remote is not None and remote.mysqld_cpu_pct is None


# --- property: arbitrary counter pairs never give a negative rate nor an exception -----------

counter = st.one_of(st.integers(min_value=0, max_value=2**64), st.sampled_from(["", "ON", "NULL", "-", "1e5"]))
status_maps = st.dictionaries(st.sampled_from(STATUS_NAMES), counter.map(str), max_size=len(STATUS_NAMES))
EVENTS = ["wait/synch/mutex/innodb/a", "wait/synch/rwlock/sql/b", "wait/synch/cond/sql/c", "wait/io/file/x", "idle"]
ps_rows = st.lists(st.tuples(st.sampled_from(EVENTS), st.integers(0, 10**9), st.integers(0, 10**15))
                   .map(lambda t: [t[0], t[1], t[2], 0, 0, 0]), max_size=6)
MUTEX_NAMES = ["rwlock: hash0hash.cc:162", "&kernel_mutex", "sum rwlock: buf0buf.cc:788"]
mutex_rows = st.lists(st.tuples(st.sampled_from(MUTEX_NAMES), st.integers(0, 10**9))
                      .map(lambda t: ["InnoDB", t[0], f"os_waits={t[1]}"]), max_size=5)
hosts = st.builds(lambda u, c, m, r: HostSample(cpus=2, cpu_times={"user": u, "system": u, "idle": u},
                                                ctx_switches=c, procs_running=r, procs_blocked=0,
                                                loadavg=(0.5, 0, 0), mysqld_cpu_s=m),
                  st.floats(0, 1e6), st.integers(0, 10**12), st.floats(0, 1e6), st.integers(0, 50))


@settings(max_examples=150, deadline=None)
@given(status_maps, status_maps, ps_rows, ps_rows, mutex_rows, mutex_rows, hosts, hosts,
       st.floats(-5, 5, allow_nan=False), st.booleans())
def test_derive_never_negative_never_raises(s0, s1, p0, p1, m0, m1, h0, h1, dt, local) -> None:
    server = ServerIdentity(local=local)
    prev = parsed(100.0, global_status=s0, ps_waits=p0, innodb_mutex=m0, host=h0, server=server)
    cur = parsed(100.0 + dt, global_status=s1, ps_waits=p1, innodb_mutex=m1, host=h1, server=server)
    frame = derive(prev, cur)
    for path, value in _numbers(frame.to_dict()):
        assert not math.isnan(value), path
        assert value >= 0, (path, value)
    for h in frame.hotspots:
        assert h.share is None or 0 <= h.share <= 1 + 1e-9


def _numbers(obj: Any, path: str = "") -> list[tuple[str, float]]:
    if isinstance(obj, dict):
        return [x for k, v in obj.items() if k != "time" for x in _numbers(v, f"{path}.{k}")]
    if isinstance(obj, list):
        return [x for i, v in enumerate(obj) for x in _numbers(v, f"{path}[{i}]")]
    if isinstance(obj, (int, float)) and not isinstance(obj, bool):
        return [(path, float(obj))]
    return []


big = st.one_of(st.none(), st.integers(min_value=0, max_value=2**64))
innodb_states = st.builds(
    lambda a, b, c, d, e, f, g, h, i, j: InnodbStatus(
        sections=["SEMAPHORES", "FILE I/O"],
        semaphores=Semaphores(mutex_os_waits=a, rw_shared_os_waits=b, mutex_spin_waits=c, rw_excl_rounds=d),
        file_io=FileIO(os_file_reads=e, os_fsyncs=f, pending_aio_reads=[0, 1]),
        log=Log(lsn=g, checkpoint_lsn=h, max_checkpoint_age=j),
        buffer_pool=BufferPool(pages_written=i, modified_pages=i, database_pages=j),
        transactions=Transactions(trx_id_counter=g)),
    big, big, big, big, big, big, big, big, big, big)


@settings(max_examples=150, deadline=None)
@given(innodb_states, innodb_states, st.floats(-5, 5, allow_nan=False))
def test_derive_over_innodb_counters_never_negative(i0, i1, dt) -> None:
    prev = ParsedSample(RawSample(wall=0, mono=10.0), innodb=i0)
    cur = ParsedSample(RawSample(wall=0, mono=10.0 + dt), innodb=i1)
    for path, value in _numbers(derive(prev, cur).to_dict()):
        assert value >= 0, (path, value)


def test_row_lock_waits_from_status_and_transactions() -> None:
    a = parsed(0, global_status={"Innodb_row_lock_waits": "100", "Innodb_row_lock_time": "5000",
                                 "Innodb_deadlocks": "1", "Innodb_row_lock_current_waits": "0"})
    b = parsed(4, global_status={"Innodb_row_lock_waits": "300", "Innodb_row_lock_time": "6000",
                                 "Innodb_deadlocks": "3", "Innodb_row_lock_current_waits": "5"})
    lk = derive(a, b).locks
    assert (lk.row_lock_waits_per_s, lk.row_lock_wait_ms_per_s, lk.deadlocks_per_s) == (50.0, 250.0, 0.5)
    assert lk.row_lock_current_waits == 5 and lk.longest_lock_wait_s is None
    # MySQL 8.0: deadlocks from INNODB_METRICS; a 5.1 plugin text with one "TRX HAS BEEN WAITING 22 SEC"
    text = (CORPUS / "innodb-status" / "mysql-5.1-plugin__pmp-nagios__innodb-status-002.txt").read_text()
    c = parsed(0, innodb_metrics={"lock_deadlocks": 7})
    d = parsed(2, innodb_metrics={"lock_deadlocks": 9}, innodb_status=text)
    lk = derive(c, d).locks
    assert (lk.deadlocks_per_s, lk.row_lock_current_waits, lk.longest_lock_wait_s) == (1.0, 1, 22)


def test_rows_read_from_the_handler_counters_a_poll_has() -> None:
    a = parsed(0, global_status={"Handler_read_key": "100", "Handler_read_next": "1000", "Handler_read_rnd_next": "5"})
    b = parsed(2, global_status={"Handler_read_key": "300", "Handler_read_next": "1600", "Handler_read_rnd_next": "5",
                                 "Handler_read_first": "9"})                 # only in b: not counted
    assert derive(a, b).throughput.rows_read_per_s == (200 + 600) / 2


def test_impossible_change_buffer_size_is_dropped() -> None:
    f = derive(None, parsed(0, global_status={"Innodb_ibuf_size": "4355096838145",
                                              "Innodb_buffer_pool_pages_total": "16224"}))
    assert f.flush.ibuf_size_pages is None
    f = derive(None, parsed(0, global_status={"Innodb_ibuf_size": "12", "Innodb_buffer_pool_pages_total": "16224"}))
    assert f.flush.ibuf_size_pages == 12


def _polled(mono: float, questions: int, sent: tuple[str, ...], **errors: str) -> ParsedSample:
    raw = RawSample(wall=1_700_000_000 + mono, mono=mono, global_status={"Questions": str(questions)},
                    timings_ms={k: 0.1 for k in sent}, errors=dict(errors))
    return parse_sample(raw)


def test_own_statements_are_taken_out_of_qps() -> None:
    # Poll: innodb status, P_S, global status (reads Questions), metrics. Between two status reads
    # the monitor sent metrics (prev poll) + status, P_S, global status (this poll) = 4.
    base = ("innodb_status", "ps_waits", "global_status", "innodb_metrics")
    prev, cur = _polled(0.0, 1000, base), _polled(2.0, 1104, base)
    assert own_statements(prev.raw, cur.raw) == 4
    assert derive(prev, cur).throughput.qps == 50.0          # (104 - 4) / 2 s


def test_own_statements_follow_what_was_really_sent() -> None:
    # P_S denied for good: "skipped" means not sent; variables read after status count next time.
    prev = _polled(0.0, 500, ("innodb_status", "global_status", "variables"),
                   ps_waits="skipped: SELECT command denied")
    cur = _polled(1.0, 503, ("innodb_status", "global_status"), ps_waits="skipped: SELECT command denied")
    assert own_statements(prev.raw, cur.raw) == 3
    assert derive(prev, cur).throughput.qps == 0.0


def test_own_statements_never_hide_a_reset_or_go_negative() -> None:
    base = ("innodb_status", "global_status")
    assert derive(_polled(0.0, 900, base), _polled(1.0, 10, base)).throughput.qps is None
    assert derive(_polled(0.0, 900, base), _polled(1.0, 901, base)).throughput.qps == 0.0


def test_mariadb_single_fsync_line_gives_pending_fsyncs_without_status() -> None:
    # MariaDB 10.6+ prints "Pending flushes (fsync): N" (no log/buffer pool split); a text-only
    # sample (e.g. a pasted capture) must still show it.
    text = (CORPUS / "innodb-status" / f"{LAB}.txt").read_text()
    assert derive(None, parsed(0.0, innodb_status=text)).io.pending_fsyncs == 0
    busy = text.replace("Pending flushes (fsync): 0", "Pending flushes (fsync): 3")
    assert derive(None, parsed(0.0, innodb_status=busy)).io.pending_fsyncs == 3


def test_the_monitors_own_rows_are_taken_out_of_rows_read() -> None:
    """MariaDB's Rows_read counts every session's rows, the monitor's own queries too."""
    def at(mono: float, rows: int, own: int | None) -> ParsedSample:
        return parsed(mono, global_status={"Rows_read": str(rows)}, own_rows_read=own)

    assert derive(at(0, 1000, 500), at(2, 1740, 870)).throughput.rows_read_per_s == pytest.approx(185.0)
    assert derive(at(0, 1000, 500), at(2, 1370, 870)).throughput.rows_read_per_s == 0.0      # idle
    # a reconnect (the session counter starts again) or an older recording: uncorrected, as before
    assert derive(at(0, 1000, 500), at(2, 1740, 30)).throughput.rows_read_per_s == pytest.approx(370.0)
    assert derive(at(0, 1000, None), at(2, 1740, 870)).throughput.rows_read_per_s == pytest.approx(370.0)
