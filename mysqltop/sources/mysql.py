"""Live MySQL/MariaDB/Percona: connect, detect capabilities, poll into RawSamples.

One connection, one round trip per poll (CLIENT.MULTI_STATEMENTS; result sets walked with
nextset()). Never blind during an incident:

- slow is late, not stale: a poll runs in its own thread and is waited for, however long it
  takes (the socket read timeout is only a hard cap of minutes), so a busy server yields a late
  sample (timings_ms["poll"], ["late"]) and no "Aborted connection" line in its log. Only after
  `answer_timeout` (default max(5 s, 3 intervals), never below the interval) does read() return
  samples with failure=timeout — one per call, carrying host counters — until the poll answers;
- recover at once: after a lost or refused connection, read() tries to connect (short connect
  timeout) every call for RETRY_FAST_S, then every BACKOFF_MAX_S, and polls in the same call
  when the connect succeeds.

Each failure is classified (sources/failure.py) into RawSample.failure. Only the first connect
(MySQLSource.open) raises UserError — after that, server trouble is data, not an exception.
"""

from __future__ import annotations

import json
import queue
import socket
import threading
import time
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Callable

from mysqltop.config import ConnectionOptions
from mysqltop.core.sample import POLL_STATEMENTS, Failure, HostSample, RawSample, ServerIdentity
from mysqltop.core.derive import METRIC_NAMES
from mysqltop.core.derive import STATUS_NAMES as DERIVE_STATUS_NAMES
from mysqltop.core.derive import VARIABLE_NAMES as DERIVE_VARIABLE_NAMES
from mysqltop.errors import UserError
from mysqltop.sources import capabilities as caps_mod
from mysqltop.sources import locks as locks_src
from mysqltop.sources.capabilities import Capabilities, connect, detect_capabilities
from mysqltop.sources.failure import classify

# The status counters the frame reads come from derive (one list, no drift); the extras below
# are the few that `parse` and the tests also look at. Everything else stays on the server: each
# row costs the client a packet to decode every poll, for every server of a fleet.
_EXTRA_STATUS: tuple[str, ...] = (
    "Threads_connected", "Innodb_buffer_pool_wait_free", "Innodb_log_waits", "Innodb_os_log_pending_fsyncs",
)
STATUS_NAMES: tuple[str, ...] = tuple(dict.fromkeys(DERIVE_STATUS_NAMES + _EXTRA_STATUS))

# Settings the advice cites; innodb_% is read whole (cheap, and only every VARIABLES_EVERY_S).
VARIABLE_NAMES: tuple[str, ...] = (
    "table_open_cache", "table_open_cache_instances", "table_definition_cache", "sync_binlog",
    "log_bin", "max_connections", "thread_handling", "thread_pool_size", "performance_schema",
    "version", "version_comment", "hostname", "binlog_format", *DERIVE_VARIABLE_NAMES,
)
VARIABLES_EVERY_S = 60.0
# MUTEX returned no rows in this many polls → ask only every MUTEX_RETRY_S: MySQL lists a latch
# only after it waited, so an idle server just started has none yet (the incident comes later).
MUTEX_GIVE_UP_POLLS = 5
MUTEX_RETRY_S = 60.0
RETRY_FAST_S = 30.0            # after a failure, a connect attempt every read for this long …
BACKOFF_MAX_S = 30.0           # … then one every this many seconds
ANSWER_TIMEOUT_MIN_S = 5.0     # a poll is "not answering" after max(this, ANSWER_INTERVALS × interval)
ANSWER_INTERVALS = 3.0
HARD_CAP_S = 300.0             # socket read timeout: a connection silent this long is cut
GROUP_CONCAT_MAX_LEN = 4 * 2**20

# Only what derive reads: the count and the total wait of each latch that waited (MIN/AVG/MAX
# are not read, and condition waits are threads sleeping, never a hotspot: core/hotspots.py).
_PS_WAITS_FROM = (
    "FROM performance_schema.events_waits_summary_global_by_event_name "
    "WHERE EVENT_NAME LIKE 'wait/synch/%' AND EVENT_NAME NOT LIKE 'wait/synch/cond/%' AND COUNT_STAR > 0")
