"""Lock waits, transactions and busy sessions: the statements one poll adds for the locks pane.

Chosen per server from what it has (no probing round trip): MySQL 8.0+ keeps lock waits in
performance_schema.data_lock_waits/data_locks, MariaDB and MySQL 5.5–5.7 in
information_schema.INNODB_LOCK_WAITS/INNODB_LOCKS; INNODB_TRX (PROCESS) is everywhere. Sessions
come from performance_schema.threads with the statement digest where performance_schema is
readable, else from information_schema.PROCESSLIST. Every statement is bounded (LIMIT, LEFT() on
statement text) so a server with 5,000 sessions costs the same as one with 50. A statement the
server refuses is dropped by the poller after its first failure; `explain_error` turns a refusal
into the GRANT that fixes it.

Row shapes (recorded as-is in RawSample, read by core/locks.py):
  lock_waits      [waiting_trx, waiting_thread, waiting_user, waiting_host, wait_s, waiting_sql,
                   blocking_trx, blocking_thread, blocking_user, blocking_host, blocking_trx_age_s,
                   blocking_trx_state, blocking_command, blocking_sql, lock_table, lock_index,
                   lock_mode, lock_type]
  transactions    [trx_id, thread, user, host, state, age_s, rows_locked, rows_modified,
                   lock_structs, isolation, command, sql, wait_s]
  sessions        [thread, user, host, db, command, state, time_s, sql]
  session_states  [command, state, sessions, longest_s]
"""

from __future__ import annotations

import datetime
import decimal
import itertools
import json
import re
from dataclasses import dataclass
from typing import Any

K_LOCK_WAITS, K_TRANSACTIONS, K_SESSIONS, K_SESSION_STATES = (
    "lock_waits", "transactions", "sessions", "session_states")
KEYS = (K_LOCK_WAITS, K_TRANSACTIONS, K_SESSIONS, K_SESSION_STATES)

MAX_LOCK_WAITS = 100
MAX_TRANSACTIONS = 20
MAX_SESSIONS = 30
MAX_STATES = 30
SQL_CHARS = 300            # statement text is cut on the server: bytes on the wire stay bounded
# A transaction's statement as far as SHOW ENGINE INNODB STATUS prints it (600 bytes): core
# fences each entry's statement off the status text with it (core/read_views.py).
STATUS_SQL_CHARS = 600

# Commands that are not work: an idle connection, a server thread, a replica's dump thread.
_IDLE = "'Sleep', 'Daemon', 'Binlog Dump', 'Binlog Dump GTID', 'Slave_IO', 'Slave_SQL', 'Slave_worker'"

_TRX = "information_schema.INNODB_TRX"
_PL = "information_schema.PROCESSLIST"
_JSON_PLAIN = {str, int, type(None)}
_SURROGATE = re.compile(r"\\u[dD][89abcdefABCDEF]")


def _sql(col: str) -> str:
    return f"LEFT({col}, {SQL_CHARS})"


@dataclass(frozen=True)
class Select:
    """One bounded row statement, in two wire forms with the same rows in the same order.

    plain: `SELECT cols FROM … ORDER BY … LIMIT n`, one row packet per row and one column
    definition packet per column per poll, each decoded in Python (18 definitions for the lock
    waits even when nobody waits). as_json (MariaDB 10.5+, whose JSON_ARRAYAGG takes ORDER BY and
    LIMIT): the same rows as one JSON text, `[[col, …], …]`, plus COUNT(*) of the rows before the
    LIMIT, so a text cut at group_concat_max_len is refused (json_rows), never trusted. The ORDER
    BY names a total order, so both forms list tied rows alike."""

    cols: tuple[str, ...]
    rest: str                 # FROM … [WHERE …]
    order: str
    limit: int
    json_extra: tuple[str, ...] = ()     # aggregates the JSON form also answers, after COUNT(*)

    @property
    def plain(self) -> str:
        return f"SELECT {', '.join(self.cols)} {self.rest} ORDER BY {self.order} LIMIT {self.limit}"

    @property
    def as_json(self) -> str:
        return (f"SELECT JSON_ARRAYAGG(JSON_ARRAY({', '.join(self.cols)}) ORDER BY {self.order} LIMIT {self.limit}), "
                f"{', '.join(('COUNT(*)', *self.json_extra))} {self.rest}")


