"""Live MySQL/MariaDB/Percona: connect, detect capabilities, poll into RawSamples.

Never blind during an incident. The jobs live in their own modules:
- poll_statements: what a poll asks and the round trip that sends it;
- poll_results: result sets → RawSample fields;
- connection: the first connect, losing the connection and getting it back (classified failures);
- poll_timing: late vs not answering, and the poll thread.
This module wires them into a SampleSource.
"""

from __future__ import annotations

import dataclasses
import re
import threading
import time
from typing import Any, Callable

from mysqltop.config import ConnectionOptions
from mysqltop.core.sample import Failure, HostSample, RawSample, ServerIdentity
from mysqltop.sources import capabilities as caps_mod
from mysqltop.sources import lock_reads as locks_src
from mysqltop.sources import poll_results
from mysqltop.sources.capabilities import Capabilities
from mysqltop.sources.connection import Link, enable_instruments, run_lock_holders
from mysqltop.sources.failure import classify
from mysqltop.sources.poll_statements import (
    K_VARS, STATUS_NAMES, VARIABLE_NAMES, Poll, PollStats, StatementPlan,
)
from mysqltop.sources.poll_timing import Inflight, PollThread, Timing, wait_for_answer
from mysqltop.sources.read_caps import CapBook

# The redo log's position: it only grows for one data directory, so a server that comes back with
# it lower holds other data (a restored snapshot), whatever it calls itself.
_LSN = re.compile(r"^Log sequence number\s+(\d+)(?:\s+(\d+))?", re.M)


def redo_lsn(raw: RawSample) -> int | None:
    """The sample's LSN: Innodb_lsn_current (MariaDB), else the status text's (a pre-5.5 server
    prints it as two 32-bit words)."""
    v = raw.global_status.get("Innodb_lsn_current")
    if v is not None and v.isdigit():
        return int(v)
    m = _LSN.search(raw.innodb_status or "")
    if m is None:
        return None
    return (int(m.group(1)) << 32) + int(m.group(2)) if m.group(2) else int(m.group(1))