PS_WAITS_SQL = "SELECT EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT " + _PS_WAITS_FROM
# The same rows as one JSON text where the server has JSON_ARRAYAGG: one packet instead of ~100
# row packets PyMySQL decodes in Python (the JSON is parsed in C; integers stay exact).
# COUNT(*) rides along: MariaDB builds the text like GROUP_CONCAT and cuts it at
# group_concat_max_len, so a text with fewer rows than counted is refused, not trusted.
PS_WAITS_JSON_SQL = ("SELECT JSON_ARRAYAGG(JSON_ARRAY(EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT)), COUNT(*) "
                     + _PS_WAITS_FROM)


def has_json_arrayagg(flavor: str, version: tuple[int, ...]) -> bool:
    """MariaDB 10.5+, MySQL / Percona 5.7.22+."""
    return tuple(version[:3]) >= ((10, 5, 0) if flavor == "mariadb" else (5, 7, 22))


def _ps_rows(rows: Any, as_json: bool) -> list[list[Any]]:
    """[EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT] rows from the plain or the JSON form."""
    if not as_json:
        return [[str(r[0]), *(int(x) for x in r[1:])] for r in rows]
    text = rows[0][0] if rows and rows[0] else None      # NULL: no row matched
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8", "replace")
    out = json.loads(text) if text else []
    counted = rows[0][1] if rows and len(rows[0]) > 1 else None
    if counted is not None and isinstance(out, list) and len(out) != int(counted):
        raise ValueError(f"performance_schema waits: {len(out)} of {counted} rows in the JSON text")
    # type checks by C-level map/zip: this runs for ~100 rows of every server every poll
    if not isinstance(out, list) or not set(map(type, out)) <= {list} or not set(map(len, out)) <= {3}:
        raise ValueError("performance_schema waits: unexpected JSON shape")
    names, counts, sums = zip(*out) if out else ((), (), ())
    if not (set(map(type, names)) <= {str} and set(map(type, counts)) <= {int} and set(map(type, sums)) <= {int}):
        raise ValueError("performance_schema waits: unexpected JSON shape")
    return out


def _in_list(names: tuple[str, ...]) -> str:
    return ", ".join(f"'{n}'" for n in names)


STATUS_SQL = f"SHOW GLOBAL STATUS WHERE Variable_name IN ({_in_list(STATUS_NAMES)})"
# MariaDB 10.5+: the same counters as one JSON object (one row packet instead of ~50, decoded in
# C). information_schema spells the names in capitals; COUNT(*) refuses a text cut short.
STATUS_JSON_SQL = ("SELECT JSON_OBJECTAGG(VARIABLE_NAME, VARIABLE_VALUE), COUNT(*) FROM information_schema.GLOBAL_STATUS "
                   f"WHERE VARIABLE_NAME IN ({_in_list(STATUS_NAMES)})")
_STATUS_SPELLING = {n.upper(): n for n in STATUS_NAMES}


def _status_json(rows: Any) -> dict[str, str]:
    """{Variable_name: value} from STATUS_JSON_SQL, spelt as SHOW GLOBAL STATUS spells them."""
    row: Any = rows[0] if rows else ()
    text = row[0] if row else None
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8", "replace")
    out: Any = json.loads(text) if text else {}
    if not isinstance(out, dict) or not set(map(type, out.values())) <= {str}:
        raise ValueError("global status: unexpected JSON shape")
    if len(row) < 2 or len(out) != row[1]:
        raise ValueError(f"global status: {len(out)} of {row[1] if len(row) > 1 else '?'} rows in the JSON text")
    return {_STATUS_SPELLING.get(k) or str(k): v for k, v in out.items()}


