"""Bounds on the monitor's statements, on a throwaway MariaDB: the session's caps are set at every
connect, a read held up past the time cap is cut by the server and reported (typed, in the sample
and the frame), skipped for a back-off that grows, and the polls around it go on."""

from __future__ import annotations

import time
from typing import Any

import pytest

from mysqltop.core.derive import derive
from mysqltop.core.parsed import parse_sample
from mysqltop.core.sample import Cap
from mysqltop.sources import poll_statements as stmts_mod
from mysqltop.sources import read_caps
from mysqltop.sources.mysql import MySQLSource
from tests.support.mariadb import ThrowawayMariaDB
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live

STUB = "stub_slow"                       # a read that sleeps past the cap, first in the poll


def _session_bounds(src: MySQLSource) -> tuple[Any, ...]:
    with src.link.conn.cursor() as cur:
        cur.execute("SELECT @@max_statement_time, @@lock_wait_timeout, @@innodb_lock_wait_timeout")
        return tuple(float(x) for x in cur.fetchone())


@pytest.fixture
def slow_source(mariadb: ThrowawayMariaDB, monkeypatch: pytest.MonkeyPatch):
    plain = stmts_mod.StatementPlan.statements

    def with_stub(self: stmts_mod.StatementPlan, mono: float) -> list[tuple[str, str]]:
        out = plain(self, mono)
        return [(STUB, "SELECT SLEEP(30)"), *out] if self.book.due(STUB, mono) else out

    monkeypatch.setattr(stmts_mod.StatementPlan, "statements", with_stub)
    src = MySQLSource(mariadb.options(), interval=1.0, answer_timeout=10.0)
    src.open()
    yield src
    src.close()


def test_the_session_is_bounded_at_connect_and_after_a_reconnect(mariadb: ThrowawayMariaDB) -> None:
    src = MySQLSource(mariadb.options(), interval=1.0)
    caps = src.open()
    try:
        want = (read_caps.STATEMENT_CAP_S, read_caps.LOCK_WAIT_TIMEOUT_S, read_caps.INNODB_LOCK_WAIT_TIMEOUT_S)
        assert caps.statement_cap == "max_statement_time"
        assert _session_bounds(src) == want
        own = src.link.conn.thread_id()
        mariadb.query(f"KILL {own}")
        wait_until(lambda: src.read().error is None and src.link.conn.thread_id() != own, timeout=30)
        assert src.reconnects >= 1
        assert _session_bounds(src) == want          # set again on the new connection
    finally:
        src.close()


def test_a_read_past_the_time_cap_is_cut_reported_and_backed_off(slow_source: MySQLSource) -> None:
    src = slow_source
    t0 = time.monotonic()
    first = src.read()
    took = time.monotonic() - t0
    assert first.error is None, first.error
    assert took < 10                               # cut at the cap, not the 30 s the read asked for
    cut = (first.capped or {})[STUB]
    assert cut["cap"] == Cap.STATEMENT_TIME.value and cut["now"] is True
    assert cut["limit"] == read_caps.STATEMENT_CAP_S
    assert read_caps.STATEMENT_CAP_S * 0.9 <= cut["measured"] < read_caps.STATEMENT_CAP_S + 3
    assert cut["retry_in_s"] == read_caps.BACKOFF_FIRST_S
    # the rest of the poll was read after it, in the same poll
    assert first.innodb_status and first.global_status.get("Uptime") and first.ps_waits is not None
    assert STUB in first.timings_ms                # sent (the server counted it), never twice

    frame = derive(None, parse_sample(first))
    (read,) = [r for r in frame.capped_reads if r.statement == STUB]
    assert (read.cap, read.now, read.limit) == ("statement_time", True, read_caps.STATEMENT_CAP_S)

    # the next polls skip it while it backs off, and answer at once
    t1 = time.monotonic()
    second = src.read()
    assert time.monotonic() - t1 < read_caps.STATEMENT_CAP_S
    assert second.error is None and STUB not in second.timings_ms
    skipped = (second.capped or {})[STUB]
    assert skipped["now"] is False and skipped["measured"] is None and 0 < skipped["retry_in_s"] <= 5
    assert second.errors[STUB].startswith("skipped:")
    rates = derive(parse_sample(first), parse_sample(second))
    assert rates.throughput.qps is not None and rates.capped_reads[0].now is False

    # due again after its back-off: cut again, and skipped for twice as long
    wait_until(lambda: (s := src.read()).capped is not None and (s.capped.get(STUB) or {}).get("now") is True
               and _keep(s), timeout=30)
    again = _kept[-1]
    assert again.capped is not None
    assert again.capped[STUB]["retry_in_s"] == 2 * read_caps.BACKOFF_FIRST_S


_kept: list[Any] = []


def _keep(sample: Any) -> bool:
    _kept.append(sample)
    return True


def test_innodb_metrics_is_asked_every_poll_only_while_a_counter_it_needs_is_on(mariadb: ThrowawayMariaDB) -> None:
    """MariaDB counts deadlocks and AHI searches in SHOW GLOBAL STATUS: INNODB_METRICS is asked
    only for the page cleaner's counters, every poll while one is enabled, else once a minute."""
    metric = "buffer_flush_background_total_pages"
    mariadb.query(f"SET GLOBAL innodb_monitor_disable = '{metric}'")
    src = MySQLSource(mariadb.options(), interval=1.0)
    src.open()
    try:
        assert src.read().innodb_metrics == {}
        assert "innodb_metrics" not in src.read().timings_ms          # nothing to read: left for a minute
        mariadb.query(f"SET GLOBAL innodb_monitor_enable = '{metric}'")
        assert src.plan is not None
        src.plan.metrics_asked_at = float("-inf")                       # the minute is over
        on = src.read()
        assert on.innodb_metrics is not None and metric in on.innodb_metrics
        assert "lock_deadlocks" not in on.innodb_metrics                 # the status counts it
        assert "innodb_metrics" in src.read().timings_ms                 # every poll while it is on
    finally:
        mariadb.query(f"SET GLOBAL innodb_monitor_disable = '{metric}'")
        src.close()


def test_a_costly_snapshot_read_is_paced_and_carried_with_its_time(mariadb: ThrowawayMariaDB,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A read of rows as they are (here the sessions) that cost more than its share of the time
    is sent again only after took / PACED_DUTY; the polls between carry its rows, dated."""
    monkeypatch.setattr(stmts_mod, "PACED_DUTY", 1e-6)       # any read costs too much: paced
    monkeypatch.setattr(stmts_mod, "COSTLY_S", 0.0)
    monkeypatch.setattr(stmts_mod, "PACED_SLOWEST_S", 30.0)
    src = MySQLSource(mariadb.options(), interval=1.0)
    src.open()
    try:
        first = src.read()
        assert "sessions" in first.timings_ms and not (first.read_at or {}).get("sessions")
        second = src.read()
        assert "sessions" not in second.timings_ms and "session_states" not in second.timings_ms
        wall, mono = (second.read_at or {})["sessions"]
        assert wall == pytest.approx(first.wall, abs=5) and mono <= second.mono
        assert second.sessions == first.sessions and second.session_states == first.session_states
        frame = derive(parse_sample(first), parse_sample(second))
        assert frame.read_at["sessions"] == wall                      # the frame says when it was read
        assert frame.throughput.qps is not None                       # the counters are this poll's
    finally:
        src.close()
