"""Diagnosis rules: each fires on a window where its condition holds and stays silent on calm ones.

Latch windows come from real captures pushed through the PolledTimeline: the MariaDB lab P_S
capture (taken 18 s after start, so count/18 is the real per-second rate) and the MySQL 8.0
SHOW ENGINE INNODB MUTEX capture (replayed as growing over 10 s). Gauge windows (pending aio,
checkpoint age) repeat a real SHOW ENGINE INNODB STATUS. Host/spin/purge/fsync windows use
frames with values of the kind those captures show, since no capture carries host counters.
"""

from __future__ import annotations

import csv
import re
from dataclasses import replace
from pathlib import Path

import pytest

from mysqltop.core import innodb as innodb_parser
from mysqltop.core.advice import advise
from mysqltop.core.frame import (ClassShape, Flush, Frame, Host, Hotspot, Io, Pressure, Semaphores, ServerInfo,
                                  Throughput, WaitLoad)
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.core.sample import HostSample, RawSample, ServerIdentity

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"
T0 = 1_767_225_600.0            # 2026-01-01 00:00:00 UTC
MARIADB = ServerIdentity("10.11.19-MariaDB-0+deb12u1", "mariadb", "lab")
MYSQL80 = ServerIdentity("8.0.27", "mysql", "db1")
# The lab capture as if from MySQL: its table cache latch is then MySQL's (instances take effect).
LAB_AS_MYSQL = ServerIdentity("8.0.36", "mysql", "lab")
needs_innodb_parser = pytest.mark.skipif(not hasattr(innodb_parser, "parse_innodb_status"),
                                         reason="InnoDB status parser not built yet")


def _tsv(path: Path) -> list[list[str]]:
    with path.open() as fh:
        return [r for r in csv.reader(fh, delimiter="\t")][1:]


LAB_PS = _tsv(CORPUS / "ps-waits/mariadb-10.11__mysqltop-lab__oltp-rw-32thr.tsv")
LAB_STATUS = dict(r for r in _tsv(CORPUS / "global-status/mariadb-10.11__mysqltop-lab__oltp-rw-32thr.tsv") if len(r) == 2)
LAB_UPTIME = 18
MARIADB_VARS = {"table_open_cache_instances": "8", "table_open_cache": "2000", "performance_schema": "ON",
                "innodb_adaptive_hash_index": "OFF", "innodb_buffer_pool_size": "268435456"}
MUTEX_ROWS = [[c.strip() for c in line.strip().strip("|").split("|")]
              for line in (CORPUS / "innodb-mutex/mysql-8.0__code-index-16949026438__show-engine-innodb-mutex.txt")
              .read_text().splitlines() if line.startswith("| InnoDB")]
MYSQL80_VARS = {"innodb_adaptive_hash_index": "ON", "innodb_adaptive_hash_index_parts": "8"}


