"""What one poll asks the server, and sending it: the statements, which of them are due, and the
round trip that runs them.

One connection, one round trip per poll (CLIENT.MULTI_STATEMENTS; result sets walked with
nextset()); a statement the server refuses for good is not sent again, and the sample keeps
saying why it is missing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from mysqltop.core.derive import METRIC_NAMES
from mysqltop.core.derive import STATUS_NAMES as DERIVE_STATUS_NAMES
from mysqltop.core.derive import VARIABLE_NAMES as DERIVE_VARIABLE_NAMES
from mysqltop.core.sample import POLL_STATEMENTS
from mysqltop.sources import capabilities as caps_mod
from mysqltop.sources import locks as locks_src
from mysqltop.sources.capabilities import Capabilities
from mysqltop.sources.failure import CONNECTION_GONE, PERMANENT

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


def _in_list(names: tuple[str, ...]) -> str:
    return ", ".join(f"'{n}'" for n in names)


STATUS_SQL = f"SHOW GLOBAL STATUS WHERE Variable_name IN ({_in_list(STATUS_NAMES)})"
# MariaDB 10.5+: the same counters as one JSON object (one row packet instead of ~50, decoded in
# C). information_schema spells the names in capitals; COUNT(*) refuses a text cut short.
STATUS_JSON_SQL = ("SELECT JSON_OBJECTAGG(VARIABLE_NAME, VARIABLE_VALUE), COUNT(*) FROM information_schema.GLOBAL_STATUS "
                   f"WHERE VARIABLE_NAME IN ({_in_list(STATUS_NAMES)})")
METRICS_SQL = f"SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE NAME IN ({_in_list(METRIC_NAMES)}) AND "
VARIABLES_SQL = (f"SHOW GLOBAL VARIABLES WHERE Variable_name LIKE 'innodb\\_%' "
                 f"OR Variable_name IN ({_in_list(VARIABLE_NAMES)})")

# Statement keys used in RawSample.timings_ms / errors, in the order a poll sends them.
K_STATUS, K_MUTEX, K_PS, K_GSTATUS, K_METRICS = POLL_STATEMENTS[:5]
K_LOCK_WAITS, K_TRANSACTIONS = locks_src.K_LOCK_WAITS, locks_src.K_TRANSACTIONS
K_VARS = POLL_STATEMENTS[-1]
K_TIME = "server_time"


@dataclass
class PollStats:
    """What the last poll cost on the wire (bench/poll reads these)."""

    round_trips: int = 0
    statements: int = 0
    bytes_received: int = 0
    bytes_sent: int = 0


@dataclass
class Poll:
    """Results of one poll, filled statement by statement."""

    values: dict[str, Any] = field(default_factory=dict)
    timings_ms: dict[str, float] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    none_waiting: bool = False        # lock waits not asked: the transactions counted no waiting one


class StatementPlan:
    """Which statements a poll of one connection sends, in which wire form, and what the server
    refused for good. Reset for every new connection (maybe a restarted, upgraded server)."""

    def __init__(self, caps: Capabilities) -> None:
        self.caps = caps
        self.disabled: dict[str, str] = {}       # statement key → permanent error text
        self.mutex_empty_polls = 0
        self.mutex_asked_at = float("-inf")
        self.variables_at: float | None = None
        self.multi = True                        # the server takes multi-statements
        self.selects: dict[str, locks_src.Select] = dict(
            locks_src.selects(caps.flavor, caps.version_tuple, caps.performance_schema))
        # Statements polled in their JSON form (one text instead of rows: PS_WAITS_JSON_SQL,
        # STATUS_JSON_SQL, locks.Select.as_json); a statement whose JSON form fails or reads odd
        # leaves the set and is read as plain rows from the next poll.
        self.json: set[str] = {K_PS} if has_json_arrayagg(caps.flavor, caps.version_tuple) else set()
        if locks_src.has_json_form(caps.flavor, caps.version_tuple):
            self.json |= {K_GSTATUS, *locks_src.KEYS}
        self.json_sent: frozenset[str] = frozenset()

    def statements(self, mono: float) -> list[tuple[str, str]]:
        """(key, SQL) of the first round trip of a poll at `mono`."""
        c = self.caps
        as_json = self.json_sent = frozenset(self.json)
        stmts = [(K_STATUS, "SHOW ENGINE INNODB STATUS")]
        if c.poll_mutex and (self.mutex_empty_polls < MUTEX_GIVE_UP_POLLS
                             or mono - self.mutex_asked_at >= MUTEX_RETRY_S):
            self.mutex_asked_at = mono
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
        stmts += [(k, sel.as_json if k in as_json else sel.plain) for k, sel in self.selects.items()
                  if not (k == K_LOCK_WAITS and self.lock_waits_deferred())]
        if self.variables_due(mono):
            stmts.append((K_VARS, VARIABLES_SQL))
        return [(k, s) for k, s in stmts if k not in self.disabled]

    def variables_due(self, mono: float) -> bool:
        return self.variables_at is None or mono - self.variables_at >= VARIABLES_EVERY_S

    def lock_waits_deferred(self) -> bool:
        """Lock waits asked only when someone waits (see poll): where the transactions statement
        counts the waiting transactions (its JSON form) and both statements are sent."""
        return ({K_LOCK_WAITS, K_TRANSACTIONS} <= self.json_sent
                and K_LOCK_WAITS not in self.disabled and K_TRANSACTIONS not in self.disabled)

    def lock_waits_sql(self) -> str:
        return self.selects[K_LOCK_WAITS].as_json

    def saw_mutex(self, rows: Any) -> None:
        """SHOW ENGINE INNODB MUTEX answered (maybe with no rows: ask less often)."""
        self.mutex_empty_polls = 0 if rows else self.mutex_empty_polls + 1

    def refused(self, key: str, code: int, message: str) -> None:
        """The server refused a statement: its JSON form → plain rows from the next poll; an
        error that retrying will not cure → not sent again."""
        if key in self.json and code not in (1142, 1143, 1044, 1227):
            self.json.discard(key)
        elif code in PERMANENT:
            self.disabled[key] = message

    def json_refused(self, key: str, e: ValueError, errors: dict[str, str]) -> None:
        """A JSON text cut short or odd costs this poll's rows: plain rows from the next poll."""
        self.json.discard(key)
        errors[key] = f"unexpected result ({caps_mod.one_line(e)}); reading plain rows from the next poll"

    def send(self, conn: Any, todo: list[tuple[str, str]], poll: Poll) -> int:
        """Send the statements (one round trip, or one each where multi-statements are refused),
        filling `poll`; the round trips it took. A connection-level error propagates."""
        import pymysql

        trips = 0
        while todo:
            batch = todo if self.multi else todo[:1]
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
                    if code == 1064 and self.multi and len(batch) > 1 and done == 0:
                        self.multi = False         # server refuses multi-statements: one by one
                        continue
                    if code == 0 or code >= 2000 or code in CONNECTION_GONE:
                        raise                      # client-side / connection-level: the poll failed
                    key = batch[done][0]
                    poll.errors[key] = locks_src.explain_error(key, code, caps_mod.one_line(e), self.caps.grantee)
                    self.refused(key, code, poll.errors[key])
                    done += 1                      # the server stopped the batch after this one
            finally:
                cur.close()
            todo = todo[done:] if done else todo[1:]
        return trips