class MySQLSource:
    """SampleSource for a live server (without host counters: see sources/live_source.py)."""

    replay = False

    def __init__(self, opts: ConnectionOptions, interval: float = 1.0,
                 answer_timeout: float | None = None,
                 host_probe: Callable[[], HostSample | None] | None = None) -> None:
        self.opts = opts
        self.timing = Timing(interval, answer_timeout, opts.connect_timeout)
        self.host_probe = host_probe            # host counters read at each sample's time
        self.host_clock = False                 # a sample every interval while a poll hangs (host counters)
        self.capabilities: Capabilities | None = None
        self.plan: StatementPlan | None = None
        self.stats = PollStats()
        self.book = CapBook()                   # reads a bound cut, across reconnects
        # Which server answers: its uid as last seen, the redo position it had, and since when it
        # answers if it replaced another one at this address (ServerIdentity.replaced_at).
        self._seen_uid: str | None = None
        self._last_lsn: int | None = None
        self._replaced_at: float | None = None
        self._check_lsn = False                 # a new connection: its first answer checks the LSN
        self.link = Link(opts, self.timing, self._adopted)
        self._poll_lock = threading.Lock()
        self._variables: dict[str, str] = {}
        self._inflight: Inflight[Poll] | None = None
        self._thread: PollThread[Poll] = PollThread()

    # ---- timing ------------------------------------------------------------------------------
    @property
    def interval(self) -> float:
        return self.timing.interval

    @property
    def answer_timeout(self) -> float:
        return self.timing.answer_timeout

    @property
    def read_timeout(self) -> float:
        return self.timing.read_timeout

    def set_interval(self, interval: float) -> None:
        """New poll spacing (TUI +/-): the read timeout follows it, on the open connection too."""
        self.timing.set(interval)
        self.link.apply_timeouts()

    # ---- connection --------------------------------------------------------------------------
    def open(self) -> Capabilities:
        """First connect: raises UserError (exit 2) for the documented problems."""
        return self.link.open()

    def _adopted(self, conn: Any, caps: Capabilities) -> None:
        self.capabilities = caps
        if self._seen_uid is not None and caps.uid != self._seen_uid:
            self._replaced_at = time.time()     # another server answers at this address from now
            self._last_lsn = None
        self._seen_uid = caps.uid
        self._check_lsn = True
        # a new connection (maybe a restarted server): all anew
        self.plan = StatementPlan(caps, getattr(conn, "server_thread_id", (None,))[0],
                                  locks_src.has_mdl_plugin(conn, caps.flavor), self.book)

    @property
    def reconnects(self) -> int:
        return self.link.reconnects

    @property
    def identity(self) -> ServerIdentity:
        if self.capabilities is None:
            return ServerIdentity(address=self.opts.address)
        return dataclasses.replace(self.capabilities.identity(), replaced_at=self._replaced_at)

    def _same_data(self, raw: RawSample) -> RawSample:
        """The first answer of a new connection: a redo position lower than the last one seen
        means other data (a restored snapshot) under the same name: a different server."""
        lsn = redo_lsn(raw)
        if self._check_lsn:
            self._check_lsn = False
            if lsn is not None and self._last_lsn is not None and lsn < self._last_lsn:
                self._replaced_at = raw.wall
                raw = dataclasses.replace(raw, server=self.identity)
        if lsn is not None:
            self._last_lsn = lsn
        return raw

    def enable_lock_holders(self) -> list[str]:
        """Make the server list lock holders (the TUI's `m`, confirmed): on a connection of its
        own, so a poll in flight is not held up; the polls pick it up while sessions wait."""
        return run_lock_holders(self.opts, self.capabilities.flavor if self.capabilities else None)

    # ---- polling -----------------------------------------------------------------------------
    def read(self) -> RawSample:
        with self._poll_lock:              # polls never overlap, whoever calls
            called = time.monotonic()
            job = self._inflight
            if job is None:
                wall, mono = time.time(), time.monotonic()
                host = self._host()
                if self.link.conn is None and not self.link.connect_now(called):
                    return self._error_sample(wall, mono, host, self.link.waiting_message(), self.link.last_failure)
                job = self._inflight = Inflight(wall, time.monotonic(), host)
                conn = self.link.conn
                self._thread.submit(job, lambda: self._poll(job.mono, conn))
            not_yet = wait_for_answer(job, called, self.timing, self.host_clock, self._host)
            if not_yet is not None:
                return self._error_sample(not_yet.wall, not_yet.mono, not_yet.host, not_yet.message, not_yet.failure)
            self._inflight = None
            return self._finish(job)

    def _finish(self, job: Inflight[Poll]) -> RawSample:
        took = job.took
        if job.overtaken:
            # Samples of later moments were returned while this poll ran: its answer is stamped
            # when it is taken (right as it came: a frozen server answers as it resumes), so
            # time never goes backwards.
            job.wall, job.mono, job.host = time.time(), time.monotonic(), self._host()
        if job.exc is not None:
            self.link.drop(f"poll failed: {caps_mod.one_line(job.exc)}", classify(job.exc))
            return self._error_sample(job.wall, job.mono, job.host, self.link.last_error or "poll failed",
                                      self.link.last_failure)
        poll = job.result
        assert poll is not None
        self.link.answered()
        poll.timings_ms["poll"] = round(took * 1000.0, 3)
        if took > self.interval:
            poll.timings_ms["late"] = round((took - self.interval) * 1000.0, 3)
        try:
            return self._same_data(self._sample(job.wall, job.mono, job.host, poll))
        except Exception as e:  # noqa: BLE001 - an odd result shape costs this sample, not the session
            return self._error_sample(job.wall, job.mono, job.host, f"unexpected poll result: "
                                      f"{type(e).__name__}: {caps_mod.one_line(e)}", Failure.OTHER)

    def _host(self) -> HostSample | None:
        if self.host_probe is None:
            return None
        try:
            return self.host_probe()
        except Exception:  # noqa: BLE001 - host counters are best effort, the DB sample still counts
            return None

    def _poll(self, mono: float, conn: Any) -> Poll:
        plan = self.plan
        assert plan is not None
        poll = Poll()
        plan.book.begin_poll()
        conn.bytes_in = conn.bytes_out = 0
        trips = plan.send(conn, plan.statements(mono), poll)
        if second := plan.second_trip(poll):
            trips += plan.send(conn, second, poll)
        self.stats = PollStats(round_trips=trips, statements=len(poll.values) + len(poll.errors),
                               bytes_received=conn.bytes_in, bytes_sent=conn.bytes_out)
        if K_VARS in poll.values:
            # a new map, never changed afterwards: every sample until the next read shares it
            self._variables = {str(k): str(v) for k, v in poll.values[K_VARS]}
            plan.variables_at = mono
        return poll

    def _sample(self, wall: float, mono: float, host: HostSample | None, p: Poll) -> RawSample:
        assert self.plan is not None
        return poll_results.sample(self.plan, wall, mono, self.identity, host, p, self._variables)

    def _error_sample(self, wall: float, mono: float, host: HostSample | None, message: str,
                      failure: Failure) -> RawSample:
        return RawSample(wall=wall, mono=mono, server=self.identity, host=host,
                         variables=self._variables, error=message, failure=failure, capped=self.book.report(mono))

    def close(self) -> None:
        # Not under the poll lock: a read() may be waiting on a hung poll; closing the socket ends it.
        self.link.close(polling=self._inflight is not None)
        self._thread.close()


__all__ = ["Capabilities", "MySQLSource", "PollStats", "STATUS_NAMES", "VARIABLE_NAMES", "enable_instruments"]
