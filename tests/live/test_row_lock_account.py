"""A row-lock stall is counted once: the report and the Prometheus counter agree with the blocked
session-seconds the server's lock tables show.

8 and then 16 real sessions wait behind an idle transaction on the throwaway MariaDB while `serve`'s
poller (FleetPoller, the exporter's own accumulation) watches; the holder rolls back and InnoDB adds
every waiter's whole wait to Innodb_row_lock_time in one poll. The truth is each waiter's wait as
INNODB_TRX dates it (trx_wait_started) up to the release. Both figures must be within 5 % of it —
not twice it, as when the waits in progress and the counter's jump were added up.
"""

from __future__ import annotations

import re
import time
from typing import Any, Mapping

import pymysql
import pytest

from mysqltop.core.report_builder import build_report
from mysqltop.fleet import FleetPoller
from mysqltop.sources.fleet_sources import open_fleet
from mysqltop.views.prometheus import Exposition
from tests.support.stalls import inject
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live

STALL_S = 30.0          # each waiter's wait before the release
TOLERANCE = 0.05


def _lock_wait_ages(kw: Mapping[str, Any]) -> tuple[list[float], float]:
    """Each waiting transaction's wait so far as the server dates it, and when that was read."""
    conn = pymysql.connect(**{**kw, "autocommit": True})
    try:
        with conn.cursor() as c:
            c.execute("SELECT UNIX_TIMESTAMP(trx_wait_started) FROM information_schema.INNODB_TRX "
                      "WHERE trx_state = 'LOCK WAIT'")
            starts = [float(r[0]) for r in c.fetchall()]
            c.execute("SELECT UNIX_TIMESTAMP(NOW(6))")
            now = float(c.fetchone()[0])
    finally:
        conn.close()
    return [now - s for s in starts], now


def _row_lock_time_s(kw: Mapping[str, Any]) -> float:
    conn = pymysql.connect(**{**kw, "autocommit": True})
    try:
        with conn.cursor() as c:
            c.execute("SHOW GLOBAL STATUS LIKE 'Innodb_row_lock_time'")
            return int(c.fetchone()[1]) / 1000.0
    finally:
        conn.close()


@pytest.mark.parametrize("waiters", [8, 16])
def test_blocked_session_seconds_match_the_lock_tables(mariadb: Any, waiters: int) -> None:
    kw = mariadb.root_kwargs()
    frames: list[Any] = []
    poller = FleetPoller(open_fleet([mariadb.options()], 1.0), 1.0, on_frame=lambda _, f: frames.append(f))
    poller.start()
    try:
        wait_until(lambda: len([f for f in frames if f.elapsed]) >= 2, timeout=60)
        counter_before = _row_lock_time_s(kw)
        with inject(kw, "row_lock", waiters=waiters):
            wait_until(lambda: len(a := _lock_wait_ages(kw)[0]) == waiters and min(a) >= STALL_S,
                       timeout=STALL_S + 60, step=0.5)
            ages, read_at = _lock_wait_ages(kw)
            assert len(ages) == waiters
        released = time.time()
        truth = sum(ages) + waiters * (released - read_at)
        # the poll after the release carries the counter's jump; two more frames make sure
        seen = len(frames)
        wait_until(lambda: len(frames) >= seen + 3 and frames[-1].time > released + 1.5, timeout=60)
        state = poller.states()[0]
        body = Exposition(poller.states, 1.0).render().decode()
    finally:
        poller.stop()

    server_counter = _row_lock_time_s(kw) - counter_before
    assert server_counter == pytest.approx(truth, rel=TOLERANCE)      # the server agrees, at the end

    report = build_report(frames)
    span = sum(f.elapsed for f in frames if f.elapsed and f.locks.row_lock_wait_ms_per_s is not None)
    avg = report.locks["row_lock_wait_ms_per_s"].avg
    assert avg is not None
    assert avg * span / 1000.0 == pytest.approx(truth, rel=TOLERANCE)
    assert (report.locks["row_lock_wait_ms_per_s"].max or 0) <= 1000.0 * waiters * (1 + TOLERANCE)

    exported = float(re.search(r"^mysqltop_row_lock_blocked_seconds_total\{[^}]*\} (\S+)$", body, re.M)[1])
    assert exported == pytest.approx(state.row_lock_blocked_s)
    assert exported == pytest.approx(truth, rel=TOLERANCE)
    # mid-stall the counter grew by the waiters every second; the server's own stayed flat
    mid = [f for f in frames if f.time < released - 5 and (f.locks.longest_lock_wait_s or 0) >= 5]
    mid_rates = sorted(f.locks.row_lock_wait_ms_per_s or 0.0 for f in mid)
    assert mid_rates and mid_rates[len(mid_rates) // 2] == pytest.approx(1000.0 * waiters, rel=0.1)
    assert all(f.counters.row_lock_wait_ms == mid[0].counters.row_lock_wait_ms for f in mid)
