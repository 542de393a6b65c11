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
from typing import Any

K_LOCK_WAITS, K_TRANSACTIONS, K_SESSIONS, K_SESSION_STATES = (
    "lock_waits", "transactions", "sessions", "session_states")
KEYS = (K_LOCK_WAITS, K_TRANSACTIONS, K_SESSIONS, K_SESSION_STATES)

MAX_LOCK_WAITS = 100
MAX_TRANSACTIONS = 20
MAX_SESSIONS = 30
MAX_STATES = 30
SQL_CHARS = 300            # statement text is cut on the server: bytes on the wire stay bounded

# Commands that are not work: an idle connection, a server thread, a replica's dump thread.
_IDLE = "'Sleep', 'Daemon', 'Binlog Dump', 'Binlog Dump GTID', 'Slave_IO', 'Slave_SQL', 'Slave_worker'"

_TRX = "information_schema.INNODB_TRX"
_PL = "information_schema.PROCESSLIST"


def _sql(col: str) -> str:
    return f"LEFT({col}, {SQL_CHARS})"


def _lock_waits_select(waits: str, lock_join: str, lock_cols: str) -> str:
    return (
        "SELECT r.trx_id, r.trx_mysql_thread_id, rp.USER, rp.HOST, "
        "TIMESTAMPDIFF(SECOND, r.trx_wait_started, NOW()), " + _sql("r.trx_query") + ", "
        "b.trx_id, b.trx_mysql_thread_id, bp.USER, bp.HOST, TIMESTAMPDIFF(SECOND, b.trx_started, NOW()), "
        "b.trx_state, bp.COMMAND, " + _sql("b.trx_query") + ", " + lock_cols +
        f" FROM ({waits}) w JOIN {_TRX} r ON r.trx_id = w.req_trx JOIN {_TRX} b ON b.trx_id = w.blk_trx "
        + lock_join +
        f" LEFT JOIN {_PL} rp ON rp.ID = r.trx_mysql_thread_id LEFT JOIN {_PL} bp ON bp.ID = b.trx_mysql_thread_id"
        # InnoDB also lists each queued request as blocked by every request queued before it:
        # n sessions behind one row are n(n-1)/2 such edges, which would fill the LIMIT with the
        # queue and hide sessions. Keep edges to locks that are held (a waiting blocker's own
        # pending request is not what anyone waits for first); real chains hold a granted lock.
        " WHERE b.trx_requested_lock_id IS NULL OR b.trx_requested_lock_id <> w.blk_lock"
        f" ORDER BY r.trx_wait_started, r.trx_id LIMIT {MAX_LOCK_WAITS}")


# MariaDB, MySQL 5.5–5.7: the wait graph of the lock-table snapshot INNODB_TRX is taken from.
LOCK_WAITS_IS_SQL = _lock_waits_select(
    "SELECT requesting_trx_id AS req_trx, blocking_trx_id AS blk_trx, requested_lock_id AS req_lock, "
    "blocking_lock_id AS blk_lock FROM information_schema.INNODB_LOCK_WAITS",
    "LEFT JOIN information_schema.INNODB_LOCKS l ON l.lock_id = w.req_lock",
    "l.lock_table, l.lock_index, l.lock_mode, l.lock_type")
# MySQL 8.0+: the same from performance_schema (needs SELECT on performance_schema).
LOCK_WAITS_PS_SQL = _lock_waits_select(
    "SELECT REQUESTING_ENGINE_TRANSACTION_ID AS req_trx, BLOCKING_ENGINE_TRANSACTION_ID AS blk_trx, "
    "REQUESTING_ENGINE_LOCK_ID AS req_lock, BLOCKING_ENGINE_LOCK_ID AS blk_lock, ENGINE AS eng "
    "FROM performance_schema.data_lock_waits",
    "LEFT JOIN performance_schema.data_locks l ON l.ENGINE_LOCK_ID = w.req_lock AND l.ENGINE = w.eng",
    "CONCAT('`', l.OBJECT_SCHEMA, '`.`', l.OBJECT_NAME, '`'), l.INDEX_NAME, l.LOCK_MODE, l.LOCK_TYPE")

