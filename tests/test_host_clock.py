"""The host counters keep their own clock while a poll hangs: a sample every interval, waiting
(late, not failed) and then not answering, each with the host counters of its moment; the late
answer still comes, stamped after them. No server: the poll is a stub that blocks."""

from __future__ import annotations

import itertools
import threading

from mysqltop.config import ConnectionOptions
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.core.sample import Failure, HostSample
from mysqltop.sources.capabilities import Capabilities
from mysqltop.sources.mysql import MySQLSource
from mysqltop.sources.poll_statements import Poll as _Poll
from mysqltop.sources.poll_statements import StatementPlan

CAPS = Capabilities(flavor="mariadb", version="10.11.0-MariaDB", version_tuple=(10, 11, 0), version_comment="",
                    hostname="h", current_user="u@%", address="127.0.0.1:1", performance_schema_on=False,
                    performance_schema=False, synch_instruments_total=0, synch_instruments_enabled=0, mutex_rows=0,
                    poll_mutex=False, metrics_column=None, local=False, mysqld_pid=None)

INTERVAL = 0.05


def hung_source(host: bool = True) -> tuple[MySQLSource, threading.Event]:
    release = threading.Event()
    ticks = itertools.count(1)

    def probe() -> HostSample | None:
        n = next(ticks)
        return HostSample(cpus=2, cpu_times={"user": n, "idle": 2.0 * n}, ctx_switches=1000 * n,
                          procs_running=3, procs_blocked=0, loadavg=(1.0, 1.0, 1.0)) if host else None

    src = MySQLSource(ConnectionOptions(host="127.0.0.1", port=1, user="u"), interval=INTERVAL,
                      answer_timeout=600.0, host_probe=probe)
    src.host_clock = True
    src.link.conn = object()
    src.plan = StatementPlan(CAPS)

    def poll(mono: float, conn: object) -> _Poll:
        assert release.wait(60), "never released"
        return _Poll(values={"global_status": [("Uptime", "10")]})

    src._poll = poll  # type: ignore[method-assign]
    return src, release


def test_a_hung_poll_gives_host_samples_every_read_then_its_late_answer() -> None:
    src, release = hung_source()
    pipeline = PolledTimeline()
    waiting = [src.read() for _ in range(4)]
    assert [s.failure for s in waiting] == [Failure.WAITING] * 4
    assert all(s.host is not None for s in waiting)
    monos = [s.mono for s in waiting]
    assert monos == sorted(monos) and len(set(monos)) == 4
    frames = [pipeline.push(s) for s in waiting]
    # fresh host rates in every frame after the first, though the server said nothing
    assert all(f.stale and f.failure == "waiting" and f.host is not None for f in frames)
    assert all(f.host is not None and f.host.ctx_switches_per_s for f in frames[1:])
    src.timing.answer_timeout = 0.0                     # the server now counts as not answering
    timed_out = src.read()
    assert timed_out.failure == Failure.TIMEOUT and timed_out.host is not None
    release.set()
    late = src.read()
    assert late.error is None and late.host is not None
    assert late.mono >= timed_out.mono            # stamped when it came: time never goes backwards
    assert late.timings_ms["poll"] >= late.timings_ms["late"] > 0
    assert not pipeline.push(late).stale


def test_without_host_counters_the_poll_is_waited_for_up_to_the_answer_timeout() -> None:
    src, release = hung_source(host=False)
    src.timing.answer_timeout = 0.3
    first = src.read()
    assert first.failure == Failure.TIMEOUT       # nothing of its own to say before then
    release.set()
    assert src.read().error is None


def test_a_poll_within_the_interval_is_not_overtaken() -> None:
    src, release = hung_source()
    release.set()
    raw = src.read()
    assert raw.error is None and raw.failure is None


def test_the_busiest_other_processes_are_picked_while_the_cpus_are_busy(monkeypatch) -> None:
    from mysqltop.sources import host as host_src

    scans = iter([{1: ("mysqld", 10.0), 2: ("hog", 5.0), 3: ("idle", 1.0)},
                  {1: ("mysqld", 11.5), 2: ("hog", 6.8), 3: ("idle", 1.0), 4: ("new", 0.5)}])
    monkeypatch.setattr(host_src, "_all_procs", lambda: next(scans))
    scan = host_src._Scan()
    busy = [{"user": 0.0, "idle": 0.0}, {"user": 1.9, "idle": 0.1}, {"user": 3.8, "idle": 0.2}]
    assert host_src.top_procs(busy[0], exclude=1, scan=scan) is None        # no CPU times before: not busy
    assert host_src.top_procs(busy[1], exclude=1, scan=scan) == []           # busy: first scan, nothing to compare
    # mysqld (excluded) and processes that used nothing are left out; a new pid has no delta yet
    assert host_src.top_procs(busy[2], exclude=1, scan=scan) == [[2, "hog", 6.8]]
    assert host_src.top_procs({"user": 3.8, "idle": 10.0}, exclude=1, scan=scan) is None   # idle: no scan


def test_local_servers_of_one_process_share_one_scan(monkeypatch) -> None:
    """A fleet of local servers reads host counters once per server per poll; the process list is
    the host's, so it is scanned at most once per SCAN_MIN_GAP_S, whoever asks."""
    from mysqltop.sources import host as host_src

    calls = []
    monkeypatch.setattr(host_src, "_all_procs", lambda: calls.append(1) or {2: ("hog", 5.0 + len(calls))})
    scan = host_src._Scan(host_src.SCAN_MIN_GAP_S)
    host_src.top_procs({"user": 0.0, "idle": 0.0}, exclude=None, scan=scan)   # first look: not busy yet
    for i in range(20):                                                      # 20 servers' polls, one second
        host_src.top_procs({"user": 1.0 + i, "idle": 0.0}, exclude=None, scan=scan)
    assert calls == []                                                       # all within the gap of the first
    scan.at -= host_src.SCAN_MIN_GAP_S
    assert host_src.top_procs({"user": 30.0, "idle": 0.0}, exclude=None, scan=scan) == [] and len(calls) == 1


def test_all_procs_reads_this_process() -> None:
    from mysqltop.sources import host as host_src

    import os

    procs = host_src._all_procs()
    assert os.getpid() in procs and procs[os.getpid()][1] > 0
