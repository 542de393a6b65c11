"""Server trouble after the first connect is data, never an exception or a hang.

Each test gets its own server (mariadb_factory): these ones SIGSTOP and restart it.
"""

from __future__ import annotations

import time

import pytest

from mysqltop.core.sample import Failure
from mysqltop.sources.live import LiveSource
from mysqltop.sources.mysql import MySQLSource

pytestmark = pytest.mark.live

INTERVAL = 1.0


def timed_read(src) -> tuple[float, object]:
    t0 = time.monotonic()
    s = src.read()
    return time.monotonic() - t0, s


def paced(src, seconds: float):
    """Read every INTERVAL for `seconds`, like the engine; yields (read duration, sample)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.monotonic()
        yield timed_read(src)
        time.sleep(max(0.0, INTERVAL - (time.monotonic() - t0)))


def test_sigstop_gives_stale_samples_then_fresh_ones_after_sigcont(mariadb_factory) -> None:
    db = mariadb_factory(name="stop")
    src = LiveSource(MySQLSource(db.options(), interval=INTERVAL))
    src.mysql.open()
    try:
        assert src.read().error is None
        db.pause()
        try:
            frozen = list(paced(src, 5.0))
        finally:
            db.resume()
        resumed_at = time.monotonic()
        # every read came back within the read timeout (+ slack), every sample is an error sample
        assert len(frozen) >= 4
        assert max(d for d, _ in frozen) < src.mysql.read_timeout + 0.5
        assert all(s.error for _, s in frozen)
        assert "timed out" in frozen[0][1].error or "Lost connection" in frozen[0][1].error
        assert {s.failure for _, s in frozen} == {Failure.TIMEOUT}     # a frozen server does not answer
        assert all(s.innodb_status is None and s.variables for _, s in frozen)   # variables carried
        # fresh data within two intervals of SIGCONT
        fresh = None
        for _ in range(3):
            d, s = timed_read(src)
            if s.error is None:
                fresh = s
                break
            time.sleep(INTERVAL)
        assert fresh is not None, "no fresh sample after SIGCONT"
        assert time.monotonic() - resumed_at <= 2 * INTERVAL + 0.5
        assert "INNODB MONITOR OUTPUT" in fresh.innodb_status and fresh.host is not None
        assert src.mysql.reconnects == 1
    finally:
        src.close()


def test_restart_gives_error_samples_with_backoff_then_recovers(mariadb_factory) -> None:
    db = mariadb_factory(name="restart")
    src = LiveSource(MySQLSource(db.options(), interval=INTERVAL))
    src.mysql.open()
    try:
        assert src.read().error is None
        db.query("SELECT SLEEP(1.1)")          # so Uptime before the restart is surely > 0
        old_pid = db.pid
        uptime0, read0 = int(src.read().global_status["Uptime"]), time.monotonic()
        db.stop(remove=False)
        down = []
        end = time.monotonic() + 4.0
        while time.monotonic() < end:
            down.append(timed_read(src))
            time.sleep(0.1)
        assert all(s.error for _, s in down)
        assert all(d < 1.0 for d, _ in down[1:])          # no blocking while it is down (a blocking read waits out the 5 s connect timeout)
        # back-off: first attempt at once, then after 1 s, then 2 s → 2 or 3 failures in 4 s
        assert src.mysql._rc_failures in (2, 3)
        assert any("reconnecting in" in s.error for _, s in down)
        assert any("Connection refused" in s.error for _, s in down)
        assert down[0][1].failure is Failure.LOST and down[-1][1].failure is Failure.UNREACHABLE
        db.start()
        started = time.monotonic()
        recovered = None
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            s = src.read()
            if s.error is None:
                recovered = s
                break
            time.sleep(0.25)
        assert recovered is not None, "no recovery within 15 s after restart"
        # counters restarted with the server (derive turns this into null rates, not negative ones)
        uptime = int(recovered.global_status["Uptime"])
        assert uptime <= time.monotonic() - started + 1
        assert uptime < uptime0 + (time.monotonic() - read0) - 3    # the 4 s outage is not in it
        assert src.capabilities.mysqld_pid == db.pid != old_pid     # watching the new process
        assert recovered.host.mysqld_threads > 1
        assert src.mysql.reconnects == 1
    finally:
        src.close()


def test_a_reconnect_failing_after_close_does_not_rearm_reconnecting(mariadb, monkeypatch) -> None:
    # close() while a background connect is in flight: when that attempt then fails, the source
    # must stay closed (a later read — a worker racing the UI's shutdown — starts no new thread).
    import threading

    from mysqltop.errors import UserError
    from mysqltop.sources import mysql as mysql_mod

    gate, attempts = threading.Event(), []

    def gated_connect(*args, **kw):
        attempts.append(1)
        gate.wait(5)
        raise UserError("cannot connect: Connection refused")

    src = MySQLSource(mariadb.options(), interval=INTERVAL)
    src.open()
    monkeypatch.setattr(mysql_mod, "connect", gated_connect)
    src._drop("poll failed: server gone", Failure.LOST)
    assert src.read().error                      # starts the background attempt
    thread = src._rc_thread
    src.close()
    gate.set()
    thread.join(5)
    time.sleep(1.2)                              # past the back-off of one failed attempt
    assert src.read().error and len(attempts) == 1
    assert src._rc_thread is thread              # no new attempt after close


def test_a_locked_account_is_denied_not_disconnected(mariadb_factory) -> None:
    db = mariadb_factory(name="lock")
    src = MySQLSource(db.options(), interval=INTERVAL)
    src.open()
    try:
        assert src.read().error is None
        for host in ("%", "localhost"):
            db.query(f"ALTER USER 'mysqltop'@'{host}' ACCOUNT LOCK")
        for (pid,) in db.query("SELECT ID FROM information_schema.PROCESSLIST WHERE USER='mysqltop'"):
            db.query(f"KILL {pid}")
        seen = []
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and Failure.DENIED not in seen:
            s = src.read()
            seen.append(s.failure)
            time.sleep(0.3)
        assert Failure.DENIED in seen, seen
    finally:
        src.close()
