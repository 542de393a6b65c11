"""Each pressure finding proven on a throwaway MariaDB: the buffer or cache started too small, a
load that overflows it, the finding raised first with its knob and a rate that agrees with the
server's own counter; then the remedy (SET GLOBAL, or a server started with the larger size where
the setting is not dynamic) and the same load: the counter stops moving and the finding clears.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pymysql
import pytest

from mysqltop.core.frame import Frame
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.core.rules import finding_metrics
from mysqltop.core.rules.rule_kit import RECENT_S
from mysqltop.sources.mysql import MySQLSource
from tests.support.pressure import ER_CON_COUNT_ERROR, PROBLEMS, PressureLoad, apply_remedy
from tests.support.sql import connect
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live

KNOB = {"log_waits": "innodb_log_buffer_size", "thread_cache": "thread_cache_size",
        "tmp_disk_tables": "max_heap_table_size", "binlog_cache_disk": "binlog_cache_size",
        "buffer_pool_wait_free": "innodb_buffer_pool_size", "max_connections": "max_connections"}
# The finding's rate (its window's mean) against the server's counter read from another session
# after each poll over the same frames: the two reads lie a few milliseconds apart.
RATE_TOLERANCE = 0.35
# After the remedy the counter moves at most this share of its rate before.
REMEDIED_SHARE = 0.1


class Watch:
    def __init__(self, db: Any, counter: str) -> None:
        self.db, self.counter = db, counter
        self.src = MySQLSource(db.options(), interval=1.0)
        self.src.open()
        # The counter is read on one connection opened before the load: at max_connections a new
        # connect races the refused clients' half-open sessions for the one slot kept past the limit.
        self.status_conn = connect(db.root_kwargs())
        self.pipe = PolledTimeline()
        self.frames: list[Frame] = []
        self.counts: list[tuple[float, int]] = []     # (monotonic time, server counter) after each frame

    def reconnect(self) -> None:
        """A new session: session-scoped settings (tmp_table_size, binlog_cache_size) are taken
        at connect, and the monitor's own reads use implicit temporary tables too."""
        self.src.close()
        self.src = MySQLSource(self.db.options(), interval=1.0)
        self.src.open()

    def frame(self) -> Frame:
        f = self.pipe.push(self.src.read())
        self.frames.append(f)
        with self.status_conn.cursor() as c:
            c.execute("SHOW GLOBAL STATUS LIKE %s", (self.counter,))
            count = int(c.fetchone()[1])
        self.counts.append((time.monotonic(), count))
        return f

    def server_rate(self) -> float:
        """The server counter's rate over the last frame's judged window (RECENT_S seconds of
        frames), read from the counts taken beside those frames."""
        last = self.frames[-1].time
        first = next(i for i, f in enumerate(self.frames) if f.time >= last - RECENT_S)
        (t0, c0), (t1, c1) = self.counts[max(0, first - 1)], self.counts[-1]
        return (c1 - c0) / (t1 - t0)

    def until(self, cond: Any, timeout: float) -> Frame:
        """Poll about once a second until cond(frame) holds."""
        def step() -> Frame | None:
            started = time.monotonic()
            f = self.frame()
            time.sleep(max(0.0, 1.0 - (time.monotonic() - started)))     # pacing, as live mode polls
            return f if cond(f) else None
        return wait_until(step, timeout=timeout, step=0.0)

    def close(self) -> None:
        self.src.close()
        self.status_conn.close()


def _full_server(db: Any, found: Frame) -> None:
    """At max_connections: the limit and the connected sessions in the evidence; the monitor's
    account (no SUPER / CONNECTION ADMIN) is refused a new connection, as the finding says, while
    root (ALL PRIVILEGES) gets the one connection kept past the limit."""
    a = next(a for a in found.advice if a.id == "max_connections")
    assert found.server.monitor_connection_admin is False
    assert "max_connections = 10 is reached" in a.message and "most sessions are idle" in a.message
    assert "lacks SUPER / CONNECTION ADMIN: if that connection drops, mysqltop is refused too" in a.message
    assert re.search(r"up to 1[01] of 10 connected \(Threads_connected\)", a.evidence), a.evidence
    with pytest.raises(pymysql.err.OperationalError) as refused:
        connect(db.monitor_kwargs()).close()
    assert refused.value.args[0] == ER_CON_COUNT_ERROR
    def root() -> Any:
        try:
            return connect(db.root_kwargs())
        except pymysql.err.OperationalError as e:     # a refused client's session still counted
            if e.args[0] != ER_CON_COUNT_ERROR:
                raise
            return None
    conn = wait_until(root, timeout=30)
    with conn.cursor() as c:
        c.execute("SELECT @@max_connections, VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS "
                  "WHERE VARIABLE_NAME = 'THREADS_CONNECTED'")
        limit, connected = c.fetchone()
    conn.close()
    assert int(connected) > int(limit)                              # root: past the limit


# Checks of one finding while it is raised (the load still running).
WHILE_FOUND = {"max_connections": _full_server}


def _has(f: Frame, finding: str) -> bool:
    return any(a.id == finding for a in f.advice)


def _evidence_rate(f: Frame, finding: str) -> float:
    a = next(a for a in f.advice if a.id == finding)
    return float(re.match(r"([\d,.]+) ", a.evidence)[1].replace(",", ""))


@pytest.mark.parametrize("finding", sorted(PROBLEMS))
def test_pressure_is_found_first_with_its_knob_and_the_remedy_clears_it(mariadb_factory: Any, finding: str) -> None:
    p = PROBLEMS[finding]
    db = mariadb_factory(extra_args=list(p.server_args), name=f"pressure-{finding[:8]}")
    kw = db.root_kwargs()
    watch = Watch(db, p.counter)
    try:
        watch.frame()
        with PressureLoad(kw, finding, plain_kw=db.monitor_kwargs()) as load:
            found = watch.until(lambda f: _has(f, finding), timeout=300)
            assert not load.errors, load.errors
            first = found.advice[0]
            assert first.id == finding, [a.id for a in found.advice]
            assert KNOB[finding] in first.message and " s (" in first.evidence      # knob, span in seconds
            assert _evidence_rate(found, finding) == pytest.approx(watch.server_rate(), rel=RATE_TOLERANCE)
            if finding in WHILE_FOUND:
                WHILE_FOUND[finding](db, found)
            before = finding_metrics.value(finding, watch.frames[-20:])
            assert before is not None and before > 0
            if p.remedy_sql:
                apply_remedy(kw, p)
                watch.reconnect()
                seen = len(watch.frames)
                watch.until(lambda f: not _has(f, finding) and len(watch.frames) - seen >= 15, timeout=120)
                after = finding_metrics.value(finding, watch.frames[-10:])
                assert after is not None and after <= REMEDIED_SHARE * before
                assert not load.errors, load.errors
    finally:
        watch.close()
    if p.remedy_sql:
        return
    # not dynamic on MariaDB: the same load on a server started with the remedy
    fixed = mariadb_factory(extra_args=list(p.remedy_args), name=f"remedied-{finding[:8]}")
    watch = Watch(fixed, p.counter)
    try:
        watch.frame()
        with PressureLoad(fixed.root_kwargs(), finding) as load:
            watch.until(lambda f: len(watch.frames) >= 25, timeout=120)
            assert not load.errors, load.errors
        after = finding_metrics.value(finding, watch.frames[-20:])
        assert after is not None and after <= REMEDIED_SHARE * before
        assert not any(_has(f, finding) for f in watch.frames)
    finally:
        watch.close()
