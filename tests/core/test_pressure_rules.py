"""Pressure findings (core/rules/pressure.py): each fires on a steady condition over seconds, at
any poll interval, names its knob with the server's value, and stays quiet on a burst."""

from __future__ import annotations

from dataclasses import replace

from typing import Any

import pytest

from mysqltop.core.advice import advise
from mysqltop.core.frame import Frame, Pressure, ServerInfo
from mysqltop.core.pressure_signals import connections_refused
from mysqltop.core.rules.rule_kit import Window
from mysqltop.core.rules.pressure import THREAD_CACHE_MISS_SHARE, THREADS_CREATED_MIN_PER_S, steady_share

T0 = 1_790_000_000.0
MARIADB = ServerInfo("10.11.6-MariaDB", "mariadb", "db1")
MYSQL = ServerInfo("8.0.36", "mysql", "db1")
VARS = {"innodb_log_buffer_size": "8388608", "binlog_cache_size": "32768", "thread_cache_size": "0",
        "tmp_table_size": "16777216", "max_heap_table_size": "16384", "innodb_buffer_pool_size": "134217728",
        "innodb_lru_scan_depth": "1024", "innodb_io_capacity": "200"}


def frames(seconds: float, step: float, server: ServerInfo = MARIADB, **rates: Any) -> list[Frame]:
    """Frames `step` s apart over `seconds`; each keyword is a Pressure field → value, or a
    callable (time since start) → value."""
    out = []
    for k in range(int(round(seconds / step))):
        t = (k + 1) * step
        p = Pressure(**{name: (v(t) if callable(v) else v) for name, v in rates.items()})
        out.append(Frame(time=T0 + t, elapsed=step, server=server, pressure=p))
    return out


def found(fs: list[Frame], finding: str) -> Any:
    got = [a for a in advise(fs, VARS) if a.id == finding]
    return got[0] if got else None


CASES = [
    ("log_waits", {"log_waits_per_s": 12.0, "log_write_requests_per_s": 900.0}, "innodb_log_buffer_size = 8388608"),
    ("buffer_pool_wait_free", {"buffer_pool_wait_free_per_s": 40.0, "buffer_pool_disk_reads_per_s": 300.0},
     "innodb_buffer_pool_size = 134217728"),
    ("binlog_cache_disk", {"binlog_cache_disk_use_per_s": 5.0, "binlog_cache_use_per_s": 20.0},
     "binlog_cache_size = 32768"),
    ("thread_cache", {"threads_created_per_s": 30.0, "connections_per_s": 30.0, "threads_connected": 12},
     "thread_cache_size = 0"),
    ("tmp_disk_tables", {"tmp_disk_tables_per_s": 20.0, "tmp_tables_per_s": 22.0}, "max_heap_table_size = 16384"),
]


@pytest.mark.parametrize("finding,rates,knob", CASES)
@pytest.mark.parametrize("step", [0.25, 1.0, 10.0])
def test_steady_pressure_names_its_knob_at_any_interval(finding: str, rates: dict[str, float], knob: str,
                                                        step: float) -> None:
    a = found(frames(60, step, **rates), finding)
    assert a is not None and a.severity == "warning"
    assert knob in a.message
    assert "over 60 s" in a.evidence                       # the span, in seconds


@pytest.mark.parametrize("finding,rates,knob", CASES)
def test_a_burst_or_a_short_span_is_not_a_finding(finding: str, rates: dict[str, float], knob: str) -> None:
    burst = {k: (lambda t, v=v: v * 10 if t <= 5 else 0.0) for k, v in rates.items()}
    assert found(frames(60, 1.0, **burst), finding) is None           # all of it in the first 5 s
    assert found(frames(15, 1.0, **rates), finding) is None           # 15 s: under the 20 s span
    calm = {k: v / 100 for k, v in rates.items()}
    assert found(frames(60, 1.0, **calm), finding) is None


def test_log_waits_evidence_and_restart_wording() -> None:
    a = found(frames(60, 1.0, log_waits_per_s=12.0, log_write_requests_per_s=900.0), "log_waits")
    assert "12 log waits/s (Innodb_log_waits) for 900 log write requests/s" in a.evidence
    assert "e.g. 64 MiB; needs a restart" in a.message
    b = found(frames(60, 1.0, MYSQL, log_waits_per_s=12.0), "log_waits")
    assert "dynamic on MySQL 8.0+" in b.message


