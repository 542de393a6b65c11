"""Bounds on what the monitor's statements may cost the server, and the reads a bound cut.

Set on every connection the poller takes into use (the first one and each reconnect), in one
statement, before anything is read:

- a time cap per statement: `max_statement_time` (MariaDB 10.1+: every statement), else
  `max_execution_time` (MySQL 5.7.8+: SELECTs only; the SHOW statements are not capped there),
  else none (older servers: `SessionBounds.statement_cap` says so);
- `lock_wait_timeout`: a read never queues behind a metadata lock or FLUSH TABLES WITH READ LOCK
  for longer than this;
- `innodb_lock_wait_timeout`: nothing the monitor sends takes a row lock; were one to, it waits
  no longer than this.

A read that hits a bound (the server's error code, or an answer over the client's size cap:
sources/wire.py) is reported in its sample (`RawSample.capped`, typed by `core.sample.Cap`),
never sent again in the same poll, and skipped for a back-off that doubles at each cut
(BACKOFF_FIRST_S … BACKOFF_MAX_S); one answer in time resets it. The back-off outlives the
connection: a read that got the connection dropped (an answer too large) is not what the next
connection asks first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mysqltop.core.sample import Cap
from mysqltop.sources.wire import ANSWER_CAP_BYTES, CR_NET_PACKET_TOO_LARGE

STATEMENT_CAP_S = 2.0          # each statement of a poll, at most (where the server can cap it)
LOCK_WAIT_TIMEOUT_S = 1        # lock_wait_timeout: metadata locks, FTWRL, LOCK TABLES (whole seconds)
INNODB_LOCK_WAIT_TIMEOUT_S = 1  # innodb_lock_wait_timeout: row locks (whole seconds, 1 the least)
BACKOFF_FIRST_S = 5.0
BACKOFF_MAX_S = 300.0

# Server errors that mean a bound ended the statement.
ER_LOCK_WAIT_TIMEOUT = 1205            # lock_wait_timeout / innodb_lock_wait_timeout
ER_STATEMENT_TIMEOUT = 1969            # MariaDB max_statement_time
ER_QUERY_TIMEOUT = 3024                # MySQL max_execution_time
CAP_ERRORS = {ER_LOCK_WAIT_TIMEOUT: Cap.LOCK_WAIT, ER_STATEMENT_TIMEOUT: Cap.STATEMENT_TIME,
              ER_QUERY_TIMEOUT: Cap.STATEMENT_TIME, CR_NET_PACKET_TOO_LARGE: Cap.ANSWER_SIZE}

_LOCKS = f"lock_wait_timeout = {LOCK_WAIT_TIMEOUT_S}, innodb_lock_wait_timeout = {INNODB_LOCK_WAIT_TIMEOUT_S}"
# (statement cap variable, SET statement), tried in order until the server takes one.
MARIADB_SET = ("max_statement_time", f"SET SESSION max_statement_time = {STATEMENT_CAP_S:g}, {_LOCKS}")
MYSQL_SET = ("max_execution_time", f"SET SESSION max_execution_time = {int(STATEMENT_CAP_S * 1000)}, {_LOCKS}")
NO_CAP_SET = (None, f"SET SESSION {_LOCKS}")


@dataclass(frozen=True)
class SessionBounds:
    """What the server took for the monitor's session."""

    statement_cap: str | None        # max_statement_time | max_execution_time | None: no time cap here
    sql: str | None                  # the SET statement it took; None: none taken (a refusal)



def describe_cap(variable: str | None, sql: str) -> str:
    """The time cap `sql` runs under with the session's cap `variable`, in words (--explain-poll)."""
    if variable == "max_statement_time":
        return f"{STATEMENT_CAP_S:g} s (max_statement_time)"
    if variable == "max_execution_time":
        return (f"{STATEMENT_CAP_S:g} s (max_execution_time)" if sql.lstrip().upper().startswith("SELECT")
                else "none (MySQL caps SELECTs only)")
    return "none (no statement time cap on this server)"


def bound_session(conn: Any) -> SessionBounds:
    """Set the bounds on `conn`'s session (one round trip where the server is MariaDB or MySQL
    5.7.8+, as its handshake says). A server that knows none of them keeps its defaults."""
    import pymysql

    version = str(getattr(conn, "server_version", "") or "").lower()
    order = [MARIADB_SET, MYSQL_SET, NO_CAP_SET] if "mariadb" in version else [MYSQL_SET, MARIADB_SET, NO_CAP_SET]
    for variable, sql in order:
        try:
            with conn.cursor() as cur:
                cur.execute(sql)
        except pymysql.err.MySQLError as e:
            code = e.args[0] if e.args and isinstance(e.args[0], int) else 0
            if code == 0 or code >= 2000:
                raise                    # the connection failed: the caller's to report
            continue                     # not here (unknown variable, a proxy's refusal): the next form
        return SessionBounds(variable, sql)
    return SessionBounds(None, None)


@dataclass
class _Backoff:
    cap: Cap
    limit: float
    step_s: float            # the next skip lasts this long
    until: float             # monotonic time it is due again


class CapBook:
    """The reads a bound cut and their back-off, across connections (one per source)."""

    def __init__(self) -> None:
        self._entries: dict[str, _Backoff] = {}
        self.now: dict[str, dict[str, Any]] = {}      # cut in the poll running (begin_poll clears it)

    def begin_poll(self) -> None:
        self.now = {}

    def due(self, key: str, mono: float) -> bool:
        e = self._entries.get(key)
        return e is None or mono >= e.until

    def cut(self, key: str, cap: Cap, measured: float | None, mono: float) -> dict[str, Any]:
        """`key` was cut by `cap` in the poll at `mono`: skip it for the next back-off step."""
        e = self._entries.get(key)
        step = BACKOFF_FIRST_S if e is None else min(e.step_s * 2, BACKOFF_MAX_S)
        limit = float(ANSWER_CAP_BYTES) if cap is Cap.ANSWER_SIZE else (
            float(LOCK_WAIT_TIMEOUT_S) if cap is Cap.LOCK_WAIT else STATEMENT_CAP_S)
        self._entries[key] = _Backoff(cap, limit, step, mono + step)
        self.now[key] = c = {"cap": cap.value, "limit": limit, "measured": measured, "retry_in_s": step, "now": True}
        return c

    def answered(self, key: str) -> None:
        """`key` answered within its bounds: its back-off starts over."""
        self._entries.pop(key, None)

    def report(self, mono: float) -> dict[str, dict[str, Any]] | None:
        """RawSample.capped of the poll at `mono`: the reads it cut, and those skipped while their
        back-off lasts; None when there are none."""
        out = {k: {"cap": e.cap.value, "limit": e.limit, "measured": None,
                   "retry_in_s": round(e.until - mono, 3), "now": False}
               for k, e in self._entries.items() if mono < e.until and k not in self.now}
        out.update(self.now)
        return out or None


def cut_words(key: str, c: dict[str, Any]) -> str:
    """The error text of a cut or skipped read, for views that list a poll's errors."""
    what = {Cap.STATEMENT_TIME.value: f"the {c['limit']:g} s statement time cap",
            Cap.LOCK_WAIT.value: f"the {c['limit']:g} s lock wait timeout",
            Cap.ANSWER_SIZE.value: f"the {int(c['limit']) >> 20} MiB answer cap"}.get(c["cap"], c["cap"])
    if c.get("now"):
        return f"cut by {what}; skipped for {c['retry_in_s']:g} s"
    return f"skipped: cut by {what}, sent again in {c['retry_in_s']:.0f} s"