METRICS_SQL = f"SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE NAME IN ({_in_list(METRIC_NAMES)}) AND "
VARIABLES_SQL = (f"SHOW GLOBAL VARIABLES WHERE Variable_name LIKE 'innodb\\_%' "
                 f"OR Variable_name IN ({_in_list(VARIABLE_NAMES)})")

# Statement keys used in RawSample.timings_ms / errors, in the order a poll sends them.
K_STATUS, K_MUTEX, K_PS, K_GSTATUS, K_METRICS = POLL_STATEMENTS[:5]
K_LOCK_WAITS, K_TRANSACTIONS = locks_src.K_LOCK_WAITS, locks_src.K_TRANSACTIONS
K_VARS = POLL_STATEMENTS[-1]
K_TIME = "server_time"

# Errors that will not go away by retrying: stop sending the statement, keep reporting why.
_PERMANENT = {1044, 1142, 1143, 1146, 1109, 1227, 1286, 1064, 1235}
# Server errors that mean the connection is going away (shutdown, killed): reconnect.
_CONNECTION_GONE = {1053, 1077, 1152, 1158, 1159, 1160, 1161, 1927}


@dataclass
class PollStats:
    """What the last poll cost on the wire (bench/poll reads these)."""

    round_trips: int = 0
    statements: int = 0
    bytes_received: int = 0
    bytes_sent: int = 0


@dataclass
class _Poll:
    """Results of one poll, filled statement by statement."""

    values: dict[str, Any] = field(default_factory=dict)
    timings_ms: dict[str, float] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    none_waiting: bool = False        # lock waits not asked: the transactions counted no waiting one


def _waiting(rows: Any) -> int | None:
    """Waiting transactions counted by the transactions statement's JSON form (its third
    column); None when not read."""
    row: Any = rows[0] if rows else ()
    n = row[2] if len(row) > 2 else None
    return n if type(n) is int else None


def _clock_row(rows: Any) -> dict[str, Any]:
    """RawSample fields from the server_time statement: (clock, [own session's Rows_read])."""
    row: Any = rows[0] if rows else ()
    num = [float(x) if isinstance(x, (int, float, Decimal)) or (isinstance(x, str) and x.isdigit()) else None
           for x in row]
    return {"server_time": num[0] if num else None,
            "own_rows_read": int(num[1]) if len(num) > 1 and num[1] is not None else None}