TRANSACTIONS_SQL = (
    "SELECT t.trx_id, t.trx_mysql_thread_id, p.USER, p.HOST, t.trx_state, "
    "TIMESTAMPDIFF(SECOND, t.trx_started, NOW()), t.trx_rows_locked, t.trx_rows_modified, t.trx_lock_structs, "
    "t.trx_isolation_level, p.COMMAND, " + _sql("t.trx_query") + ", TIMESTAMPDIFF(SECOND, t.trx_wait_started, NOW()) "
    f"FROM {_TRX} t LEFT JOIN {_PL} p ON p.ID = t.trx_mysql_thread_id "
    f"ORDER BY t.trx_started, t.trx_id LIMIT {MAX_TRANSACTIONS}")

SESSIONS_PS_SQL = (
    "SELECT t.PROCESSLIST_ID, t.PROCESSLIST_USER, t.PROCESSLIST_HOST, t.PROCESSLIST_DB, t.PROCESSLIST_COMMAND, "
    "t.PROCESSLIST_STATE, t.PROCESSLIST_TIME, " + _sql("COALESCE(s.DIGEST_TEXT, t.PROCESSLIST_INFO)") + " "
    "FROM performance_schema.threads t LEFT JOIN performance_schema.events_statements_current s "
    "ON s.THREAD_ID = t.THREAD_ID AND s.NESTING_EVENT_ID IS NULL "
    f"WHERE t.TYPE = 'FOREGROUND' AND t.PROCESSLIST_COMMAND NOT IN ({_IDLE}) "
    "AND t.PROCESSLIST_ID <> CONNECTION_ID() "
    f"ORDER BY t.PROCESSLIST_TIME DESC, t.PROCESSLIST_ID LIMIT {MAX_SESSIONS}")
SESSIONS_IS_SQL = (
    "SELECT ID, USER, HOST, DB, COMMAND, STATE, TIME, " + _sql("INFO") + f" FROM {_PL} "
    f"WHERE COMMAND NOT IN ({_IDLE}) AND ID <> CONNECTION_ID() "
    f"ORDER BY TIME DESC, ID LIMIT {MAX_SESSIONS}")
SESSION_STATES_PS_SQL = (
    "SELECT PROCESSLIST_COMMAND, COALESCE(PROCESSLIST_STATE, ''), COUNT(*), MAX(PROCESSLIST_TIME) "
    "FROM performance_schema.threads WHERE TYPE = 'FOREGROUND' AND PROCESSLIST_ID <> CONNECTION_ID() "
    f"GROUP BY 1, 2 ORDER BY 3 DESC, 4 DESC LIMIT {MAX_STATES}")
SESSION_STATES_IS_SQL = (
    f"SELECT COMMAND, COALESCE(STATE, ''), COUNT(*), MAX(TIME) FROM {_PL} WHERE ID <> CONNECTION_ID() "
    f"GROUP BY 1, 2 ORDER BY 3 DESC, 4 DESC LIMIT {MAX_STATES}")


def lock_statements(flavor: str, version: tuple[int, ...], ps_readable: bool) -> list[tuple[str, str]]:
    """(key, SQL) for this server, in the order a poll sends them."""
    mysql8 = flavor != "mariadb" and tuple(version[:2]) >= (8, 0)
    out = [(K_LOCK_WAITS, LOCK_WAITS_PS_SQL if mysql8 else LOCK_WAITS_IS_SQL), (K_TRANSACTIONS, TRANSACTIONS_SQL)]
    if ps_readable:
        out += [(K_SESSIONS, SESSIONS_PS_SQL), (K_SESSION_STATES, SESSION_STATES_PS_SQL)]
    else:
        out += [(K_SESSIONS, SESSIONS_IS_SQL), (K_SESSION_STATES, SESSION_STATES_IS_SQL)]
    return out


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