def test_a_small_share_of_spills_or_misses_is_not_a_finding() -> None:
    assert found(frames(60, 1.0, binlog_cache_disk_use_per_s=1.0, binlog_cache_use_per_s=500.0),
                 "binlog_cache_disk") is None
    assert found(frames(60, 1.0, threads_created_per_s=1.5, connections_per_s=100.0), "thread_cache") is None
    assert found(frames(60, 1.0, tmp_disk_tables_per_s=2.0, tmp_tables_per_s=100.0), "tmp_disk_tables") is None


def test_thread_pool_has_no_thread_cache_finding() -> None:
    fs = frames(60, 1.0, threads_created_per_s=30.0, connections_per_s=30.0)
    assert not [a for a in advise(fs, {**VARS, "thread_handling": "pool-of-threads"}) if a.id == "thread_cache"]


def test_a_gap_in_the_middle_third_is_not_steady() -> None:
    """The server gave no counter for 20 s in the middle of the minute: the thirds are of the wall
    span, so the gap is seen, not squeezed out."""
    gap = frames(60, 1.0, log_waits_per_s=lambda t: None if 20 < t <= 40 else 12.0)
    assert found(gap, "log_waits") is None
    late = frames(60, 1.0, log_waits_per_s=lambda t: 12.0 if t > 40 else 0.0)
    assert found(late, "log_waits") is None                        # began 20 s ago: not yet steady


def test_the_share_of_the_base_is_judged_at_its_bound_and_a_missing_base_passes() -> None:
    """steady_share: a tenth of connections missing the cache is enough, a little less is not;
    without the base counter the steady rate alone decides, and the evidence then names no share."""
    fs = frames(60, 1.0, threads_created_per_s=2.0, connections_per_s=20.0)
    assert steady_share(Window(fs), lambda f: f.pressure.threads_created_per_s, THREADS_CREATED_MIN_PER_S,
                        lambda f: f.pressure.connections_per_s, THREAD_CACHE_MISS_SHARE) == (2.0, 20.0)
    assert found(fs, "thread_cache") is not None
    assert found(frames(60, 1.0, threads_created_per_s=2.0, connections_per_s=21.0), "thread_cache") is None
    alone = found(frames(60, 1.0, threads_created_per_s=2.0), "thread_cache")
    assert alone is not None and "connections/s" not in alone.evidence
    assert steady_share(Window(frames(15, 1.0, threads_created_per_s=2.0)), lambda f: f.pressure.threads_created_per_s,
                        THREADS_CREATED_MIN_PER_S, lambda f: f.pressure.connections_per_s, 0.1) is None


def refusing(step: float = 1.0, seconds: float = 60, running: float = 2.0, admin: bool | None = None,
             **rates: Any) -> list[Frame]:
    """A server at max_connections = 10: 10 connected, refusing 3 connects a second."""
    server = ServerInfo("10.11.6-MariaDB", "mariadb", "db1", monitor_connection_admin=admin)
    fs = frames(seconds, step, server, **{"connections_refused_per_s": 3.0, "threads_connected": 10,
                                          "connection_errors_max_connections_per_s": 3.0,
                                          "max_used_connections": 11, "aborted_connects_per_s": 3.0,
                                          "max_connections": 10, **rates})
    for f in fs:
        f.throughput.threads_running = running + 1          # the monitor's own poll runs too
    return fs


def found_max(fs: list[Frame], variables: dict[str, str] | None = None) -> Any:
    got = [a for a in advise(fs, {**VARS, "max_connections": "10"} if variables is None else variables)
           if a.id == "max_connections"]
    return got[0] if got else None


@pytest.mark.parametrize("step", [0.25, 1.0, 10.0])
def test_refused_connections_name_max_connections_at_any_interval(step: float) -> None:
    a = found_max(refusing(step))
    assert a is not None and a.severity == "critical"
    assert "max_connections = 10 is reached" in a.message and "e.g. 60" in a.message
    assert a.evidence.startswith("3 refused connections/s (Connection_errors_max_connections), up to 10 of 10 "
                                 "connected (Threads_connected), 2 running on average, Max_used_connections 11, "
                                 "3 aborted connects/s, steady in every third over 60 s")


def test_refusals_in_a_burst_a_short_span_or_a_trickle_are_not_a_finding() -> None:
    assert found_max(refusing(connections_refused_per_s=lambda t: 30.0 if t <= 5 else 0.0)) is None
    assert found_max(refusing(seconds=15)) is None
    assert found_max(refusing(connections_refused_per_s=0.05)) is None   # three a minute
    assert found_max(refusing(connections_refused_per_s=None)) is None   # not counted