class MySQLSource:
    """SampleSource for a live server (without host counters: see sources/live.py)."""

    replay = False

    def __init__(self, opts: ConnectionOptions, interval: float = 1.0,
                 answer_timeout: float | None = None,
                 host_probe: Callable[[], HostSample | None] | None = None) -> None:
        self.opts = opts
        self._fixed_timeout = answer_timeout
        self.host_probe = host_probe            # host counters read at each sample's time
        self.host_clock = False                 # a sample every interval while a poll hangs (host counters)
        self.set_interval(interval)
        self.capabilities: Capabilities | None = None
        self.stats = PollStats()
        self.reconnects = 0
        self._conn: Any = None
        self._poll_lock = threading.Lock()
        self._variables: dict[str, str] = {}
        self._variables_at: float | None = None
        self._disabled: dict[str, str] = {}       # statement key → permanent error text
        self._mutex_empty_polls = 0
        self._mutex_asked_at = float("-inf")
        self._multi = True
        # reconnect state (guarded by _rc_lock)
        self._rc_lock = threading.Lock()
        self._rc_thread: threading.Thread | None = None
        self._rc_ready: tuple[Any, Capabilities] | None = None
        self._rc_failures = 0
        self._rc_next_at = 0.0
        self._last_error: str | None = None
        self._last_failure = Failure.UNREACHABLE
        self._failing_since: float | None = None
        self._inflight: _Inflight | None = None
        # Statements polled in their JSON form (one text instead of rows: PS_WAITS_JSON_SQL,
        # STATUS_JSON_SQL, locks.Select.as_json); a statement whose JSON form fails or reads odd
        # leaves the set and is read as plain rows from the next poll.
        self._json: set[str] = set()
        self._json_sent: frozenset[str] = frozenset()
        self._selects: dict[str, locks_src.Select] = {}
        self._worker: threading.Thread | None = None
        self._jobs: queue.SimpleQueue[tuple[_Inflight, Any] | None] = queue.SimpleQueue()

    def set_interval(self, interval: float) -> None:
        """New poll spacing (TUI +/-): the read timeout follows it, on the open connection too."""
        self.interval = interval
        # Generous and never below the interval: a busy server is waited for, not cut.
        self.answer_timeout = max(self._fixed_timeout or max(ANSWER_TIMEOUT_MIN_S, ANSWER_INTERVALS * interval),
                                  interval)
        self.read_timeout = max(HARD_CAP_S, 10 * self.answer_timeout)
        # Short, so a refused or frozen connect costs less than an interval while retrying.
        self.retry_connect_timeout = min(self.opts.connect_timeout, max(2.0, interval))
        conn = getattr(self, "_conn", None)
        if conn is not None:
            conn._read_timeout = conn._write_timeout = self.read_timeout  # PyMySQL keeps them here

    # ---- first connect ---------------------------------------------------------------------
    def open(self) -> Capabilities:
        """First connect: raises UserError (exit 2) for the documented problems."""
        # The handshake and the first questions wait at most the answer timeout; only adopted
        # connections get the long hard cap (PyMySQL reads the greeting with the read timeout).
        conn = connect(self.opts, max(self.answer_timeout, self.opts.connect_timeout), self.opts.connect_timeout)
        try:
            caps = detect_capabilities(conn, self.opts, strict=True)
            _session_setup(conn, caps)
        except BaseException:
            conn.close()
            raise
        self._adopt(conn, caps)
        return caps

    def _adopt(self, conn: Any, caps: Capabilities) -> None:
        conn._read_timeout = conn._write_timeout = self.read_timeout   # PyMySQL keeps them here
        self._conn = conn
        self._variables_at = None              # new connection (maybe a restarted server): reread settings
        self.capabilities = caps
        self._disabled.clear()
        self._mutex_empty_polls = 0
        self._selects = dict(locks_src.selects(caps.flavor, caps.version_tuple, caps.performance_schema,
                                               locks_src.has_mdl_plugin(conn, caps.flavor)))
        self._json = {K_PS} if has_json_arrayagg(caps.flavor, caps.version_tuple) else set()
        if locks_src.has_json_form(caps.flavor, caps.version_tuple):
            self._json |= {K_GSTATUS, *locks_src.KEYS}

    @property
    def identity(self) -> ServerIdentity:
        return self.capabilities.identity() if self.capabilities else ServerIdentity(address=self.opts.address)

    # ---- polling -----------------------------------------------------------------------------
    def read(self) -> RawSample:
        with self._poll_lock:              # polls never overlap, whoever calls
            called = time.monotonic()
            job = self._inflight
            if job is None:
                wall, mono = time.time(), time.monotonic()
                host = self._host()
                if self._conn is None and not self._connect_now(called):
                    return self._error_sample(wall, mono, host, self._waiting_message(), self._last_failure)
                job = self._inflight = _Inflight(wall, time.monotonic(), host)
                self._submit(job, self._conn)
            # The poll is waited for however long it takes. With host counters on their own clock,
            # a read that has waited an interval returns a sample of this moment's host counters
            # (failure=waiting, then timeout once the server counts as not answering); without,
            # the first read waits up to the answer timeout, the later ones return at once.
            limit = job.mono + self.answer_timeout
            job.done.wait(max(0.0, (called + self.interval if self.host_clock else limit) - time.monotonic()))
            host = None if job.done.is_set() else self._host()
            if host is None and not job.done.is_set():      # no host counters here: nothing to say yet
                job.done.wait(max(0.0, limit - time.monotonic()))
            if not job.done.is_set():
                wall, mono = time.time(), time.monotonic()
                waited = mono - job.mono
                job.overtaken = True
                if waited < self.answer_timeout:
                    return self._error_sample(wall, mono, host, f"waiting for the server's answer for "
                                              f"{waited:.1f} s (late, not cut)", Failure.WAITING)
                return self._error_sample(
                    wall, mono, host,
                    f"no answer for {waited:.1f} s (the poll is still waiting; not cut, to leave the "
                    "server's log clean)", Failure.TIMEOUT)
            self._inflight = None
            return self._finish(job)

    def _submit(self, job: "_Inflight", conn: Any) -> None:
        """Run the poll on this source's poll thread (one per source, started on first use and
        kept: polls never overlap, and a thread per poll costs more than the poll's parsing)."""
        if self._worker is None or not self._worker.is_alive():
            self._jobs = queue.SimpleQueue()
            self._worker = threading.Thread(target=self._work, args=(self._jobs,), name="mysqltop-poll",
                                            daemon=True)
            self._worker.start()
        self._jobs.put((job, conn))

    def _work(self, jobs: "queue.SimpleQueue[tuple[_Inflight, Any] | None]") -> None:
        while (item := jobs.get()) is not None:
            self._run_poll(*item)

    def _run_poll(self, job: "_Inflight", conn: Any) -> None:
        try:
            job.poll = self._poll(job.mono, conn)
        except BaseException as e:  # noqa: BLE001 - handed to the reading thread
            job.exc = e
        finally:
            job.ended = time.monotonic()
            job.done.set()

    def _finish(self, job: "_Inflight") -> RawSample:
        took = job.ended - job.mono
        if job.overtaken:
            # Samples of later moments were returned while this poll ran: its answer is stamped
            # when it is taken (right as it came: a frozen server answers as it resumes), so
            # time never goes backwards.
            job.wall, job.mono, job.host = time.time(), time.monotonic(), self._host()
        if job.exc is not None:
            e = job.exc
            self._drop(f"poll failed: {caps_mod.one_line(e)}", classify(e))
            return self._error_sample(job.wall, job.mono, job.host, self._last_error or "poll failed",
                                      self._last_failure)
        assert job.poll is not None
        self._failing_since = None
        job.poll.timings_ms["poll"] = round(took * 1000.0, 3)
        if took > self.interval:
            job.poll.timings_ms["late"] = round((took - self.interval) * 1000.0, 3)
        try:
            return self._sample(job.wall, job.mono, job.host, job.poll)
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

    def _statements(self, mono: float) -> list[tuple[str, str]]:
        c = self.capabilities
        assert c is not None
        as_json = self._json_sent = frozenset(self._json)
        stmts = [(K_STATUS, "SHOW ENGINE INNODB STATUS")]
        if c.poll_mutex and (self._mutex_empty_polls < MUTEX_GIVE_UP_POLLS
                             or mono - self._mutex_asked_at >= MUTEX_RETRY_S):
            self._mutex_asked_at = mono
            stmts.append((K_MUTEX, "SHOW ENGINE INNODB MUTEX"))
        if c.performance_schema:
            stmts.append((K_PS, PS_WAITS_JSON_SQL if K_PS in as_json else PS_WAITS_SQL))
        stmts.append((K_GSTATUS, STATUS_JSON_SQL if K_GSTATUS in as_json else STATUS_SQL))
        if c.metrics_column:
            cond = "ENABLED = 1" if c.metrics_column == "ENABLED" else "STATUS = 'enabled'"
            stmts.append((K_METRICS, METRICS_SQL + cond))
        # The server's clock (microseconds from 5.6.4 / MariaDB 5.3), for the live header; on
        # MariaDB also this session's Rows_read, so rows r/s leaves the monitor's own reads out.
        now = "UNIX_TIMESTAMP(NOW(6))" if c.version_tuple >= (5, 6, 4) else "UNIX_TIMESTAMP()"
        stmts.append((K_TIME, f"SELECT {now}, (SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS "
                              "WHERE VARIABLE_NAME = 'ROWS_READ')" if c.flavor == "mariadb" else f"SELECT {now}"))
        stmts += [(k, sel.as_json if k in as_json else sel.plain) for k, sel in self._selects.items()
                  if not (k == K_LOCK_WAITS and self._lock_waits_deferred())]
        if self._variables_at is None or mono - self._variables_at >= VARIABLES_EVERY_S:
            stmts.append((K_VARS, VARIABLES_SQL))
        return [(k, s) for k, s in stmts if k not in self._disabled]

    def _lock_waits_deferred(self) -> bool:
        """Lock waits asked only when someone waits (see _poll): where the transactions statement
        counts the waiting transactions (its JSON form) and both statements are sent."""
        return ({K_LOCK_WAITS, K_TRANSACTIONS} <= self._json_sent
                and K_LOCK_WAITS not in self._disabled and K_TRANSACTIONS not in self._disabled)

    def _poll(self, mono: float, conn: Any) -> _Poll:
        poll = _Poll()
        todo = self._statements(mono)
        deferred = self._lock_waits_deferred()      # left out of `todo`
        conn.bytes_in = conn.bytes_out = 0
        trips = self._send(conn, todo, poll)
        if deferred:
            # The lock-wait join is the poll's dearest statement on the server (INNODB_TRX twice,
            # PROCESSLIST twice) and its rows are empty unless a transaction waits for a lock.
            # The transactions statement of this same poll counts the waiting ones over all of
            # INNODB_TRX (not only its LIMIT): none → the edges are known to be none; some, or a
            # count not read → one more round trip asks for them, so a lock wait is never missed.
            if _waiting(poll.values.get(K_TRANSACTIONS)) == 0:
                poll.none_waiting = True
            else:
                trips += self._send(conn, [(K_LOCK_WAITS, self._selects[K_LOCK_WAITS].as_json)], poll)
        self.stats = PollStats(round_trips=trips, statements=len(poll.values) + len(poll.errors),
                               bytes_received=conn.bytes_in, bytes_sent=conn.bytes_out)
        if K_VARS in poll.values:
            # a new map, never changed afterwards: every sample until the next read shares it
            self._variables = {str(k): str(v) for k, v in poll.values[K_VARS]}
            self._variables_at = mono
        return poll

    def _send(self, conn: Any, todo: list[tuple[str, str]], poll: _Poll) -> int:
        """Send the statements (one round trip, or one each where multi-statements are refused),
        filling `poll`; the round trips it took."""
        import pymysql

        trips = 0
        while todo:
            batch = todo if self._multi else todo[:1]
            trips += 1
            done = 0
            cur = conn.cursor()
            try:
                t0 = time.perf_counter()
                try:
                    cur.execute(";\n".join(s for _, s in batch))
                    while True:
                        key = batch[done][0]
                        t1 = time.perf_counter()
                        poll.values[key] = cur.fetchall()
                        poll.timings_ms[key] = round((t1 - t0) * 1000.0, 3)
                        done += 1
                        t0 = t1
                        if not cur.nextset():
                            break
                except pymysql.err.MySQLError as e:
                    code = caps_mod.error_code(e)
                    if code == 1064 and self._multi and len(batch) > 1 and done == 0:
                        self._multi = False        # server refuses multi-statements: one by one
                        continue
                    if code == 0 or code >= 2000 or code in _CONNECTION_GONE:
                        raise                      # client-side / connection-level: the poll failed
                    key = batch[done][0]
                    poll.errors[key] = locks_src.explain_error(key, code, caps_mod.one_line(e),
                                                               self.capabilities.grantee if self.capabilities else "?")
                    if key in self._json and code not in (1142, 1143, 1044, 1227):
                        self._json.discard(key)    # a server without the JSON form: plain rows from the next poll
                    elif code in _PERMANENT:
                        self._disabled[key] = poll.errors[key]
                    done += 1                      # the server stopped the batch after this one
            finally:
                cur.close()
            todo = todo[done:] if done else todo[1:]
        return trips

    def _sample(self, wall: float, mono: float, host: HostSample | None, p: _Poll) -> RawSample:
        v = p.values
        status_rows = v.get(K_STATUS)
        innodb_status = str(status_rows[0][2]) if status_rows else None
        mutex = v.get(K_MUTEX)
        if mutex is not None:
            self._mutex_empty_polls = 0 if mutex else self._mutex_empty_polls + 1
        errors = {**{k: f"skipped: {e}" for k, e in self._disabled.items() if k not in p.errors}, **p.errors}
        c = self.capabilities
        if c is not None and c.performance_schema_on and not c.performance_schema:
            # ON but not readable by us: the fix is a GRANT, not a server setting
            errors.setdefault(K_PS, f"skipped: performance_schema is ON but not readable by {c.grantee}: "
                                    f"run GRANT SELECT ON performance_schema.* TO {c.grantee};")
        lock_rows: dict[str, Any] = {k: self._lock_rows(k, v[k], errors) for k in locks_src.KEYS if k in v}
        if p.none_waiting:
            lock_rows[K_LOCK_WAITS] = []          # not asked: no transaction waits for a lock
        return RawSample(
            wall=wall, mono=mono, server=self.identity, host=host, innodb_status=innodb_status,
            innodb_mutex=[[str(c) for c in r] for r in mutex] if mutex else None,
            ps_waits=self._ps_waits(v[K_PS], errors) if K_PS in v else None,
            global_status=self._global_status(v[K_GSTATUS], errors) if K_GSTATUS in v else {},
            innodb_metrics={str(k): int(c) for k, c in v[K_METRICS]} if K_METRICS in v else None,
            variables=self._variables, timings_ms=p.timings_ms, errors=errors,
            **_clock_row(v.get(K_TIME)),
            **lock_rows)

    def _ps_waits(self, rows: Any, errors: dict[str, str]) -> list[list[Any]] | None:
        try:
            return _ps_rows(rows, K_PS in self._json_sent)
        except ValueError as e:
            self._json_refused(K_PS, e, errors)
            return None

    def _global_status(self, rows: Any, errors: dict[str, str]) -> dict[str, str]:
        if K_GSTATUS not in self._json_sent:
            return {str(k): str(val) for k, val in rows}
        try:
            return _status_json(rows)
        except ValueError as e:
            self._json_refused(K_GSTATUS, e, errors)
            return {}

    def _lock_rows(self, key: str, rows: Any, errors: dict[str, str]) -> list[list[Any]] | None:
        if key not in self._json_sent:
            return locks_src.plain_rows(rows)
        sel = self._selects[key]
        try:
            return locks_src.json_rows(rows, len(sel.cols), sel.limit)
        except ValueError as e:
            self._json_refused(key, e, errors)
            return None

    def _json_refused(self, key: str, e: ValueError, errors: dict[str, str]) -> None:
        """A JSON text cut short or odd costs this poll's rows: plain rows from the next poll."""
        self._json.discard(key)
        errors[key] = f"unexpected result ({caps_mod.one_line(e)}); reading plain rows from the next poll"

    def _error_sample(self, wall: float, mono: float, host: HostSample | None, message: str,
                      failure: Failure) -> RawSample:
        return RawSample(wall=wall, mono=mono, server=self.identity, host=host,
                         variables=self._variables, error=message, failure=failure)

    # ---- reconnecting ------------------------------------------------------------------------
    def _drop(self, why: str, failure: Failure) -> None:
        if self._conn is not None:           # no poll is reading it any more
            try:
                self._conn._force_close()
            except Exception:  # noqa: BLE001 - already broken
                pass
        self._conn = None
        self._last_error = why
        self._last_failure = failure
        with self._rc_lock:
            if self._failing_since is None:
                self._failing_since = time.monotonic()
            if self._rc_next_at != float("inf"):
                self._rc_next_at = time.monotonic()  # first attempt right away (unless closed)

    def _connect_now(self, now: float) -> bool:
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
            thread.join(max(0.1, min(self.interval, self.retry_connect_timeout + 0.5)))
            with self._rc_lock:
                ready, self._rc_ready = self._rc_ready, None
        if ready is None:
            return False
        self.reconnects += 1
        self._adopt(*ready)
        return True

    def _reconnect(self) -> None:
        try:
            conn = connect(self.opts, self.retry_connect_timeout, self.retry_connect_timeout)
            conn._read_timeout = conn._write_timeout = self.answer_timeout
            try:
                caps = detect_capabilities(conn, self.opts, strict=False)
                _session_setup(conn, caps)
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
                self._last_error = caps_mod.one_line(e.message if isinstance(e, UserError) else e)
                self._last_failure = classify(e)
            return
        with self._rc_lock:
            if self._rc_next_at != float("inf"):
                self._rc_ready = (conn, caps)
                return
        conn.close()                                  # closed meanwhile: nobody will adopt it

    def _waiting_message(self) -> str:
        with self._rc_lock:
            wait = self._rc_next_at - time.monotonic()
            running = self._rc_thread is not None and self._rc_thread.is_alive()
        state = "reconnecting" if running or wait <= 0 else f"reconnecting in {wait:.0f} s"
        return f"{self._last_error or 'not connected'} ({state})"

    def close(self) -> None:
        # Not under the poll lock: a read() may be waiting on a hung poll; closing the socket ends it.
        conn, self._conn = self._conn, None
        if conn is not None:
            if self._inflight is None:
                try:
                    conn.close()                      # COM_QUIT: the server logs no aborted connection
                except Exception:  # noqa: BLE001 - closing a dead connection
                    pass
            else:
                _force_close(conn)
        jobs, self._jobs, self._worker = self._jobs, queue.SimpleQueue(), None
        jobs.put(None)                                # the poll thread ends after the poll it runs
        with self._rc_lock:
            ready, self._rc_ready = self._rc_ready, None
            self._rc_next_at = float("inf")          # no further attempts after close
        if ready is not None:
            ready[0].close()