def _scaled(value: str, num: int, den: int) -> str:
    return str(int(value) * num // den) if value.isdigit() else value


def lab_window(seconds: int = LAB_UPTIME, calm_at: frozenset[int] = frozenset(), calm_factor: int = 1000,
               variables: dict[str, str] | None = None, server: ServerIdentity = LAB_AS_MYSQL,
               status_override: dict[str, int] | None = None) -> list[Frame]:
    """The lab capture replayed second by second: counters grow by capture/18 each second;
    seconds in `calm_at` grow `calm_factor` times slower (a quiet moment)."""
    pipe, frames, progress = PolledTimeline(), [], 0.0
    for k in range(seconds + 1):
        progress += 0 if k == 0 else (1 / calm_factor if k in calm_at else 1)
        num, den = int(progress * 1000), LAB_UPTIME * 1000
        rows = [[r[0], _scaled(r[1], num, den), _scaled(r[2], num, den), *r[3:]] for r in LAB_PS]
        status = {n: _scaled(v, num, den) for n, v in LAB_STATUS.items()}
        status["Uptime"] = str(k + 1)
        for name, per_s in (status_override or {}).items():
            status[name] = str(int(per_s * progress))
        frames.append(pipe.push(RawSample(wall=T0 + k, mono=float(k), server=server, ps_waits=rows,
                                          global_status=status, variables=variables or MARIADB_VARS)))
    return frames


def mutex_window(seconds: int = 10, variables: dict[str, str] | None = None) -> list[Frame]:
    """The 8.0 mutex capture replayed as accumulating evenly over `seconds`."""
    pipe, frames = PolledTimeline(), []
    for k in range(seconds + 1):
        rows = [[t, n, re.sub(r"\d+", lambda m: str(int(m.group()) * k // seconds), s)] for t, n, s in MUTEX_ROWS]
        frames.append(pipe.push(RawSample(wall=T0 + k, mono=float(k), server=MYSQL80, innodb_mutex=rows,
                                          ps_waits=[], variables=variables or MYSQL80_VARS)))
    return frames


def status_window(name: str, n: int = 10, interval: float = 1.0) -> list[Frame]:
    """One real InnoDB status text polled n times: its gauges (pending IO, checkpoint age) hold."""
    text = (CORPUS / "innodb-status" / name).read_text()
    pipe, frames = PolledTimeline(), []
    for k in range(n):
        status = {"Uptime": str(1000 + k), "Com_commit": str(500 * k), "Com_rollback": "0"}
        frames.append(pipe.push(RawSample(wall=T0 + k * interval, mono=k * interval, innodb_status=text,
                                          global_status=status, ps_waits=[])))
    return frames


def frames_of(n: int, **per_frame) -> list[Frame]:
    """n live frames one second apart; keyword values are callables k → sub-object."""
    out = []
    for k in range(n):
        fields = {"server": ServerInfo("8.0.36", "mysql", "db1"), "sources": ["performance_schema"]}
        out.append(Frame(time=T0 + k + 1, elapsed=1.0, **{**fields, **{attr: make(k) for attr, make in per_frame.items()}}))
    return out


def ids(advice) -> list[str]:
    return [a.id for a in advice]


def one(advice, rule_id: str):
    found = [a for a in advice if a.id == rule_id]
    assert len(found) == 1, ids(advice)
    return found[0]


# --- latch rules on real captures -------------------------------------------------------------

def test_table_cache_fires_on_the_lab_capture_with_measured_share_and_rate() -> None:
    a = one(advise(lab_window(), MARIADB_VARS), "table_cache")
    # 69 % of wait time, but 0.18 thread-equivalents of 13 sessions running: a detail, not an incident
    assert a.severity == "info"
    assert "table_open_cache_instances = 8" in a.message and "raise it (e.g. 16" in a.message
    assert a.evidence.startswith("LOCK_table_cache 69 % of wait time (178 ms/s, 14,076 waits/s) over 18 s "
                                 "(00:00:00–00:00:18); 0.2 thread-equivalents waiting of ")


def test_table_cache_latch_on_mariadb_with_inactive_instances_is_silent() -> None:
    # MariaDB 10.11 lab: Table_open_cache_active_instances 1 of 8 — MariaDB activates the rest
    # itself; raising the variable changed nothing there.
    assert "table_cache" not in ids(advise(lab_window(server=MARIADB), MARIADB_VARS))


def test_table_cache_misses_lead_with_table_open_cache() -> None:
    # 3,700 misses/s of 5,400 opens (MariaDB, table_open_cache = 64, 200 tables)
    v = {**MARIADB_VARS, "table_open_cache": "64"}
    frames = lab_window(server=MARIADB, variables=v, status_override={
        "Table_open_cache_misses": 3_700, "Table_open_cache_hits": 1_700, "Table_open_cache_overflows": 3_690})
    a = one(advise(frames, v), "table_cache_misses")
    assert a.message.startswith("Table cache too small: table_open_cache = 64 — raise it (e.g. SET GLOBAL "
                                "table_open_cache = 2000")
    assert a.evidence.startswith("3,700 misses/s = 69 % of opens, 3,690 overflows/s")
    # each latch with its own figures: never the family's total under one name
    assert "latches: LOCK_table_cache 69 % of wait time (178 ms/s, 14,076 waits/s)" in a.evidence
    assert "table_cache" not in ids(advise(frames, v))


def test_lab_capture_has_no_buffer_pool_or_ahi_advice() -> None:
    # buf_pool_mutex is 3 % of wait time there, and AHI is off on MariaDB by default.
    got = ids(advise(lab_window(), MARIADB_VARS))
    assert got == ["table_cache"]


def test_a_short_burst_is_not_sustained() -> None:
    # Hot for 4 of 18 seconds, quiet (1/1000 of the rate) the rest: no advice.
    quiet = frozenset(range(1, 19)) - {5, 6, 7, 8}
    assert advise(lab_window(calm_at=quiet), MARIADB_VARS) == []


def test_calm_lab_window_is_silent() -> None:
    assert advise(lab_window(calm_at=frozenset(range(1, 19))), MARIADB_VARS) == []


def test_ahi_fires_on_the_80_mutex_capture() -> None:
    a = one(advise(mutex_window(), MYSQL80_VARS), "ahi_latch")
    assert a.severity == "warning"
    assert "innodb_adaptive_hash_index_parts = 8" in a.message and "innodb_adaptive_hash_index = OFF" in a.message
    assert a.evidence.startswith("btr0sea.cc:202 22 % of waits (223 waits/s) over 10 s")


def test_ahi_names_the_percona_partitions_variable_and_respects_ahi_off() -> None:
    percona = {"innodb_adaptive_hash_index": "ON", "innodb_adaptive_hash_index_partitions": "1"}
    a = one(advise(mutex_window(variables=percona), percona), "ahi_latch")
    assert "innodb_adaptive_hash_index = OFF" in a.message
    off = {"innodb_adaptive_hash_index": "OFF"}
    assert "ahi_latch" not in ids(advise(mutex_window(variables=off), off))


def test_80_capture_page_hash_and_block_latches_are_not_a_buffer_pool_verdict() -> None:
    # hash0hash (page hash, 11 %) is below the hot share; "sum rwlock: buf0buf" is hot pages.
    assert "buffer_pool_mutex" not in ids(advise(mutex_window(), MYSQL80_VARS))


def _bp_frames(share: float, n: int = 30) -> list[Frame]:
    return frames_of(n, hotspots=lambda k: [
        Hotspot("buf_pool_mutex", "mutex", "performance_schema", waits_per_s=9_500, wait_ms_per_s=410 * share,
                share=share * 0.8),
        Hotspot("flush_list_mutex", "mutex", "performance_schema", waits_per_s=2_100, wait_ms_per_s=90 * share,
                share=share * 0.2),
        Hotspot("trx_sys_mutex", "mutex", "performance_schema", waits_per_s=800, wait_ms_per_s=60,
                share=1 - share)],
        host=lambda k: Host(cpus=16, run_queue=6, cpu_user_pct=50, cpu_system_pct=10))


def test_buffer_pool_mutex_advises_instances_toward_cores() -> None:
    v = {"innodb_buffer_pool_instances": "1", "innodb_buffer_pool_size": str(32 * 2**30)}
    a = one(advise(_bp_frames(0.55), v), "buffer_pool_mutex")
    assert a.severity == "warning"        # 0.3 thread-equivalents lost: worth tuning, not an incident
    assert "innodb_buffer_pool_instances = 1 on 16 CPUs" in a.message and "e.g. 16" in a.message
    assert a.message.startswith("Buffer pool latch waits (buf_pool_mutex): ")
    # each member with its own figures: buf_pool_mutex's 9,500 waits/s, not the family's 11,600
    assert "buf_pool_mutex 44 % of wait time (226 ms/s, 9,500 waits/s), flush_list_mutex 11 % " in a.evidence


def _tree_frames(ms: float, n: int = 30) -> list[Frame]:
    """16 sessions on 2 cores, the BLOB-rewrite storm's figures (tests/support/latch_storm.py)."""
    shape = "UPDATE shop.docs SET body = ? WHERE id IN (?…"
    return frames_of(n, hotspots=lambda k: [
        Hotspot("index_tree_rw_lock", "sxlock", "performance_schema", waits_per_s=14_000, wait_ms_per_s=ms,
                share=ms / (ms + 50)),
        Hotspot("flush_list_mutex", "mutex", "performance_schema", waits_per_s=590_000, wait_ms_per_s=50,
                share=50 / (ms + 50))],
        host=lambda k: Host(cpus=2, run_queue=3, cpu_user_pct=60, cpu_system_pct=20),
        load=lambda k: WaitLoad(active=16, cpu=1.5, latch=14.5, top=[ClassShape("cpu", shape, 16)]))


def test_an_index_tree_latch_storm_is_named_with_its_statement_and_no_knob() -> None:
    a = advise(_tree_frames(13_000), {})[0]
    assert a.id == "index_tree_latch" and a.severity == "critical"
    assert a.message.startswith("Writes queue on one index's tree latch (index_tree_rw_lock)")
    assert "the statement most sessions run: UPDATE shop.docs SET body = ? WHERE id IN (?…" in a.message
    assert "partition the hot table" in a.message and "SET GLOBAL" not in a.message
    assert "index_tree_rw_lock 100 % of wait time (13,000 ms/s, 14,000 waits/s)" in a.evidence
    # a few ms of tree-latch wait on a busy server is not a finding
    assert "index_tree_latch" not in ids(advise(_tree_frames(2), {}))


def test_an_index_tree_queue_behind_a_full_log_buffer_is_the_log_waits_finding() -> None:
    frames = _tree_frames(13_000)
    frames = [replace(f, pressure=Pressure(log_waits_per_s=12.0)) for f in frames]
    found = ids(advise(frames, {"innodb_log_buffer_size": str(2 * 2**20)}))
    assert "log_waits" in found and "index_tree_latch" not in found


def test_buffer_pool_mutex_on_mariadb_105_plus_knows_there_is_one_pool() -> None:
    frames = [replace(f, server=ServerInfo("10.11.19-MariaDB", "mariadb", "lab")) for f in _bp_frames(0.3)]
    a = one(advise(frames, {"innodb_buffer_pool_size": str(2**30)}), "buffer_pool_mutex")
    assert a.severity == "warning" and "single buffer pool" in a.message


def test_a_pool_with_plenty_free_is_never_told_to_grow() -> None:
    # the held-out run: 55 % of the pool free, and the finding advised a larger pool
    frames = [replace(f, server=ServerInfo("10.11.19-MariaDB", "mariadb", "lab")) for f in _bp_frames(0.3)]
    for f in frames:
        f.flush.free_pct = 55.0
    a = one(advise(frames, {"innodb_buffer_pool_size": str(2**30)}), "buffer_pool_mutex")
    assert "not a larger innodb_buffer_pool_size: 55 % of the pool is free" in a.message
    assert "a larger innodb_buffer_pool_size =" not in a.message
    for f in frames:
        f.flush.free_pct = 2.0                     # a full pool: growing it is the remedy again
    b = one(advise(frames, {"innodb_buffer_pool_size": str(2**30)}), "buffer_pool_mutex")
    assert "a larger innodb_buffer_pool_size = 1073741824 (1 GiB)" in b.message
    for f in frames:
        f.flush.free_pct = 40.0                    # a 6 MB pool: 150 free pages are the cleaner's reserve
    d = one(advise(frames, {"innodb_buffer_pool_size": str(6 * 2**20)}), "buffer_pool_mutex")
    assert "a larger innodb_buffer_pool_size = 6291456 (6 MiB)" in d.message
    mysql = _bp_frames(0.55)
    for f in mysql:
        f.flush.free_pct = 55.0
    c = one(advise(mysql, {"innodb_buffer_pool_instances": "16", "innodb_buffer_pool_size": str(32 * 2**30)}),
            "buffer_pool_mutex")
    assert "already at its useful maximum" in c.message and "not a larger innodb_buffer_pool_size" in c.message


@needs_innodb_parser
def test_pending_reads_with_a_free_pool_do_not_ask_for_a_larger_one() -> None:
    frames = status_window("mysql-5.0or5.1__percona-toolkit__innodb-status.004.txt")
    assert "a larger innodb_buffer_pool_size means fewer reads" in one(
        advise(frames, {"innodb_read_io_threads": "4"}), "pending_aio_reads").message
    for f in frames:
        f.flush.free_pct = 55.0
    a = one(advise(frames, {"innodb_read_io_threads": "4"}), "pending_aio_reads")
    assert "the pool is not short of memory (55 % free)" in a.message and "means fewer reads" not in a.message


def test_buffer_pool_quiet_share_is_silent() -> None:
    assert advise(_bp_frames(0.1), {"innodb_buffer_pool_instances": "1"}) == []


# --- gauges from real InnoDB status captures --------------------------------------------------

@needs_innodb_parser
def test_pending_aio_reads_from_a_real_status_with_48_pending() -> None:
    frames = status_window("mysql-5.0or5.1__percona-toolkit__innodb-status.004.txt")
    a = one(advise(frames, {"innodb_read_io_threads": "4"}), "pending_aio_reads")
    assert a.severity == "warning" and "innodb_read_io_threads = 4" in a.message
    assert "pending reads avg 48, peak 48" in a.evidence


@needs_innodb_parser
def test_ahi_from_semaphores_of_a_real_51_status() -> None:
    # 5.0/5.1 wait array: 7 of 8 waiting threads on the btr_search_latch created at btr0sea.c:139.
    frames = status_window("mysql-5.0or5.1__percona-toolkit__innodb-status.004.txt")
    a = one(advise(frames, {}), "ahi_latch")
    assert a.severity == "critical" and "cannot partition" in a.message
    assert a.evidence.startswith("btr0sea.c:139 88 % of waiting threads, 7 threads waiting avg")


@needs_innodb_parser
def test_pending_aio_silent_on_a_status_with_one_pending_read() -> None:
    frames = status_window("percona-5.1__pmp-cacti__innodb-002.txt")
    assert not [i for i in ids(advise(frames, {})) if i.startswith("pending_aio")]


@needs_innodb_parser
def test_checkpoint_age_from_a_real_status_at_86_percent() -> None:
    frames = status_window("percona-5.1__pmp-cacti__innodb-002.txt")
    for f in frames:                  # redo written fast enough to fill the log in minutes
        f.flush.log_bytes_per_s = 5 * 2**20
    v = {"innodb_log_file_size": str(512 * 2**20), "innodb_log_files_in_group": "2", "innodb_io_capacity_max": "2000"}
    a = one(advise(frames, v), "checkpoint_age")
    assert a.severity == "warning"
    assert "innodb_log_file_size = 512 MiB × 2 files" in a.message and "innodb_io_capacity_max = 2000" in a.message
    assert "checkpoint age avg 86 %" in a.evidence


def _checkpoint_frames(flushed: float, paced: float | None = None, forced: float | None = None) -> list[Frame]:
    frames = status_window("percona-5.1__pmp-cacti__innodb-002.txt")
    for f in frames:
        f.flush.log_bytes_per_s = 5 * 2**20
        f.flush.pages_flushed_per_s, f.flush.paced_flushed_per_s, f.flush.sync_flushed_per_s = flushed, paced, forced
    return frames


REDO_96M = {"innodb_log_file_size": str(96 * 2**20)}


@needs_innodb_parser
def test_flushing_held_to_io_capacity_names_it_before_the_redo_log() -> None:
    # MariaDB 10.11 measured: io_capacity 100 / max 200, 96 MB redo: 65 pages/s, age pinned at 88 %
    a = one(advise(_checkpoint_frames(65.0), {**REDO_96M, "innodb_io_capacity": "100",
                                               "innodb_io_capacity_max": "200"}), "checkpoint_age")
    assert a.message.startswith("Flushing is held to the configured IO capacity: innodb_io_capacity = 100 — raise")
    assert "innodb_io_capacity_max = 200" in a.message and "innodb_log_file_size" not in a.message
    assert a.evidence.startswith("65 pages flushed/s against innodb_io_capacity = 100")
    assert "the redo log holds 162 s of writes" in a.evidence
    # the held-out run: paced flushing at the cap (~107/s), the rest forced by the full redo log
    b = one(advise(_checkpoint_frames(420.0, 107.0, 313.0), {**REDO_96M, "innodb_io_capacity": "100",
                                                              "innodb_io_capacity_max": "200"}), "checkpoint_age")
    assert b.message.startswith("Flushing is held to the configured IO capacity: innodb_io_capacity = 100")
    assert "(107 paced by the page cleaner, 313 forced by the full redo log)" in b.evidence
    # a starved box: the log fills in ~10 s while flushing sits at innodb_io_capacity_max
    pinned = _checkpoint_frames(209.0)
    for f in pinned:
        f.flush.log_bytes_per_s = 81 * 2**20
    c = one(advise(pinned, {**REDO_96M, "innodb_io_capacity": "100", "innodb_io_capacity_max": "200"}),
            "checkpoint_age")
    assert c.message.startswith("Flushing is held to the configured IO capacity: innodb_io_capacity = 100")
    assert c.evidence.startswith("209 pages flushed/s, near innodb_io_capacity_max = 200")
    assert "the redo log holds 10.0 s of writes" in c.evidence, c.evidence
    # a busy box: adaptive flushing between the capacity and its ceiling (157/s, 0.79 of the max),
    # 4.5 MiB/s of redo into a log that holds 17 s of it
    climbing = _checkpoint_frames(157.0)
    for f in climbing:
        f.flush.log_bytes_per_s = 4.5 * 2**20
    d = one(advise(climbing, {**REDO_96M, "innodb_io_capacity": "100", "innodb_io_capacity_max": "200"}),
            "checkpoint_age")
    assert d.message.startswith("Flushing is held to the configured IO capacity: innodb_io_capacity = 100"), d
    assert d.evidence.startswith("157 pages flushed/s, near innodb_io_capacity_max = 200"), d.evidence


@needs_innodb_parser
def test_a_small_redo_log_flushing_past_its_io_capacity_still_says_redo() -> None:
    # MariaDB 10.11 measured: 8 MB redo at io_capacity 200 / max 2000: 375 pages/s, bursts to 2,400
    v = {"innodb_log_file_size": str(8 * 2**20), "innodb_io_capacity": "200", "innodb_io_capacity_max": "2000"}
    a = one(advise(_checkpoint_frames(375.0), v), "checkpoint_age")
    assert a.message.startswith("Checkpoint age near its maximum: the redo log is too small")
    b = one(advise(_checkpoint_frames(375.0, 230.0, 145.0), v), "checkpoint_age")
    assert b.message.startswith("Checkpoint age near its maximum: the redo log is too small")
    # flushing at its capacity, but the redo log holds only ~7 s of writes: the log is what is small
    fast = _checkpoint_frames(65.0)
    for f in fast:
        f.flush.log_bytes_per_s = 120 * 2**20
    d = one(advise(fast, {**REDO_96M, "innodb_io_capacity": "100"}), "checkpoint_age")
    assert d.message.startswith("Checkpoint age near its maximum: the redo log is too small")
    # saturated storage: more IO capacity would not be written either
    frames = [replace(f, host=Host(cpu_iowait_pct=60.0)) for f in _checkpoint_frames(65.0)]
    for f in frames:
        f.io.pending_writes, f.io.pending_fsyncs = 12, 1
    c = one(advise(frames, {**REDO_96M, "innodb_io_capacity": "100"}), "checkpoint_age")
    assert c.message.startswith("Checkpoint age near its maximum")


@needs_innodb_parser
def test_iowait_of_other_processes_does_not_hide_a_capped_io_capacity() -> None:
    """Host iowait 35 % (another process's IO on a shared box) while the server queues no write:
    flushing is still paced by innodb_io_capacity, which is named first, not the redo log."""
    frames = [replace(f, host=Host(cpu_iowait_pct=35.0)) for f in _checkpoint_frames(65.0)]
    for f in frames:
        f.io.pending_writes, f.io.pending_fsyncs = 0, 0
    a = one(advise(frames, {**REDO_96M, "innodb_io_capacity": "100", "innodb_io_capacity_max": "200"}),
            "checkpoint_age")
    assert a.message.startswith("Flushing is held to the configured IO capacity: innodb_io_capacity = 100"), a


@needs_innodb_parser
def test_checkpoint_age_left_over_on_an_idle_server_is_not_a_small_redo_log() -> None:
    # the same 86 % age with 1.8 KiB/s of redo (idle after a bulk load): a leftover, not a cause
    frames = status_window("percona-5.1__pmp-cacti__innodb-002.txt")
    for f in frames:
        f.flush.log_bytes_per_s = 1843
    assert "checkpoint_age" not in ids(advise(frames, {"innodb_log_file_size": str(512 * 2**20)}))


@needs_innodb_parser
def test_checkpoint_age_silent_at_73_percent() -> None:
    frames = status_window("percona-5.5__innotop__innodb-status-007.txt")
    assert "checkpoint_age" not in ids(advise(frames, {}))


@needs_innodb_parser
def test_calm_percona_series_gives_no_warning() -> None:
    # Five real captures of one quiet Percona 5.5 server, 30 s apart.
    names = sorted(p.name for p in (CORPUS / "innodb-status").glob("percona-5.5__percona-toolkit__2018*"))
    pipe, frames = PolledTimeline(), []
    for k, name in enumerate(names):
        raw = RawSample(wall=T0 + 30 * k, mono=30.0 * k, innodb_status=(CORPUS / "innodb-status" / name).read_text(),
                        global_status={"Uptime": str(10_000 + 30 * k)}, ps_waits=[])
        frames.append(pipe.push(raw))
    assert [a.id for a in advise(frames, {"innodb_flush_log_at_trx_commit": "1"}) if a.severity != "info"] == []


# --- host, spin, purge, fsync, change buffer --------------------------------------------------

def _cpu_frames(mysqld_pct: float, running: float, row_lock_ms: float = 0.0, cpus: int = 16) -> list[Frame]:
    from mysqltop.core.frame import Locks
    return frames_of(60, host=lambda k: Host(cpus=cpus, run_queue=38 + k % 5, cpu_user_pct=82, cpu_system_pct=14,
                                             mysqld_cpu_pct=mysqld_pct),
                     throughput=lambda k: Throughput(tps=2_000, threads_running=running + 1),
                     locks=lambda k: Locks(row_lock_wait_ms_per_s=row_lock_ms))


def test_cpu_saturation_attributed_to_mysqld_with_sessions_competing() -> None:
    a = one(advise(_cpu_frames(1_450, 44), {"innodb_thread_concurrency": "0"}), "cpu_saturation")
    assert a.severity == "critical"
    assert a.message.startswith("CPU saturated by mysqld (14 of 16 cores): cap how many run at once: "
                                "innodb_thread_concurrency = 0 → about 2× cores (e.g. 32; dynamic)")
    assert a.evidence.startswith("mysqld used 14 of 16 cores (91 %), host CPU busy avg 96 %; 44 sessions "
                                 "running, ≈ 14 on a CPU, 0 waiting on row locks / commits")


def test_cpu_saturation_with_few_sessions_names_the_costly_statements_not_a_thread_pool() -> None:
    a = one(advise(_cpu_frames(1_500, 17), {}), "cpu_saturation")
    assert "events_statements_summary_by_digest" in a.message and "thread" not in a.message.split(":")[1]


def test_busy_host_not_caused_by_mysqld_or_sessions_asleep_on_locks_is_no_cpu_finding() -> None:
    assert "cpu_saturation" not in ids(advise(_cpu_frames(300, 44), {}))        # another process eats the CPUs
    # 16 sessions, 12 of them always blocked on a hot row: the row-lock finding speaks, not a thread pool
    got = advise(_cpu_frames(1_100, 16, row_lock_ms=12_000), {})
    assert "cpu_saturation" not in ids(got) and "row_lock_waits" in ids(got)
    remote = frames_of(60, host=lambda k: Host(cpus=16, run_queue=40, cpu_user_pct=95),
                       throughput=lambda k: Throughput(threads_running=44))
    assert advise(remote, {}) == []                                              # mysqld not on this host


def _spin_frames(busy: float) -> list[Frame]:
    # RW-excl in the Percona 5.5 capture spins 50.86 rounds per wait; here at a busy rate.
    return frames_of(30, semaphores=lambda k: Semaphores(spin_waits_per_s=240_000, spin_rounds_per_s=12_200_000),
                     host=lambda k: Host(cpus=32, run_queue=20, cpu_user_pct=busy - 10, cpu_system_pct=10))


def test_spin_wait_with_busy_cpu() -> None:
    a = one(advise(_spin_frames(94), {"innodb_spin_wait_delay": "6", "innodb_sync_spin_loops": "30"}), "spin_wait")
    assert "innodb_spin_wait_delay = 6" in a.message and "innodb_sync_spin_loops = 30" in a.message
    assert "51 spin rounds per spin wait, 240,000 spin waits/s, CPU busy avg 94 %" in a.evidence


def test_spin_wait_silent_when_cpu_has_room() -> None:
    assert "spin_wait" not in ids(advise(_spin_frames(45), {}))


def _purge_frames(hll_step: int, drops: tuple[int, ...], holder: object = None, n: int = 90) -> list[Frame]:
    return frames_of(n, flush=lambda k: Flush(history_list_length=150_000 + hll_step * k),
                     throughput=lambda k: Throughput(tps=300.0 if k in drops else 2_400.0 + (k % 7) * 20),
                     transactions=lambda k: [holder] if holder is not None else [])


def _holder(age: float, read_view: bool | None = True):
    from mysqltop.core.blocking import Transaction
    return Transaction(trx_id="421", thread_id=1234, user="app", host="10.0.0.5", state="RUNNING", age_s=age,
                       read_view=read_view, statement="SELECT COUNT(*) FROM orders", confirmed=True)


def test_purge_lag_behind_an_open_read_view_names_the_transaction_first() -> None:
    # MariaDB 10.11 measured: one consistent snapshot + 8 updaters, history +3.5k/s
    frames = [replace(f, server=ServerInfo("10.11.19-MariaDB", "mariadb", "lab"))
              for f in _purge_frames(3_500, (), holder=_holder(142))]
    a = one(advise(frames, {"innodb_purge_threads": "4"}), "purge_lag")
    assert a.message.startswith("Purge is held back by an old transaction: thread 1234, app@10.0.0.5, open 142 s, "
                                "read view — KILL 1234 or commit it")
    assert "innodb_purge_threads" not in a.message
    assert "trend +3,500/s" in a.evidence and "oldest transaction 421 (RUNNING, 142 s, read view" in a.evidence


def test_purge_evidence_for_a_read_only_transaction_names_its_thread_not_id_0() -> None:
    """INNODB_TRX gives a read-only transaction the id 0: no "oldest transaction 0"."""
    from dataclasses import replace

    frames = _purge_frames(3_500, (), holder=replace(_holder(142), trx_id="0"))
    a = one(advise(frames, {"innodb_purge_threads": "4"}), "purge_lag")
    assert "oldest transaction 0" not in a.evidence
    assert "oldest transaction of thread 1234, read-only with no transaction id (RUNNING, 142 s, read view" in a.evidence


def test_purge_early_hint_names_the_holder_long_before_ten_thousand() -> None:
    """A read view held two minutes while the history climbs to 5,000: a labelled early hint with
    the holder, not silence; purge_lag itself waits for 10,000."""
    frames = frames_of(120, flush=lambda k: Flush(history_list_length=200 + 40 * k),
                       throughput=lambda k: Throughput(tps=500.0), transactions=lambda k: [_holder(k + 1)])
    got = advise(frames, {}, min_span_s=None)
    assert "purge_lag" not in ids(got)
    a = one(got, "purge_early")
    assert a.severity == "info" and a.message.startswith("Early hint — purge is starting to fall behind an old "
                                                         "transaction: thread 1234, app@10.0.0.5, open 120 s, read view")
    assert "KILL 1234 or commit it" in a.message and "purge_lag is reported from 10,000" in a.message
    assert "history list 200 → 4,960 (trend +40/s" in a.evidence and "over 120 s" in a.evidence


def test_purge_early_hint_needs_an_old_view_a_steady_climb_and_a_span() -> None:
    climb = lambda k: Flush(history_list_length=200 + 40 * k)  # noqa: E731
    young = frames_of(120, flush=climb, transactions=lambda k: [_holder(20)])
    flat = frames_of(120, flush=lambda k: Flush(history_list_length=3_000), transactions=lambda k: [_holder(k + 1)])
    jump = frames_of(120, flush=lambda k: Flush(history_list_length=200 if k < 100 else 5_000),
                     transactions=lambda k: [_holder(k + 1)])
    short = frames_of(40, flush=climb, transactions=lambda k: [_holder(k + 100)])
    no_view = frames_of(120, flush=climb, transactions=lambda k: [_holder(k + 1, read_view=False)])
    for frames in (young, flat, jump, short, no_view):
        assert "purge_early" not in ids(advise(frames, {}, min_span_s=None))


def _hidden_view_frames(isolation: str, restart_at: int | None = None) -> list[Frame]:
    """The holder's view shows on the server's own lines early on, then other sessions' text
    hides its entry (read_view None) from sample 55 on."""
    from dataclasses import replace

    def trx(k: int) -> list:
        start = restart_at if restart_at is not None and k >= restart_at else -60
        return [replace(_holder(k - start, True if k < 55 else None), isolation=isolation)]
    return frames_of(90, flush=lambda k: Flush(history_list_length=150_000 + 3_500 * k),
                     throughput=lambda k: Throughput(tps=2_400.0), transactions=trx)


def test_purge_lag_keeps_a_repeatable_read_view_seen_earlier_in_the_window() -> None:
    a = one(advise(_hidden_view_frames("REPEATABLE READ"), {}), "purge_lag")
    assert "read view — KILL 1234 or commit it" in a.message
    # a READ COMMITTED view lives for one statement: what it held then says nothing now
    b = one(advise(_hidden_view_frames("READ COMMITTED"), {}), "purge_lag")
    assert "KILL" not in b.message and "check first that it holds a read view" in b.message
    # same thread and id, but a transaction begun since: not the one whose view was seen
    c = one(advise(_hidden_view_frames("REPEATABLE READ", restart_at=55), {}), "purge_lag")
    assert "KILL" not in c.message


def test_purge_lag_without_an_old_view_names_purge_threads() -> None:
    a = one(advise(_purge_frames(8_000, (20, 21, 50, 80)), {"innodb_purge_threads": "4"}), "purge_lag")
    assert a.severity == "warning" and "no old read view" in a.message and "innodb_purge_threads = 4" in a.message
    assert "needs a restart" in a.message                                  # MySQL
    assert "history list 150,000 → 862,000" in a.evidence and "+8,000/s" in a.evidence
    assert "3 TPS drops below 50 % of the TPS just before" in a.evidence and "(00:00:21, 00:00:51, 00:01:21)" in a.evidence
    # a young read view is normal traffic, not the holder
    b = one(advise(_purge_frames(8_000, (20, 21, 50, 80), holder=_holder(2)), {}), "purge_lag")
    assert "KILL" not in b.message


def test_purge_silent_without_growth_or_without_drops() -> None:
    assert "purge_lag" not in ids(advise(_purge_frames(0, (20, 50, 80), holder=_holder(300)), {}))
    assert "purge_lag" not in ids(advise(_purge_frames(8_000, ()), {}))


def _commit_frames(server: ServerInfo, binlog: bool, latches: list[tuple[str, float, float]],
                   trx_per_s: float = 5_674, groups: float | None = 2_166, redo_fsyncs: float | None = None,
                   running: float = 2) -> list[Frame]:
    """Commit-path frames with figures measured on MariaDB 10.11 (4 autocommit INSERT threads,
    log_bin, sync_binlog = 1, innodb_flush_log_at_trx_commit = 1): 2,837 binlog commits/s in
    2,166 groups, LOG::LOCK_log 97.7 % of wait time (397 ms/s, 2,163 waits/s)."""
    total = sum(ms for _, _, ms in latches) or 1.0
    return frames_of(30, server=lambda k: server,
                     throughput=lambda k: Throughput(write_trx_per_s=trx_per_s, threads_running=running + 1,
                                                     binlog_commits_per_s=trx_per_s / 2 if binlog else None,
                                                     binlog_group_commits_per_s=groups,
                                                     redo_fsyncs_per_s=redo_fsyncs),
                     io=lambda k: Io(fsyncs_per_s=groups or redo_fsyncs),
                     hotspots=lambda k: [Hotspot(n, "mutex", "performance_schema", waits_per_s=w, wait_ms_per_s=ms,
                                                 share=ms / total) for n, w, ms in latches])


MARIADB_COMMIT = [("LOCK_log", 2_163, 396.5), ("index_tree_rw_lock", 5_828, 2.2), ("LOCK_commit_ordered", 2_163, 3.0)]


def test_commit_path_on_mariadb_binlog_names_the_redo_knob_first_then_sync_binlog_with_costs() -> None:
    v = {"innodb_flush_log_at_trx_commit": "1", "sync_binlog": "1", "log_bin": "ON"}
    maria = ServerInfo("10.11.19-MariaDB", "mariadb", "lab")
    a = one(advise(_commit_frames(maria, True, MARIADB_COMMIT), v), "commit_path")
    assert a.message.startswith("Commits wait on log fsyncs (innodb_flush_log_at_trx_commit = 1, sync_binlog = 1): "
                                "innodb_flush_log_at_trx_commit = 2 (dynamic)")
    assert a.message.index("~1 s of commits") < a.message.index("Then sync_binlog = 0")
    assert "replicas and point-in-time recovery" in a.message
    # redo already relaxed: the binary log's fsync is what is left
    b = one(advise(_commit_frames(maria, True, MARIADB_COMMIT), {**v, "innodb_flush_log_at_trx_commit": "2"}),
            "commit_path")
    assert b.message.startswith("Commits wait on the binary log fsync (sync_binlog = 1, "
                                "innodb_flush_log_at_trx_commit = 2): sync_binlog = 0 (dynamic)")
    assert "binlog_commit_wait_count" in a.message                        # MariaDB's durable alternative
    assert a.evidence.startswith("2,837 write transactions/s (autocommit included), 2,166 binlog group "
                                 "commits/s = 1.3 commits per group")
    assert re.search(r"commit latches: LOCK_log 9\d % of wait time \(396 ms/s, 2,163 waits/s\)", a.evidence)


def test_commit_path_on_mysql_80_without_binlog_names_the_redo_knob() -> None:
    # MySQL 8.0: no Binlog_commits, write transactions from the trx id counter, redo fsyncs from
    # Innodb_os_log_fsyncs, the redo log's own latches (log_writer / log_flusher) by name.
    v = {"innodb_flush_log_at_trx_commit": "1", "sync_binlog": "1", "log_bin": "OFF"}
    latches = [("log_flusher_mutex", 900, 300.0), ("log_writer_mutex", 900, 120.0), ("trx_sys_mutex", 300, 20.0)]
    a = one(advise(_commit_frames(ServerInfo("8.0.36", "mysql", "db1"), False, latches, trx_per_s=1_800,
                                  groups=None, redo_fsyncs=1_700), v), "commit_path")
    assert a.message.startswith("Commits wait on log fsyncs (innodb_flush_log_at_trx_commit = 1): "
                                "innodb_flush_log_at_trx_commit = 2 (dynamic)")
    assert "binlog_group_commit_sync_delay" in a.message and "sync_binlog = 0" not in a.message
    assert "1,800 write transactions/s" in a.evidence and "0.9 redo fsyncs per commit" in a.evidence


def test_commit_path_silent_when_commits_do_not_fsync_or_do_not_wait() -> None:
    maria = ServerInfo("10.11.19-MariaDB", "mariadb", "lab")
    relaxed = {"innodb_flush_log_at_trx_commit": "2", "sync_binlog": "0", "log_bin": "ON"}
    assert "commit_path" not in ids(advise(_commit_frames(maria, True, MARIADB_COMMIT), relaxed))
    durable = {"innodb_flush_log_at_trx_commit": "1", "sync_binlog": "1", "log_bin": "ON"}
    spread = [("LOCK_log", 300, 3.0), ("MDL_lock::rwlock", 30_000, 90.0), ("LOCK_table_cache", 12_000, 60.0)]
    assert "commit_path" not in ids(advise(_commit_frames(maria, True, spread), durable))


def test_commit_path_counts_the_group_commit_followers_waiting_with_their_leader() -> None:
    # MariaDB 10.11, 16 autocommit writers, log syncs 20 ms: LOCK_log (the next group's leader)
    # 563 ms/s = 0.6 thread of 15 running, but every commit waits out a leader's hold: ≥ 3.3 threads.
    maria = ServerInfo("10.11.19-MariaDB", "mariadb", "lab")
    durable = {"innodb_flush_log_at_trx_commit": "1", "sync_binlog": "1", "log_bin": "ON"}
    slow = [("LOG::LOCK_log", 35, 563.0), ("LOCK_commit_ordered", 35, 1.0)]
    a = one(advise(_commit_frames(maria, True, slow, trx_per_s=340, groups=35, running=14.8), durable),
            "commit_path")
    assert a.severity == "warning"
    assert "3.3 thread-equivalents waiting on commit of 15 sessions running" in a.evidence
    # a CPU-starved host: LOCK_log the top latch, yet 0.1 ms per group is a sliver of 15 sessions
    starved = [("LOG::LOCK_log", 600, 45.0), ("LOCK_commit_ordered", 600, 1.0)]
    assert "commit_path" not in ids(advise(_commit_frames(maria, True, starved, trx_per_s=1_400, groups=600,
                                                          running=14.8), durable))


def test_change_buffer_large_share_of_the_pool() -> None:
    v = {"innodb_buffer_pool_size": str(16 * 2**30), "innodb_change_buffer_max_size": "25"}
    frames = frames_of(30, flush=lambda k: Flush(ibuf_size_pages=300_000))
    a = one(advise(frames, v), "change_buffer")
    assert "innodb_change_buffer_max_size = 25" in a.message
    assert "300,000 pages (29 % of a 1,048,576-page buffer pool)" in a.evidence
    small = frames_of(30, flush=lambda k: Flush(ibuf_size_pages=10_204))   # percona-5.1 capture's Ibuf
    assert advise(small, v) == []


def test_pending_writes_with_saturated_storage_is_critical() -> None:
    frames = frames_of(20, io=lambda k: Io(pending_writes=64, writes_per_s=5_200),
                       host=lambda k: Host(cpus=8, run_queue=2, cpu_iowait_pct=45))
    a = one(advise(frames, {"innodb_write_io_threads": "4", "innodb_io_capacity": "200"}), "pending_aio_writes")
    assert a.severity == "critical" and "innodb_io_capacity" in a.message and "(now 200)" in a.message
    assert "pending writes avg 64" in a.evidence and "iowait avg 45 %" in a.evidence


# --- instruments and window handling ----------------------------------------------------------

def test_instruments_off_on_mariadb_without_ps_is_a_warning_with_cost() -> None:
    note = "performance_schema wait/synch instruments are off: UPDATE performance_schema.setup_instruments …"
    frames = frames_of(10, notes=lambda k: [note], sources=lambda k: [])
    a = one(advise(frames, {"performance_schema": "ON"}), "synch_instruments_off")
    assert a.severity == "warning" and "setup_instruments" in a.message and "cost throughput" in a.message
    assert "performance-schema-consumer-thread-instrumentation = OFF" in a.message   # the lean config lines
    assert "latch sources seen: none" in a.evidence and "100 % of samples" in a.evidence
    with_mutex = frames_of(10, notes=lambda k: [note], sources=lambda k: ["innodb_mutex"])
    assert one(advise(with_mutex, {}), "synch_instruments_off").severity == "info"


def test_too_few_or_stale_frames_give_no_advice() -> None:
    hot = lab_window()
    assert advise(hot[:5], MARIADB_VARS) == []        # first frame has no rates: 4 live frames
    assert ids(advise(hot[:6], MARIADB_VARS)) == ["table_cache"]   # 5 live frames: a window
    stale = [Frame(time=f.time, stale=True) for f in hot]
    assert advise(stale, MARIADB_VARS) == []


def test_most_severe_first_and_pipeline_fills_frame_advice() -> None:
    frames = lab_window(variables=MARIADB_VARS)
    assert [a.id for a in frames[-1].advice] == ["table_cache"]
    assert frames[1].advice == []                     # one live frame is a glimpse, not a window


def test_advice_judges_the_last_minute_of_a_longer_window() -> None:
    # Hot for the first 50 s of 120, quiet since: the incident is over, the advice clears.
    over = lab_window(seconds=120, calm_at=frozenset(range(51, 121)))
    assert advise(over, MARIADB_VARS) == []
    # Quiet for a minute, hot for the last: advice, with the last minute as its evidence window.
    starting = lab_window(seconds=120, calm_at=frozenset(range(1, 61)))
    a = one(advise(starting, MARIADB_VARS), "table_cache")
    assert "over 60 s (00:01:00–00:02:00)" in a.evidence
    # The report's whole-window verdict sees 50 % of the time hot: not sustained over 2 minutes.
    assert advise(starting, MARIADB_VARS, min_span_s=None) == []


def test_row_lock_queue_on_a_hot_row() -> None:
    from mysqltop.core.frame import Locks

    frames = frames_of(30, locks=lambda k: Locks(row_lock_waits_per_s=140, row_lock_wait_ms_per_s=2_600,
                                                 row_lock_current_waits=4 + k % 3, deadlocks_per_s=0))
    a = one(advise(frames, {"innodb_lock_wait_timeout": "5"}), "row_lock_waits")
    assert a.severity == "warning" and "innodb_lock_wait_timeout = 5 s" in a.message, a.message
    assert a.evidence.startswith("2,600 ms/s waited on row locks (≈ 2.6 sessions always blocked), "
                                 "140 lock waits/s, up to 6 waiting at once")
    calm = frames_of(30, locks=lambda k: Locks(row_lock_waits_per_s=3, row_lock_wait_ms_per_s=40))
    assert advise(calm, {}) == []


def test_row_lock_waits_longer_than_the_global_timeout_say_so() -> None:
    """Waits of 117 s against a global innodb_lock_wait_timeout of 50 s: the sessions set their own,
    so the advice must not say the global caps each wait."""
    from mysqltop.core.frame import Locks

    frames = frames_of(30, locks=lambda k: Locks(row_lock_waits_per_s=2, row_lock_wait_ms_per_s=3_000,
                                                 row_lock_current_waits=3, longest_lock_wait_s=90 + k))
    a = one(advise(frames, {"innodb_lock_wait_timeout": "50"}), "row_lock_waits")
    assert "caps each wait" not in a.message
    assert "the global innodb_lock_wait_timeout is 50 s, yet waits here reached 119 s" in a.message
    short = frames_of(30, locks=lambda k: Locks(row_lock_waits_per_s=2, row_lock_wait_ms_per_s=3_000,
                                                row_lock_current_waits=3, longest_lock_wait_s=12))
    b = one(advise(short, {"innodb_lock_wait_timeout": "50"}), "row_lock_waits")
    assert "the global innodb_lock_wait_timeout = 50 s caps each wait" in b.message


def test_instruments_note_when_ps_shows_only_sql_latches() -> None:
    note = "performance_schema instruments no InnoDB latches: UPDATE performance_schema.setup_instruments …"
    frames = frames_of(10, notes=lambda k: [note], sources=lambda k: ["performance_schema"])
    a = one(advise(frames, {"performance_schema": "ON"}), "synch_instruments_off")
    assert a.severity == "warning" and "only SQL-layer latches show" in a.message
    assert "latch sources seen: performance_schema" in a.evidence


def test_ahi_at_max_parts_only_suggests_off() -> None:
    v = {"innodb_adaptive_hash_index": "ON", "innodb_adaptive_hash_index_parts": "512"}
    a = one(advise(mutex_window(variables=v), v), "ahi_latch")
    assert a.message.startswith("Adaptive hash index latch (btr0sea.cc:202) is the hot spot: set "
                                "innodb_adaptive_hash_index = OFF")
    assert "partitions split by index and did not spread this one" in a.message


def test_a_server_without_performance_schema_gets_no_advice_to_enable_it() -> None:
    """MySQL 5.0/5.1 (no P_S at all): the note names the sources it has, no enabling advice."""
    text = (CORPUS / "innodb-status" / "mysql-5.0or5.1__percona-toolkit__innodb-status.004.txt").read_text()
    frames = []
    for server, want_advice in ((ServerIdentity("5.1.73-log", "mysql", "db0"), False),
                                (ServerIdentity("5.5.62-log", "mysql", "db0"), True)):
        pipe = PolledTimeline()
        for k in range(10):
            frames.append(pipe.push(RawSample(wall=T0 + k, mono=k, server=server, innodb_status=text,
                                              global_status={"Uptime": str(1000 + k)})))
        notes = " ".join(frames[-1].notes)
        assert ("predates performance_schema" in notes) is not want_advice
        assert ("synch_instruments_off" in ids(advise(frames[-10:], {}))) is want_advice


def test_bursty_ahi_latch_on_a_busy_host_is_still_the_hot_spot() -> None:
    # MariaDB 10.11 on a shared 2-core host: per-second shares swing 0 ↔ 98 % (a preempted holder),
    # hot in 8 of 20 samples spread over the window, 40 % of all wait time over it.
    shares = [0.19, 0.0, 0.0, 0.15, 0.76, 0.0, 0.08, 0.98, 0.37, 0.59, 0.02, 0.32, 0.16, 0.38, 0.04, 0.0, 0.49, 0.0,
              0.25, 0.01]
    v = {"innodb_adaptive_hash_index": "ON", "innodb_adaptive_hash_index_parts": "8"}
    frames = frames_of(20, hotspots=lambda k: [
        Hotspot("btr_search_latch", "rwlock", "performance_schema", waits_per_s=3_000, wait_ms_per_s=300 * shares[k],
                share=shares[k]),
        Hotspot("MDL_lock::rwlock", "rwlock", "performance_schema", waits_per_s=5_000,
                wait_ms_per_s=300 * (1 - shares[k]), share=1 - shares[k])])
    a = one(advise(frames, v), "ahi_latch")
    assert "innodb_adaptive_hash_index_parts = 8 already" in a.message
    # the same samples in one block (contention that began mid-window) is not yet a verdict
    ordered = sorted(shares)
    block = frames_of(20, hotspots=lambda k: [
        Hotspot("btr_search_latch", "rwlock", "performance_schema", waits_per_s=3_000,
                wait_ms_per_s=300 * ordered[k], share=ordered[k]),
        Hotspot("MDL_lock::rwlock", "rwlock", "performance_schema", waits_per_s=5_000,
                wait_ms_per_s=300 * (1 - ordered[k]), share=1 - ordered[k])])
    assert "ahi_latch" not in ids(advise(block, v))


def _hogged(n: int, hog_cores: float, mysqld_cores: float, hog: tuple[int, str] = (4242, "stress-ng-cpu")
            ) -> list[RawSample]:
    """A 2-core local host ~97 % busy: another process burns `hog_cores`, mysqld `mysqld_cores`."""
    out = []
    for k in range(n):
        host = HostSample(cpus=2, cpu_times={"user": 1.8 * k, "system": 0.14 * k, "idle": 0.06 * k},
                          ctx_switches=1000 * k, procs_running=6, procs_blocked=0, loadavg=(5.0, 4.0, 3.0),
                          mysqld_cpu_s=100.0 + mysqld_cores * k,
                          top_procs=[[hog[0], hog[1], 50.0 + hog_cores * k], [77, "sshd", 3.0 + 0.01 * k]])
        out.append(RawSample(wall=T0 + k, mono=float(k), host=host, global_status={"Uptime": str(1000 + k)},
                             server=ServerIdentity(version="10.11.6-MariaDB", flavor="mariadb", local=True)))
    return out


def test_a_cpu_hog_is_named_from_the_host_sample_and_mysqld_is_not_blamed() -> None:
    pipe = PolledTimeline()
    frames = [pipe.push(raw, advise=False) for raw in _hogged(60, hog_cores=1.6, mysqld_cores=0.3)]
    host = frames[-1].host
    assert host is not None and host.top_process == "stress-ng-cpu" and host.top_process_pid == 4242
    assert host.top_process_cpu_pct == pytest.approx(160.0)
    got = advise(frames, {})
    assert "cpu_saturation" not in ids(got)
    a = one(got, "cpu_other_process")
    assert a.message.startswith("CPU saturated by another process on this host, stress-ng-cpu (pid 4242) — not the "
                                "monitored server: it used 1.6 of 2 cores (the monitored server 0.3) — no server "
                                "setting helps: stop, renice or move that process (stress-ng-cpu, pid 4242)")
    assert "busiest other process stress-ng-cpu (pid 4242) avg 1.6 cores" in a.evidence


def test_another_database_server_on_the_host_is_named_as_one_and_the_monitored_one_is_not_told_to_stop() -> None:
    """A second mariadbd on the host (another instance, not the monitored one) saturates the CPUs:
    the finding says it is another database server and never reads as "stop your database"."""
    pipe = PolledTimeline()
    frames = [pipe.push(raw, advise=False) for raw in _hogged(60, 1.6, 0.3, hog=(5151, "mariadbd"))]
    a = one(advise(frames, {}), "cpu_other_process")
    assert a.message.startswith("CPU saturated by another database server on this host, mariadbd (pid 5151) — not "
                                "the monitored server")
    assert "the monitored server needs no change" in a.message
    assert "stop, renice or move mariadbd" not in a.message and "stop" not in a.message.lower().split("—")[1]
    assert "(a database server)" in a.evidence


def test_no_other_process_finding_when_mysqld_is_the_cause_or_the_hog_is_small() -> None:
    pipe = PolledTimeline()
    busy_mysqld = advise([pipe.push(r, advise=False) for r in _hogged(60, hog_cores=0.2, mysqld_cores=1.7)], {})
    assert "cpu_other_process" not in ids(busy_mysqld)
    pipe = PolledTimeline()
    small = advise([pipe.push(r, advise=False) for r in _hogged(60, hog_cores=0.3, mysqld_cores=0.2)], {})
    assert "cpu_other_process" not in ids(small)


def test_purge_lag_whose_oldest_entry_cannot_be_read_names_the_view_the_server_shows_too() -> None:
    """An application's long statement printed above the DBA's write transaction leaves its entry
    unreadable (read view unknown): the DBA's is not made the answer alone — the younger
    transaction whose read view the server's lines show is named with its KILL."""
    from dataclasses import replace as _replace
    from mysqltop.core.blocking import Transaction
    dba = Transaction(trx_id="900", thread_id=77, user="dba", host="10.0.0.9", state="RUNNING", age_s=300,
                      read_view=None, statement=None, confirmed=True)
    real = _replace(_holder(142), thread_id=1234)
    frames = frames_of(90, flush=lambda k: Flush(history_list_length=150_000 + 3_500 * k),
                       throughput=lambda k: Throughput(tps=2_400.0), transactions=lambda k: [dba, real])
    a = one(advise(frames, {"innodb_purge_threads": "4"}), "purge_lag")
    assert "thread 77" in a.message and "KILL 77" not in a.message
    assert "thread 1234" in a.message and "KILL 1234 or commit it" in a.message