def _lock_waits_select(waits: str, lock_join: str, lock_cols: tuple[str, ...]) -> Select:
    return Select(
        ("r.trx_id", "r.trx_mysql_thread_id", "rp.USER", "rp.HOST", "TIMESTAMPDIFF(SECOND, r.trx_wait_started, NOW())",
         _sql("r.trx_query"), "b.trx_id", "b.trx_mysql_thread_id", "bp.USER", "bp.HOST",
         "TIMESTAMPDIFF(SECOND, b.trx_started, NOW())", "b.trx_state", "bp.COMMAND", _sql("b.trx_query"), *lock_cols),
        f"FROM ({waits}) w JOIN {_TRX} r ON r.trx_id = w.req_trx JOIN {_TRX} b ON b.trx_id = w.blk_trx "
        + lock_join +
        f" LEFT JOIN {_PL} rp ON rp.ID = r.trx_mysql_thread_id LEFT JOIN {_PL} bp ON bp.ID = b.trx_mysql_thread_id"
        # InnoDB also lists each queued request as blocked by every request queued before it:
        # n sessions behind one row are n(n-1)/2 such edges, which would fill the LIMIT with the
        # queue and hide sessions. Keep edges to locks that are held (a waiting blocker's own
        # pending request is not what anyone waits for first); real chains hold a granted lock.
        " WHERE b.trx_requested_lock_id IS NULL OR b.trx_requested_lock_id <> w.blk_lock",
        "r.trx_wait_started, r.trx_id, b.trx_id", MAX_LOCK_WAITS)


# MariaDB, MySQL 5.5–5.7: the wait graph of the lock-table snapshot INNODB_TRX is taken from.
LOCK_WAITS_IS = _lock_waits_select(
    "SELECT requesting_trx_id AS req_trx, blocking_trx_id AS blk_trx, requested_lock_id AS req_lock, "
    "blocking_lock_id AS blk_lock FROM information_schema.INNODB_LOCK_WAITS",
    "LEFT JOIN information_schema.INNODB_LOCKS l ON l.lock_id = w.req_lock",
    ("l.lock_table", "l.lock_index", "l.lock_mode", "l.lock_type"))
# MySQL 8.0+: the same from performance_schema (needs SELECT on performance_schema).
LOCK_WAITS_PS = _lock_waits_select(
    "SELECT REQUESTING_ENGINE_TRANSACTION_ID AS req_trx, BLOCKING_ENGINE_TRANSACTION_ID AS blk_trx, "
    "REQUESTING_ENGINE_LOCK_ID AS req_lock, BLOCKING_ENGINE_LOCK_ID AS blk_lock, ENGINE AS eng "
    "FROM performance_schema.data_lock_waits",
    "LEFT JOIN performance_schema.data_locks l ON l.ENGINE_LOCK_ID = w.req_lock AND l.ENGINE = w.eng",
    ("CONCAT('`', l.OBJECT_SCHEMA, '`.`', l.OBJECT_NAME, '`')", "l.INDEX_NAME", "l.LOCK_MODE", "l.LOCK_TYPE"))

TRANSACTIONS = Select(
    ("t.trx_id", "t.trx_mysql_thread_id", "p.USER", "p.HOST", "t.trx_state",
     "TIMESTAMPDIFF(SECOND, t.trx_started, NOW())", "t.trx_rows_locked", "t.trx_rows_modified", "t.trx_lock_structs",
     "t.trx_isolation_level", "p.COMMAND", f"LEFT(t.trx_query, {STATUS_SQL_CHARS})",
     "TIMESTAMPDIFF(SECOND, t.trx_wait_started, NOW())"),
    f"FROM {_TRX} t LEFT JOIN {_PL} p ON p.ID = t.trx_mysql_thread_id",
    "t.trx_started, t.trx_id", MAX_TRANSACTIONS,
    # every transaction waiting for a lock, beyond the LIMIT too: the poll asks for the lock
    # waits only when this is not 0 (sources/mysql.py)
    json_extra=("COUNT(CASE WHEN t.trx_state = 'LOCK WAIT' THEN 1 END)",))

SESSIONS_PS = Select(
    ("t.PROCESSLIST_ID", "t.PROCESSLIST_USER", "t.PROCESSLIST_HOST", "t.PROCESSLIST_DB", "t.PROCESSLIST_COMMAND",
     "t.PROCESSLIST_STATE", "t.PROCESSLIST_TIME", _sql("COALESCE(s.DIGEST_TEXT, t.PROCESSLIST_INFO)")),
    "FROM performance_schema.threads t LEFT JOIN performance_schema.events_statements_current s "
    "ON s.THREAD_ID = t.THREAD_ID AND s.NESTING_EVENT_ID IS NULL "
    f"WHERE t.TYPE = 'FOREGROUND' AND t.PROCESSLIST_COMMAND NOT IN ({_IDLE}) "
    "AND t.PROCESSLIST_ID <> CONNECTION_ID()",
    "t.PROCESSLIST_TIME DESC, t.PROCESSLIST_ID", MAX_SESSIONS)
SESSIONS_IS = Select(
    ("ID", "USER", "HOST", "DB", "COMMAND", "STATE", "TIME", _sql("INFO")),
    f"FROM {_PL} WHERE COMMAND NOT IN ({_IDLE}) AND ID <> CONNECTION_ID()",
    "TIME DESC, ID", MAX_SESSIONS)
