"""Server trouble after the first connect is data, never an exception or a hang — and the monitor
is back within two intervals of the server answering again.

Each test gets its own server (mariadb_factory): these ones SIGSTOP, kill, restart and lock it.
The engine runs as in the TUI (its own thread, paced at INTERVAL); the test only watches frames.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from mysqltop.core.frame import Frame
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.core.sample import Failure
from mysqltop.engine import Engine
from mysqltop.sources.live_source import LiveSource
from mysqltop.sources.mysql import MySQLSource

pytestmark = pytest.mark.live

INTERVAL = 1.0
# Two intervals after the server answers again, plus what a busy 2-core box adds to one connect.
RECOVERY_S = 2 * INTERVAL + 1.0


class Watched:
    """An engine polling a live source in its own thread; frames with their arrival time."""

    def __init__(self, db, answer_timeout: float | None = None,  # type: ignore[no-untyped-def]
                 host_clock: bool = False) -> None:
        mysql = MySQLSource(db.options(), interval=INTERVAL, answer_timeout=answer_timeout)
        self.source = LiveSource(mysql, host_clock=host_clock)
        mysql.open()
        self.engine = Engine(self.source, PolledTimeline())
        self.frames: list[tuple[float, Frame]] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.engine.run, args=(INTERVAL,),
                                       kwargs={"on_frame": self._got, "stop_event": self.stop}, daemon=True)
        self.thread.start()

    def _got(self, frame: Frame) -> None:
        self.frames.append((time.monotonic(), frame))

    def since(self, t: float) -> list[tuple[float, Frame]]:
        return [(at, f) for at, f in self.frames if at >= t]

    def wait_for(self, cond, timeout: float) -> tuple[float, Frame] | None:  # type: ignore[no-untyped-def]
        end = time.monotonic() + timeout
        seen = len(self.frames)
        while time.monotonic() < end:
            for at, f in self.frames[seen:]:
                if cond(f):
                    return at, f
            seen = len(self.frames)
            time.sleep(0.05)
        return None

    def close(self) -> None:
        self.stop.set()
        self.thread.join(30)
        self.engine.close()


def fresh(f: Frame) -> bool:
    return not f.stale


def test_sigstop_is_waited_for_host_keeps_ticking_and_fresh_at_once_after_sigcont(mariadb_factory) -> None:
    db = mariadb_factory(name="stop")
    w = Watched(db)
    try:
        assert w.wait_for(fresh, 20)
        db.pause()
        paused = time.monotonic()
        try:
            timeout = w.wait_for(lambda f: f.stale, 20)
            assert timeout is not None, "no frame while the server was stopped"
            time.sleep(3 * INTERVAL)
        finally:
            db.resume()
        resumed = time.monotonic()
        during = [f for at, f in w.since(paused) if at < resumed]
        # only after the generous answer timeout, never for a merely slow poll
        assert timeout[0] - paused >= w.source.mysql.answer_timeout - 0.5
        assert {f.failure for f in during if f.stale} == {"timeout"}
        # the host view keeps its own clock: counters with rates in every stale frame
        stale = [f for f in during if f.stale]
        assert len(stale) >= 2 and all(f.host is not None and f.host.ctx_switches_per_s is not None for f in stale)
        back = w.wait_for(fresh, 30)
        assert back is not None and back[0] - resumed <= RECOVERY_S, back and back[0] - resumed
        # the poll was waited for, not cut: same connection, nothing in the server's log
        assert w.source.mysql.reconnects == 0
        assert "Aborted connection" not in db.log_tail(200)
    finally:
        w.close()


def test_sigstop_host_counters_arrive_every_interval_from_the_first(mariadb_factory) -> None:
    """With the host on its own clock (the TUI, `record`), a hung poll yields a sample every
    interval from the first one on — waiting (late, not failed), then not answering — each with
    fresh host counters; the late answer is delivered when the server runs again."""
    db = mariadb_factory(name="hostclock")
    w = Watched(db, answer_timeout=6 * INTERVAL, host_clock=True)
    try:
        assert w.wait_for(fresh, 20)
        db.pause()
        paused = time.monotonic()
        try:
            assert w.wait_for(lambda f: f.failure == "waiting", 20), "no host sample while the poll hangs"
            assert w.wait_for(lambda f: f.failure == "timeout", 30), "never counted as not answering"
            time.sleep(INTERVAL)
        finally:
            db.resume()
        resumed = time.monotonic()
        during = [f for at, f in w.since(paused) if at < resumed and f.stale]
        kinds = [f.failure for f in during]
        assert kinds[0] == "waiting" and "timeout" in kinds, kinds
        assert kinds.index("timeout") >= 2              # an interval's worth of waiting samples first
        assert all(f.host is not None and f.host.ctx_switches_per_s is not None for f in during)
        times = [f.time for f in during]
        assert times == sorted(times) and len(set(times)) == len(times)   # each of its own moment
        back = w.wait_for(fresh, 30)
        assert back is not None
        assert back[1].late_s is not None and back[1].late_s > 0           # the late answer, delivered
        assert back[1].time >= times[-1]
        assert w.source.mysql.reconnects == 0
        assert "Aborted connection" not in db.log_tail(200)
    finally:
        w.close()


def test_restart_is_lost_then_unreachable_then_fresh_within_two_intervals(mariadb_factory) -> None:
    db = mariadb_factory(name="restart")
    w = Watched(db)
    try:
        assert w.wait_for(fresh, 20)
        old_pid = db.pid
        db.stop(remove=False)
        stopped = time.monotonic()
        assert w.wait_for(lambda f: f.failure == "unreachable", 15)
        time.sleep(2 * INTERVAL)
        down = [f for _, f in w.since(stopped)]
        assert all(f.stale for f in down) and down[0].failure in ("lost", "unreachable")
        # retried every interval, not on a growing back-off
        assert len(down) >= 3
        db.start()
        answering = time.monotonic()
        back = w.wait_for(fresh, 30)
        assert back is not None and back[0] - answering <= RECOVERY_S, back and back[0] - answering
        assert w.source.capabilities.mysqld_pid == db.pid != old_pid      # watching the new process
    finally:
        w.close()


def test_kill_9_and_restart_recovers_within_two_intervals(mariadb_factory) -> None:
    db = mariadb_factory(name="kill9")
    w = Watched(db)
    try:
        assert w.wait_for(fresh, 20)
        os.kill(db.pid, signal.SIGKILL)
        db.proc.wait(30)
        assert w.wait_for(lambda f: f.stale and f.failure in ("lost", "unreachable"), 15)
        db.start()                                  # crash recovery, then ready for connections
        answering = time.monotonic()
        back = w.wait_for(fresh, 30)
        assert back is not None and back[0] - answering <= RECOVERY_S, back and back[0] - answering
    finally:
        w.close()


def test_a_locked_account_is_denied_and_fresh_within_two_intervals_of_unlock(mariadb_factory) -> None:
    db = mariadb_factory(name="lock")
    w = Watched(db)
    try:
        assert w.wait_for(fresh, 20)
        for host in ("%", "localhost"):
            db.query(f"ALTER USER 'mysqltop'@'{host}' ACCOUNT LOCK")
        for (pid,) in db.query("SELECT ID FROM information_schema.PROCESSLIST WHERE USER='mysqltop'"):
            db.query(f"KILL {pid}")
        denied = w.wait_for(lambda f: f.failure == "denied", 15)
        assert denied is not None and "locked" in denied[1].why_stale().lower()
        for host in ("%", "localhost"):
            db.query(f"ALTER USER 'mysqltop'@'{host}' ACCOUNT UNLOCK")
        answering = time.monotonic()
        back = w.wait_for(fresh, 30)
        assert back is not None and back[0] - answering <= RECOVERY_S, back and back[0] - answering
    finally:
        w.close()


def test_after_30_s_of_failures_attempts_back_off_to_30_s(mariadb, monkeypatch) -> None:
    """Fast retries for RETRY_FAST_S, then one attempt per BACKOFF_MAX_S (a server down for a
    day is not hammered)."""
    from mysqltop.errors import UserError
    from mysqltop.sources import connection as mysql_mod

    attempts: list[float] = []

    def refused(*args, **kw):  # type: ignore[no-untyped-def]
        attempts.append(time.monotonic())
        raise UserError("cannot connect: Connection refused") from ConnectionRefusedError(111, "refused")

    src = MySQLSource(mariadb.options(), interval=INTERVAL)
    src.open()
    monkeypatch.setattr(mysql_mod, "connect", refused)
    src.link.drop("poll failed: server gone", Failure.LOST)
    src.link._failing_since = time.monotonic() - mysql_mod.RETRY_FAST_S - 1     # down for over 30 s
    try:
        assert src.read().failure is Failure.UNREACHABLE
        for _ in range(5):
            assert src.read().error
        assert len(attempts) == 1 and "reconnecting in" in src.read().error
    finally:
        src.close()


def test_a_reconnect_failing_after_close_does_not_rearm_reconnecting(mariadb, monkeypatch) -> None:
    # close() while a background connect is in flight: when that attempt then fails, the source
    # must stay closed (a later read — a worker racing the UI's shutdown — starts no new thread).
    from mysqltop.errors import UserError
    from mysqltop.sources import connection as mysql_mod

    gate, attempts = threading.Event(), []

    def gated_connect(*args, **kw):  # type: ignore[no-untyped-def]
        attempts.append(1)
        gate.wait(5)
        raise UserError("cannot connect: Connection refused")

    src = MySQLSource(mariadb.options(), interval=0.2)
    src.open()
    monkeypatch.setattr(mysql_mod, "connect", gated_connect)
    src.link.drop("poll failed: server gone", Failure.LOST)
    assert src.read().error                      # starts the background attempt
    thread = src.link._rc_thread
    src.close()
    gate.set()
    thread.join(5)
    time.sleep(0.5)
    assert src.read().error and len(attempts) == 1
    assert src.link._rc_thread is thread              # no new attempt after close