def test_the_cause_follows_what_the_connected_sessions_do() -> None:
    idle = found_max(refusing(running=1.0))
    assert "most sessions are idle — connection pools" in idle.message
    piled = found_max(refusing(running=8.0))
    assert "most sessions are running — a pile-up behind a lock" in piled.message
    assert "8 running on average" in piled.evidence


def test_the_finding_says_whether_the_monitor_itself_would_be_refused() -> None:
    assert "lacks SUPER / CONNECTION ADMIN: if that connection drops, mysqltop is refused too" in \
        found_max(refusing(admin=False)).message
    assert "has SUPER / CONNECTION ADMIN: it gets back in through the one connection" in \
        found_max(refusing(admin=True)).message
    assert "mysqltop" not in found_max(refusing(admin=None)).message


def test_without_the_variable_the_limit_comes_from_the_frame() -> None:
    a = found_max(refusing(), variables=VARS)
    assert a is not None and "up to 10 of 10 connected" in a.evidence
    assert a.message.startswith("The server refuses connections: max_connections is reached")


def test_refusals_are_the_counter_or_aborted_connects_at_the_limit() -> None:
    """MariaDB refuses an account without CONNECTION ADMIN after its login and counts it only in
    Aborted_connects: at the limit that counter is the refusals; below it, it is not."""
    mariadb = Pressure(connection_errors_max_connections_per_s=0.0, aborted_connects_per_s=4.8,
                       threads_connected=10, max_connections=10)
    assert connections_refused(mariadb) == 4.8
    below = Pressure(connection_errors_max_connections_per_s=0.0, aborted_connects_per_s=4.8,
                     threads_connected=9, max_connections=10)
    assert connections_refused(below) == 0.0                         # wrong passwords, not refusals
    mysql = Pressure(connection_errors_max_connections_per_s=3.0, aborted_connects_per_s=3.0)
    assert connections_refused(mysql) == 3.0                         # no levels: the counter alone
    assert connections_refused(Pressure()) is None


def test_the_evidence_names_the_counter_the_refusals_came_from() -> None:
    by_counter = found_max(refusing())
    assert "(Connection_errors_max_connections)" in by_counter.evidence
    by_aborted = found_max(refusing(connection_errors_max_connections_per_s=0.0))
    assert "(Aborted_connects at the limit: MariaDB counts a refusal after the login only there)" in \
        by_aborted.evidence


@pytest.mark.parametrize("step", [0.25, 1.0, 10.0])
def test_every_transaction_spilling_is_critical_and_found_in_seconds(step: float) -> None:
    """Binlog_cache_disk_use ≈ Binlog_cache_use with ~40 KiB transactions against a 4 KiB cache:
    critical, the cache named far below the transaction size, found within 6 s (or the five polls
    any finding needs, at a 10 s interval)."""
    from mysqltop.core.rules.rule_kit import MIN_FRAMES
    full = {"binlog_cache_disk_use_per_s": 50.0, "binlog_cache_use_per_s": 50.0, "binlog_bytes_per_s": 50 * 40960.0}
    vars_ = {**VARS, "binlog_cache_size": "4096"}
    fs = frames(max(6.0, MIN_FRAMES * step), step, **full)
    a = next((a for a in advise(fs, vars_) if a.id == "binlog_cache_disk"), None)
    assert a is not None and a.severity == "critical", a
    assert a.message.startswith("Every transaction spills its binary log to disk: binlog_cache_size = 4096 is far "
                                "below the ~40 KiB a transaction writes"), a.message
    assert "(100 %)" in a.evidence and "Binlog_bytes_written" in a.evidence


def test_a_full_spill_comes_before_the_commit_path_it_slows() -> None:
    """Same severity: the cache too small (the cause) before the commit path (the effect)."""
    from mysqltop.core.frame import Throughput
    fs = frames(60, 1.0, binlog_cache_disk_use_per_s=50.0, binlog_cache_use_per_s=50.0)
    fs = [replace(f, throughput=Throughput(binlog_commits_per_s=50.0, binlog_group_commits_per_s=50.0,
                                           threads_running=4)) for f in fs]
    for f in fs:
        f.io.fsyncs_per_s = 100.0
        f.io.pending_fsyncs = 2
    vars_ = {**VARS, "binlog_cache_size": "4096", "log_bin": "ON", "sync_binlog": "1",
             "innodb_flush_log_at_trx_commit": "1"}
    ids = [a.id for a in advise(fs, vars_)]
    assert ids[0] == "binlog_cache_disk", ids