# Grouped in a derived table, so the JSON form can aggregate the groups.
_STATE_COLS = ("g.command", "g.state", "g.sessions", "g.longest")
_STATE_ORDER = "g.sessions DESC, g.longest DESC, g.command, g.state"
SESSION_STATES_PS = Select(
    _STATE_COLS,
    "FROM (SELECT PROCESSLIST_COMMAND AS command, COALESCE(PROCESSLIST_STATE, '') AS state, COUNT(*) AS sessions, "
    "MAX(PROCESSLIST_TIME) AS longest FROM performance_schema.threads "
    "WHERE TYPE = 'FOREGROUND' AND PROCESSLIST_ID <> CONNECTION_ID() GROUP BY 1, 2) g",
    _STATE_ORDER, MAX_STATES)
SESSION_STATES_IS = Select(
    _STATE_COLS,
    "FROM (SELECT COMMAND AS command, COALESCE(STATE, '') AS state, COUNT(*) AS sessions, MAX(TIME) AS longest "
    f"FROM {_PL} WHERE ID <> CONNECTION_ID() GROUP BY 1, 2) g",
    _STATE_ORDER, MAX_STATES)

LOCK_WAITS_IS_SQL, LOCK_WAITS_PS_SQL = LOCK_WAITS_IS.plain, LOCK_WAITS_PS.plain
TRANSACTIONS_SQL = TRANSACTIONS.plain


def selects(flavor: str, version: tuple[int, ...], ps_readable: bool) -> list[tuple[str, Select]]:
    """(key, statement) for this server, in the order a poll sends them."""
    mysql8 = flavor != "mariadb" and tuple(version[:2]) >= (8, 0)
    out = [(K_LOCK_WAITS, LOCK_WAITS_PS if mysql8 else LOCK_WAITS_IS), (K_TRANSACTIONS, TRANSACTIONS)]
    if ps_readable:
        out += [(K_SESSIONS, SESSIONS_PS), (K_SESSION_STATES, SESSION_STATES_PS)]
    else:
        out += [(K_SESSIONS, SESSIONS_IS), (K_SESSION_STATES, SESSION_STATES_IS)]
    return out


def has_json_form(flavor: str, version: tuple[int, ...]) -> bool:
    """JSON_ARRAYAGG with ORDER BY and LIMIT: MariaDB 10.5+ (MySQL's takes neither)."""
    return flavor == "mariadb" and tuple(version[:3]) >= (10, 5, 0)


def json_rows(rows: Any, width: int, limit: int) -> list[list[Any]]:
    """The rows of a Select.as_json result, as plain_rows gives those of the plain form; ValueError
    for a text cut short (fewer rows than counted) or of an unexpected shape."""
    row: Any = rows[0] if rows else ()
    text = row[0] if row else None                    # NULL: no row matched
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8", "replace")
    out = json.loads(text) if text else []
    counted = row[1] if len(row) > 1 else None
    if not isinstance(out, list) or not set(map(type, out)) <= {list} or not set(map(len, out)) <= {width}:
        raise ValueError("unexpected JSON shape")
    if not isinstance(counted, int) or len(out) != min(counted, limit):
        raise ValueError(f"{len(out)} of {counted} rows in the JSON text")
    if _SURROGATE.search(text or ""):                 # \ud800 escapes: no text a server can hold
        out = [[v.encode("utf-8", "replace").decode("utf-8") if isinstance(v, str) else v for v in r]
               for r in out]
    if not set(map(type, itertools.chain.from_iterable(out))) <= _JSON_PLAIN:
        out = plain_rows(out)                          # floats or nested values: as the plain form would
    return out


def lock_statements(flavor: str, version: tuple[int, ...], ps_readable: bool,
                    as_json: bool = False) -> list[tuple[str, str]]:
    """(key, SQL) for this server, in the order a poll sends them (as_json: the JSON forms)."""
    return [(k, sel.as_json if as_json else sel.plain) for k, sel in selects(flavor, version, ps_readable)]


_DENIED = {1044, 1142, 1143, 1227}


def explain_error(key: str, code: int, message: str, grantee: str) -> str:
    """A refused lock statement → the message plus the GRANT that fixes it."""
    if key not in KEYS or code not in _DENIED:
        return message
    # A table-level refusal (1142/1143) is about a performance_schema table: information_schema
    # tables need no table grant (INNODB_TRX without PROCESS is 1227), and MySQL 8 names only
    # the table ("… for table 'data_lock_waits'").
    if "performance_schema" in message.lower() or code in (1142, 1143):
        return f"{message}: run GRANT SELECT ON performance_schema.* TO {grantee};"
    return f"{message}: run GRANT PROCESS ON *.* TO {grantee};"


def _plain(v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, decimal.Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if isinstance(v, (bytes, bytearray)):
        return v.decode("utf-8", "replace")
    if isinstance(v, (datetime.datetime, datetime.date, datetime.timedelta)):
        return str(v)
    return str(v)


def plain_rows(rows: Any) -> list[list[Any]]:
    """Driver rows → JSON-plain lists (what RawSample and the recording keep)."""
    return [[_plain(v) for v in row] for row in rows]