@dataclass
class _Inflight:
    """One poll running in its own thread."""

    wall: float
    mono: float
    host: HostSample | None
    done: threading.Event = field(default_factory=threading.Event)
    poll: _Poll | None = None
    exc: BaseException | None = None
    ended: float = 0.0
    overtaken: bool = False      # a waiting/timeout sample of a later moment was returned meanwhile


def _session_setup(conn: Any, caps: Capabilities) -> None:
    """Room for the JSON forms: MariaDB cuts a JSON_ARRAYAGG text at group_concat_max_len (a DBA
    may have lowered it), and a text cut short costs that poll's rows. The bounded statements
    need well under a megabyte; this session allows 4 MB."""
    import pymysql

    if not has_json_arrayagg(caps.flavor, caps.version_tuple):
        return
    try:
        with conn.cursor() as cur:
            cur.execute(f"SET SESSION group_concat_max_len = {GROUP_CONCAT_MAX_LEN}")
    except pymysql.err.MySQLError as e:
        if caps_mod.error_code(e) in (0, *_CONNECTION_GONE) or caps_mod.error_code(e) >= 2000:
            raise                      # the connection is gone: the caller's to report
        # refused: the counted JSON texts still refuse a cut, falling back to plain rows


def _force_close(conn: Any) -> None:
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
    """--enable-instruments: turn the wait/synch instruments on; lines saying what changed."""
    conn = connect(opts, 10.0, opts.connect_timeout)
    try:
        return caps_mod.enable_synch_instruments(conn)
    finally:
        conn.close()


__all__ = ["Capabilities", "MySQLSource", "PollStats", "STATUS_NAMES", "VARIABLE_NAMES", "enable_instruments"]
