"""The poller's one connection: the first connect, losing it, and getting it back.

Recover at once: after a lost or refused connection, every read tries to connect (short connect
timeout) for RETRY_FAST_S, then one attempt every BACKOFF_MAX_S; an attempt runs in its own
thread and a read waits for it up to an interval, so a server that answers again gives a fresh
sample in that very read. Each failure is classified (sources/failure.py). Only the first
connect raises UserError — after that, server trouble is data, not an exception.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any, Callable

from mysqltop.config import ConnectionOptions
from mysqltop.core.sample import Failure
from mysqltop.errors import UserError
from mysqltop.sources import capabilities as caps_mod
from mysqltop.sources.capabilities import Capabilities, connect, detect_capabilities
from mysqltop.sources.failure import classify
from mysqltop.sources.poll_timing import Timing
from mysqltop.sources.read_caps import bound_session

RETRY_FAST_S = 30.0            # after a failure, a connect attempt every read for this long …
BACKOFF_MAX_S = 30.0           # … then one every this many seconds


class Link:
    """The connection a source polls through (`conn`: None while down) and its reconnecting.
    `on_adopt(conn, caps)` runs for every connection taken into use (maybe a restarted server)."""

    def __init__(self, opts: ConnectionOptions, timing: Timing,
                 on_adopt: Callable[[Any, Capabilities], None]) -> None:
        self.opts = opts
        self.timing = timing
        self.on_adopt = on_adopt
        self.conn: Any = None
        self.reconnects = 0
        self.last_error: str | None = None
        self.last_failure = Failure.UNREACHABLE
        # reconnect state (guarded by _rc_lock)
        self._rc_lock = threading.Lock()
        self._rc_thread: threading.Thread | None = None
        self._rc_ready: tuple[Any, Capabilities] | None = None
        self._rc_failures = 0
        self._rc_next_at = 0.0
        self._failing_since: float | None = None

    def open(self) -> Capabilities:
        """First connect: raises UserError (exit 2) for the documented problems."""
        # The handshake and the first questions wait at most the answer timeout; only adopted
        # connections get the long hard cap (PyMySQL reads the greeting with the read timeout).
        t = self.timing
        import pymysql

        conn = connect(self.opts, max(t.answer_timeout, self.opts.connect_timeout), self.opts.connect_timeout)
        try:
            caps = detect_capabilities(conn, self.opts, strict=True, bounds=bound_session(conn))
        except pymysql.err.MySQLError as e:
            # a connection that broke, or an answer too large or malformed to take: one line
            conn.close()
            raise UserError(f"cannot read what {self.opts.address} offers: {caps_mod.one_line(e)}") from e
        except BaseException:
            conn.close()
            raise
        self._adopt(conn, caps)
        return caps

    def apply_timeouts(self) -> None:
        """The timing changed (a new interval): the open connection follows."""
        conn = self.conn
        if conn is not None:
            conn._read_timeout = conn._write_timeout = self.timing.read_timeout  # PyMySQL keeps them here

    def _adopt(self, conn: Any, caps: Capabilities) -> None:
        self.conn = conn
        self.apply_timeouts()
        self.on_adopt(conn, caps)

    def answered(self) -> None:
        """A poll answered: the connection is healthy again."""
        self._failing_since = None

    def drop(self, why: str, failure: Failure) -> None:
        if self.conn is not None:           # no poll is reading it any more
            try:
                self.conn._force_close()
            except Exception:  # noqa: BLE001 - already broken
                pass
        self.conn = None
        self.last_error = why
        self.last_failure = failure
        with self._rc_lock:
            if self._failing_since is None:
                self._failing_since = time.monotonic()
            if self._rc_next_at != float("inf"):
                self._rc_next_at = time.monotonic()  # first attempt right away (unless closed)

    def connect_now(self, now: float) -> bool:
        """Adopt a finished connect, or start one when due and wait for it up to an interval (so
        a server that answers again gives a fresh sample in this very read). False: still down."""
        with self._rc_lock:
            if self._failing_since is None:
                self._failing_since = now
            ready, self._rc_ready = self._rc_ready, None
            thread = self._rc_thread if self._rc_thread is not None and self._rc_thread.is_alive() else None
            if ready is None and thread is None and now >= self._rc_next_at:
                thread = self._rc_thread = threading.Thread(target=self._reconnect, name="mysqltop-reconnect",
                                                            daemon=True)
                thread.start()
        if ready is None and thread is not None:
            t = self.timing
            thread.join(max(0.1, min(t.interval, t.retry_connect_timeout + 0.5)))
            with self._rc_lock:
                ready, self._rc_ready = self._rc_ready, None
        if ready is None:
            return False
        self.reconnects += 1
        self._adopt(*ready)
        return True

    def _reconnect(self) -> None:
        t = self.timing
        try:
            conn = connect(self.opts, t.retry_connect_timeout, t.retry_connect_timeout)
            conn._read_timeout = conn._write_timeout = t.answer_timeout
            try:
                caps = detect_capabilities(conn, self.opts, strict=False, bounds=bound_session(conn))
            except BaseException:
                conn.close()
                raise
        except Exception as e:  # noqa: BLE001 - reported through the next error sample
            with self._rc_lock:
                self._rc_failures += 1
                failing = time.monotonic() - (self._failing_since or time.monotonic())
                delay = 0.0 if failing < RETRY_FAST_S else BACKOFF_MAX_S
                if self._rc_next_at != float("inf"):     # closed meanwhile: stay closed
                    self._rc_next_at = time.monotonic() + delay
                self.last_error = caps_mod.one_line(e.message if isinstance(e, UserError) else e)
                self.last_failure = classify(e)
            return
        with self._rc_lock:
            if self._rc_next_at != float("inf"):
                self._rc_ready = (conn, caps)
                return
        conn.close()                                  # closed meanwhile: nobody will adopt it

    def waiting_message(self) -> str:
        with self._rc_lock:
            wait = self._rc_next_at - time.monotonic()
            running = self._rc_thread is not None and self._rc_thread.is_alive()
        state = "reconnecting" if running or wait <= 0 else f"reconnecting in {wait:.0f} s"
        return f"{self.last_error or 'not connected'} ({state})"

    def close(self, polling: bool) -> None:
        """No further attempts; `polling`: a poll may be reading the connection right now."""
        conn, self.conn = self.conn, None
        if conn is not None:
            if not polling:
                try:
                    conn.close()                      # COM_QUIT: the server logs no aborted connection
                except Exception:  # noqa: BLE001 - closing a dead connection
                    pass
            else:
                force_close(conn)
        with self._rc_lock:
            ready, self._rc_ready = self._rc_ready, None
            self._rc_next_at = float("inf")          # no further attempts after close
        if ready is not None:
            ready[0].close()


def force_close(conn: Any) -> None:
    """End the connection without a goodbye while another thread may be reading it: shut the
    socket down (the reader wakes with an error and PyMySQL closes it there). Closing it from
    here would block on the buffered reader's lock the reading thread holds."""
    sock = getattr(conn, "_sock", None)
    if sock is None:
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:  # already broken
        pass


def enable_instruments(opts: ConnectionOptions) -> list[str]:
    """--enable-instruments: turn the wait/synch instruments on, and what lists the lock holders
    (MariaDB: the metadata_lock_info plugin; MySQL: the metadata-lock instrument); lines saying
    what changed (a refused lock-holder statement is a line, not a failure)."""
    from mysqltop.sources.lock_holders import enable_lock_holders

    conn = connect(opts, 10.0, opts.connect_timeout)
    try:
        lines = caps_mod.enable_synch_instruments(conn)
        try:
            lines += enable_lock_holders(conn)
        except UserError as e:
            lines.append(f"lock holders not listed: {e.message}")
        return lines
    finally:
        conn.close()


def run_lock_holders(opts: ConnectionOptions, flavor: str | None = None) -> list[str]:
    """The TUI's `m` key, confirmed: the lock-holder statement on a connection of its own."""
    from mysqltop.sources.lock_holders import enable_lock_holders

    conn = connect(opts, 10.0, opts.connect_timeout)
    try:
        return enable_lock_holders(conn, flavor)
    finally:
        conn.close()
