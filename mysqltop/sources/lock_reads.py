"""Lock waits, transactions and busy sessions: the statements a poll adds for the locks pane, and
how their rows become the recorded shapes. One concept over three layers: this module reads,
core/blocking.py builds the tree, views/locks_text.py draws it.

Chosen per server from what it has (no probing round trip): MySQL 8.0+ keeps lock waits in
performance_schema.data_lock_waits/data_locks, MariaDB and MySQL 5.5–5.7 in
information_schema.INNODB_LOCK_WAITS/INNODB_LOCKS; INNODB_TRX (PROCESS) is everywhere. Sessions
come from performance_schema.threads with the statement digest where performance_schema is
readable, else from SHOW PROCESSLIST.

Statements that cannot hurt the server: every read is a plain, bounded read of rows (LIMIT
ROWS_READ, LEFT() on statement text) with no ORDER BY, GROUP BY or aggregate that needs an
internal temporary table; the rows kept are chosen and ordered here. information_schema.PROCESSLIST
is never read (the server materialises it, LONGTEXT and all, into an on-disk Aria table every
time); thread names come from performance_schema.threads, or from SHOW PROCESSLIST's rows without
performance_schema. A statement the server refuses is dropped by the poller after its first
failure; `explain_error` turns a refusal into the GRANT that fixes it.

Row shapes (recorded as-is in RawSample, read by core/blocking.py):
  lock_waits      [waiting_trx, waiting_thread, waiting_user, waiting_host, wait_s, waiting_sql,
                   blocking_trx, blocking_thread, blocking_user, blocking_host, blocking_trx_age_s,
                   blocking_trx_state, blocking_command, blocking_sql, lock_table, lock_index,
                   lock_mode, lock_type, lock_data]   lock_data: the key the waiter asks for
                   (absent in older recordings)
  transactions    [trx_id, thread, user, host, state, age_s, rows_locked, rows_modified,
                   lock_structs, isolation, command, sql, wait_s]
  sessions        [thread, user, host, db, command, state, time_s, sql]
  session_states  [command, state, sessions, longest_s]
  lock_sessions   [thread, user, host, db, command, state, time_s, sql, trx_age_s, trx_state, trx_wait_s,
                   last_sql, program]   program: the client's connect attribute program_name
                   (absent in older recordings; "mysqltop": another monitor). Every session while one waits on a lock: the waiters and whoever may
                   hold what they wait for, idle ones included (performance_schema.threads, else
                   SHOW PROCESSLIST's rows with the transactions read)
  row_locks       [lock_id, trx_id, thread, user, host, trx_state, trx_age_s, wait_s, waiting, lock_mode,
                   lock_type, lock_table, lock_index, lock_space, lock_page, lock_rec, lock_data, command,
                   sql]   every lock InnoDB lists while a transaction waits (INNODB_LOCKS: the locks
                   requested and the locks that block them, one row each, however many wait pairs
                   they make), with its transaction; waiting: 1 for the transaction's requested lock;
                   sql only for transactions that wait for nothing (the roots). The roots and their
                   waiter counts come from these (core/blocking.py), complete where lock_waits is cut
  metadata_locks  [source, thread, object_type, schema, name, mode, status, duration]   while a
                   session waits on a metadata, global, backup, table or user lock; source
                   "performance_schema" | "metadata_lock_info", or one row "instrument_off"
                   (performance_schema without the wait/lock/metadata/sql/mdl instrument)

The last two are read in the second round trip, only while a session waits (poll_statements).
"""

from __future__ import annotations

import datetime
import decimal
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from mysqltop.core import read_views
from mysqltop.core import stalls as stall_states
from mysqltop.core.blocking import LOCK_DATA_CHARS     # a locked key as the server prints it (lock_data)

K_LOCK_WAITS, K_TRANSACTIONS, K_SESSIONS, K_SESSION_STATES = (
    "lock_waits", "transactions", "sessions", "session_states")
K_LOCK_SESSIONS, K_METADATA_LOCKS, K_ROW_LOCKS = "lock_sessions", "metadata_locks", "row_locks"
KEYS = (K_LOCK_WAITS, K_TRANSACTIONS, K_SESSIONS, K_SESSION_STATES, K_LOCK_SESSIONS, K_METADATA_LOCKS, K_ROW_LOCKS)

MAX_LOCK_WAITS = 100
MAX_TRANSACTIONS = 20
MAX_SESSIONS = 30
MAX_STATES = 30
MAX_LOCK_SESSIONS = 200
MAX_METADATA_LOCKS = 300
SQL_CHARS = 300            # statement text is cut on the server: bytes on the wire stay bounded
# A transaction's statement as far as INNODB_TRX keeps it: core fences each entry's statement off
# the status text with it (core/read_views.py), which needs the whole statement where it can.
STATUS_SQL_CHARS = read_views.ROW_STATEMENT_CHARS
# Rows one read may return (a server with 5,000 sessions costs the wire what one with 1,000 does);
# the kept rows are chosen from these client-side.
ROWS_READ = 1000
# Wait pairs read where row_locks gives the roots and their counts: the pairs are then only the
# trees' detail, and an application's flood of pairs (n share-mode holders × m waiters, each
# joined with every read-only transaction on MariaDB) costs the server and the wire a fifth.
DETAIL_PAIRS_READ = 200

# Commands that are not work: an idle connection, a server thread, a replica's dump thread.
IDLE_COMMANDS = ("Sleep", "Daemon", "Binlog Dump", "Binlog Dump GTID", "Slave_IO", "Slave_SQL", "Slave_worker")
_IDLE = ", ".join(f"'{c}'" for c in IDLE_COMMANDS)
_SERVER_THREADS = ", ".join(f"'{c}'" for c in IDLE_COMMANDS if c != "Sleep")

_TRX = "information_schema.INNODB_TRX"
_THREADS = "performance_schema.threads"


def _sql(col: str) -> str:
    return f"LEFT({col}, {SQL_CHARS})"


def _desc(v: Any) -> float:
    return -float(v) if isinstance(v, (int, float)) else 0.0


def _text(v: Any) -> str:
    return "" if v is None else str(v)


@dataclass(frozen=True)
class Select:
    """One plain, bounded row statement (no ORDER BY: nothing to sort on the server) and the rows
    a poll keeps of it: `order` over plain rows, then the first `keep`."""

    cols: tuple[str, ...]
    rest: str                 # FROM … [WHERE …]
    keep: int
    order: Callable[[list[Any]], Any]
    # (thread, user, host, command) column positions filled from SHOW PROCESSLIST's rows where
    # performance_schema is not readable (the statement then reads NULL there)
    thread_cols: tuple[tuple[int, int, int, int], ...] = ()
    limit: int = ROWS_READ    # rows the server may return

    @property
    def sql(self) -> str:
        return f"SELECT {', '.join(self.cols)} {self.rest} LIMIT {self.limit}"

    def pick(self, rows: list[list[Any]]) -> list[list[Any]]:
        return sorted(rows, key=self.order)[:self.keep]


def _who(alias: str, ps: bool) -> tuple[str, str, str]:
    """user, host, command of the thread joined as `alias` (NULLs without performance_schema)."""
    if not ps:
        return "NULL", "NULL", "NULL"
    return f"{alias}.PROCESSLIST_USER", f"{alias}.PROCESSLIST_HOST", f"{alias}.PROCESSLIST_COMMAND"


def _join(alias: str, thread: str, ps: bool) -> str:
    return f" LEFT JOIN {_THREADS} {alias} ON {alias}.PROCESSLIST_ID = {thread}" if ps else ""


def _lock_waits_select(waits: str, lock_join: str, lock_cols: tuple[str, ...], ps: bool,
                       limit: int = ROWS_READ) -> Select:
    ru, rh, _ = _who("rp", ps)
    bu, bh, bc = _who("bp", ps)
    return Select(
        ("r.trx_id", "r.trx_mysql_thread_id", ru, rh, "TIMESTAMPDIFF(SECOND, r.trx_wait_started, NOW())",
         _sql("r.trx_query"), "b.trx_id", "b.trx_mysql_thread_id", bu, bh,
         "TIMESTAMPDIFF(SECOND, b.trx_started, NOW())", "b.trx_state", bc, _sql("b.trx_query"), *lock_cols),
        f"FROM ({waits}) w JOIN {_TRX} r ON r.trx_id = w.req_trx JOIN {_TRX} b ON b.trx_id = w.blk_trx "
        + lock_join + _join("rp", "r.trx_mysql_thread_id", ps) + _join("bp", "b.trx_mysql_thread_id", ps)
        # InnoDB also lists each queued request as blocked by every request queued before it:
        # n sessions behind one row are n(n-1)/2 such edges, which would fill the rows kept with
        # the queue and hide sessions. Keep edges to locks that are held (a waiting blocker's own
        # pending request is not what anyone waits for first); real chains hold a granted lock.
        + " WHERE b.trx_requested_lock_id IS NULL OR b.trx_requested_lock_id <> w.blk_lock",
        MAX_LOCK_WAITS, lambda r: (_desc(r[4]), _text(r[0]), _text(r[6])),     # longest wait first
        () if ps else ((1, 2, 3, -1), (7, 8, 9, 12)), limit)


def _lock_waits_is(ps: bool) -> Select:
    """MariaDB, MySQL 5.5–5.7: the wait graph of the lock-table snapshot INNODB_TRX is taken from."""
    return _lock_waits_select(
        "SELECT requesting_trx_id AS req_trx, blocking_trx_id AS blk_trx, requested_lock_id AS req_lock, "
        "blocking_lock_id AS blk_lock FROM information_schema.INNODB_LOCK_WAITS",
        "LEFT JOIN information_schema.INNODB_LOCKS l ON l.lock_id = w.req_lock",
        ("l.lock_table", "l.lock_index", "l.lock_mode", "l.lock_type", f"LEFT(l.lock_data, {LOCK_DATA_CHARS})"),
        ps, DETAIL_PAIRS_READ)


def _lock_waits_ps(ps: bool) -> Select:
    """MySQL 8.0+: the same from performance_schema (needs SELECT on performance_schema)."""
    return _lock_waits_select(
        "SELECT REQUESTING_ENGINE_TRANSACTION_ID AS req_trx, BLOCKING_ENGINE_TRANSACTION_ID AS blk_trx, "
        "REQUESTING_ENGINE_LOCK_ID AS req_lock, BLOCKING_ENGINE_LOCK_ID AS blk_lock, ENGINE AS eng "
        "FROM performance_schema.data_lock_waits",
        "LEFT JOIN performance_schema.data_locks l ON l.ENGINE_LOCK_ID = w.req_lock AND l.ENGINE = w.eng",
        ("CONCAT('`', l.OBJECT_SCHEMA, '`.`', l.OBJECT_NAME, '`')", "l.INDEX_NAME", "l.LOCK_MODE", "l.LOCK_TYPE",
         f"LEFT(l.LOCK_DATA, {LOCK_DATA_CHARS})"), ps)


def _row_locks_is(ps: bool) -> Select:
    """MariaDB, MySQL 5.5–5.7: each lock of INNODB_LOCKS with its transaction. INNODB_LOCKS lists a
    lock once however many requests it blocks, so its rows grow with the sessions involved, not
    with the wait pairs (n holders of one row and m waiters are n + m rows, n·m pairs): read
    whole, nothing an application does pushes a root out of it."""
    user, host, command = _who("p", ps)
    return Select(
        ("l.lock_id", "l.lock_trx_id", "t.trx_mysql_thread_id", user, host, "t.trx_state",
         "TIMESTAMPDIFF(SECOND, t.trx_started, NOW())", "TIMESTAMPDIFF(SECOND, t.trx_wait_started, NOW())",
         "t.trx_requested_lock_id <=> l.lock_id", "l.lock_mode", "l.lock_type", "l.lock_table", "l.lock_index",
         "l.lock_space", "l.lock_page", "l.lock_rec", f"LEFT(l.lock_data, {LOCK_DATA_CHARS})", command,
         f"CASE WHEN t.trx_requested_lock_id IS NULL THEN {_sql('t.trx_query')} END"),
        f"FROM information_schema.INNODB_LOCKS l LEFT JOIN {_TRX} t ON t.trx_id = l.lock_trx_id"
        + _join("p", "t.trx_mysql_thread_id", ps),
        ROWS_READ, lambda r: (_text(r[1]), _text(r[0])),
        () if ps else ((2, 3, 4, 17),))


def _transactions(ps: bool) -> Select:
    user, host, command = _who("p", ps)
    return Select(
        ("t.trx_id", "t.trx_mysql_thread_id", user, host, "t.trx_state",
         "TIMESTAMPDIFF(SECOND, t.trx_started, NOW())", "t.trx_rows_locked", "t.trx_rows_modified",
         "t.trx_lock_structs", "t.trx_isolation_level", command, f"LEFT(t.trx_query, {STATUS_SQL_CHARS})",
         "TIMESTAMPDIFF(SECOND, t.trx_wait_started, NOW())"),
        f"FROM {_TRX} t" + _join("p", "t.trx_mysql_thread_id", ps),
        MAX_TRANSACTIONS, lambda r: (_desc(r[5]), _text(r[0])),                 # oldest first
        () if ps else ((1, 2, 3, 10),))


LOCK_WAITS_IS, LOCK_WAITS_PS = _lock_waits_is(True), _lock_waits_ps(True)
TRANSACTIONS = _transactions(True)
SESSIONS_PS = Select(
    ("t.PROCESSLIST_ID", "t.PROCESSLIST_USER", "t.PROCESSLIST_HOST", "t.PROCESSLIST_DB", "t.PROCESSLIST_COMMAND",
     "t.PROCESSLIST_STATE", "t.PROCESSLIST_TIME", _sql("COALESCE(s.DIGEST_TEXT, t.PROCESSLIST_INFO)")),
    f"FROM {_THREADS} t LEFT JOIN performance_schema.events_statements_current s "
    "ON s.THREAD_ID = t.THREAD_ID AND s.NESTING_EVENT_ID IS NULL "
    f"WHERE t.TYPE = 'FOREGROUND' AND t.PROCESSLIST_COMMAND NOT IN ({_IDLE}) "
    "AND t.PROCESSLIST_ID <> CONNECTION_ID()",
    MAX_SESSIONS, lambda r: (_desc(r[6]), r[0] if isinstance(r[0], int) else 0))  # longest in its state first
# All foreground sessions in one row (a plain aggregate: no GROUP BY, no temporary table); the busy
# ones are grouped client-side from the sessions rows.
SESSION_COUNTS_PS = (
    "SELECT COUNT(*), COUNT(CASE WHEN PROCESSLIST_COMMAND = 'Sleep' THEN 1 END), "
    f"MAX(CASE WHEN PROCESSLIST_COMMAND = 'Sleep' THEN PROCESSLIST_TIME END) FROM {_THREADS} "
    "WHERE TYPE = 'FOREGROUND' AND PROCESSLIST_ID <> CONNECTION_ID()")
PROCESSLIST_SQL = "SHOW PROCESSLIST"        # without performance_schema: no temporary table either



def _lock_session_order(r: list[Any]) -> tuple[Any, ...]:
    """Waiters first, then the oldest transactions, then the longest in their state: the holders a
    stall names are among the rows kept even where a pool keeps hundreds of idle sessions."""
    waiting = r[9] == "LOCK WAIT" or stall_states.wait_kind(r[5] if isinstance(r[5], str) else None) is not None
    return (not waiting, r[8] is None, _desc(r[8]), _desc(r[6]), r[0] if isinstance(r[0], int) else 0)


# performance_schema.threads: every foreground session, idle ones too, with its transaction and (where
# the events_statements_current consumer is on) an idle session's last statement. Not mysqltop's own
# connections, this one's or another mysqltop's (the program_name it sends at connect): a monitor
# holds no lock a stall waits for, and named among the candidates it would be one more to check.
LOCK_SESSIONS_PS = Select(
    ("p.PROCESSLIST_ID", "p.PROCESSLIST_USER", "p.PROCESSLIST_HOST", "p.PROCESSLIST_DB", "p.PROCESSLIST_COMMAND",
     "p.PROCESSLIST_STATE", "p.PROCESSLIST_TIME", _sql("p.PROCESSLIST_INFO"),
     "TIMESTAMPDIFF(SECOND, t.trx_started, NOW())", "t.trx_state", "TIMESTAMPDIFF(SECOND, t.trx_wait_started, NOW())",
     _sql("s.SQL_TEXT"), "LEFT(a.ATTR_VALUE, 32)"),
    f"FROM {_THREADS} p LEFT JOIN {_TRX} t ON t.trx_mysql_thread_id = p.PROCESSLIST_ID "
    "LEFT JOIN performance_schema.session_connect_attrs a ON a.PROCESSLIST_ID = p.PROCESSLIST_ID "
    "AND a.ATTR_NAME = 'program_name' "
    "LEFT JOIN performance_schema.events_statements_current s ON s.THREAD_ID = p.THREAD_ID AND s.NESTING_EVENT_ID IS NULL "
    f"WHERE p.TYPE = 'FOREGROUND' AND p.PROCESSLIST_ID <> CONNECTION_ID() AND p.PROCESSLIST_COMMAND NOT IN ({_SERVER_THREADS}) "
    f"AND (a.ATTR_VALUE IS NULL OR a.ATTR_VALUE <> '{stall_states.OWN_PROGRAM}')",
    MAX_LOCK_SESSIONS, _lock_session_order)
# MySQL 5.7+/8.0, MariaDB 10.5+: the granted and pending metadata locks, where the instrument is on
# (MySQL 8 default; MariaDB: UPDATE performance_schema.setup_instruments SET ENABLED='YES' WHERE
# NAME='wait/lock/metadata/sql/mdl'). With it off, one row says so.
METADATA_LOCKS_PS = Select(
    ("CASE i.ENABLED WHEN 'YES' THEN 'performance_schema' ELSE 'instrument_off' END", "t.PROCESSLIST_ID",
     "m.OBJECT_TYPE", "m.OBJECT_SCHEMA", "m.OBJECT_NAME", "m.LOCK_TYPE", "m.LOCK_STATUS", "m.LOCK_DURATION"),
    "FROM performance_schema.setup_instruments i LEFT JOIN (performance_schema.metadata_locks m "
    f"JOIN {_THREADS} t ON t.THREAD_ID = m.OWNER_THREAD_ID AND t.PROCESSLIST_ID <> CONNECTION_ID()) "
    "ON i.ENABLED = 'YES' WHERE i.NAME = 'wait/lock/metadata/sql/mdl'",
    MAX_METADATA_LOCKS, lambda r: (r[1] if isinstance(r[1], int) else 0, _text(r[2]), _text(r[4]), _text(r[6])))
# MariaDB's metadata_lock_info plugin: granted locks only (a waiter's pending request is not listed).
METADATA_LOCKS_PLUGIN = Select(
    ("'metadata_lock_info'", "m.THREAD_ID", "m.LOCK_TYPE", "m.TABLE_SCHEMA", "m.TABLE_NAME", "m.LOCK_MODE",
     "'GRANTED'", "m.LOCK_DURATION"),
    "FROM information_schema.METADATA_LOCK_INFO m WHERE m.THREAD_ID <> CONNECTION_ID()",
    MAX_METADATA_LOCKS, lambda r: (r[1] if isinstance(r[1], int) else 0, _text(r[2]), _text(r[4]), _text(r[5])))
# The table exists only while the plugin is active; LIMIT 0 reads no row and, unlike a look in
# information_schema.PLUGINS, needs no on-disk temporary table (capabilities.METRICS_COLUMNS_SQL).
MDL_PLUGIN_SQL = "SELECT * FROM information_schema.METADATA_LOCK_INFO LIMIT 0"


def has_mdl_plugin(conn: Any, flavor: str) -> bool:
    """MariaDB's metadata_lock_info plugin is active: asked once per connection (a refusal or an
    error is a no: the stall advice then says how to get it)."""
    if flavor != "mariadb":
        return False
    try:
        with conn.cursor() as cur:
            cur.execute(MDL_PLUGIN_SQL)
            cur.fetchall()
    except Exception:  # noqa: BLE001 - only a hint source; the connection's own failures show in the poll
        return False
    return True


def lock_sessions_from(sessions: list[list[Any]], transactions: list[list[Any]] | None) -> list[list[Any]]:
    """Without performance_schema: the lock_sessions rows from SHOW PROCESSLIST's rows (every
    session, in the sessions shape) and the transactions read (their age, state and wait)."""
    trx = {r[1]: r for r in transactions or [] if len(r) >= 13 and isinstance(r[1], int)}
    out = []
    for r in sessions:
        t = trx.get(r[0])
        out.append([*r[:8], t[5] if t else None, t[4] if t else None, t[12] if t else None, None])
    return sorted(out, key=_lock_session_order)[:MAX_LOCK_SESSIONS]


LOCK_WAITS_IS_SQL, LOCK_WAITS_PS_SQL = LOCK_WAITS_IS.sql, LOCK_WAITS_PS.sql
TRANSACTIONS_SQL = TRANSACTIONS.sql


@dataclass(frozen=True)
class LockReads:
    """The lock, transaction and session statements of one server."""

    lock_waits: Select
    transactions: Select
    ps: bool                     # sessions from performance_schema; else SHOW PROCESSLIST
    # read while a session waits: every session (performance_schema; else built from SHOW
    # PROCESSLIST's rows) and the metadata locks where the server lists them
    lock_sessions: Select | None = None
    metadata_locks: Select | None = None
    # every listed lock with its transaction, read with lock_waits (None: MySQL 8, whose
    # data_locks lists every lock taken, not only those in a wait)
    row_locks: Select | None = None

    def first_trip(self) -> list[tuple[str, str]]:
        """(key, SQL) sent every poll; without performance_schema the states are counted from the
        processlist rows (no statement of their own)."""
        if self.ps:
            return [(K_SESSIONS, SESSIONS_PS.sql), (K_SESSION_STATES, SESSION_COUNTS_PS)]
        return [(K_SESSIONS, PROCESSLIST_SQL)]


def reads(flavor: str, version: tuple[int, ...], ps_readable: bool, mdl_plugin: bool = False) -> LockReads:
    """`mdl_plugin`: MariaDB's metadata_lock_info plugin is active (has_mdl_plugin)."""
    mysql8 = flavor != "mariadb" and tuple(version[:2]) >= (8, 0)
    # performance_schema.metadata_locks: MySQL 5.7+, MariaDB 10.5+
    ps_mdl = ps_readable and tuple(version[:2]) >= ((10, 5) if flavor == "mariadb" else (5, 7))
    return LockReads(lock_waits=_lock_waits_ps(ps_readable) if mysql8 else _lock_waits_is(ps_readable),
                     transactions=_transactions(ps_readable), ps=ps_readable,
                     lock_sessions=LOCK_SESSIONS_PS if ps_readable else None,
                     metadata_locks=METADATA_LOCKS_PLUGIN if mdl_plugin else METADATA_LOCKS_PS if ps_mdl else None,
                     row_locks=None if mysql8 else _row_locks_is(ps_readable))


def lock_statements(flavor: str, version: tuple[int, ...], ps_readable: bool) -> list[tuple[str, str]]:
    """(key, SQL) of the lock and transaction reads for this server."""
    r = reads(flavor, version, ps_readable)
    return [(K_LOCK_WAITS, r.lock_waits.sql), (K_TRANSACTIONS, r.transactions.sql), *r.first_trip()]


# ---- rows → recorded shapes ---------------------------------------------------------------------
Threads = dict[int, tuple[Any, Any, Any]]        # thread id → (user, host, command)


def processlist_rows(rows: Any, own_id: int | None) -> tuple[list[list[Any]], Threads]:
    """SHOW PROCESSLIST (Id, User, Host, db, Command, Time, State, Info[, Progress]) → every
    session but ours in the sessions shape, and who each thread is."""
    out: list[list[Any]] = []
    threads: Threads = {}
    for r in plain_rows(rows):
        if len(r) < 8 or not isinstance(r[0], int) or r[0] == own_id:
            continue
        threads[r[0]] = (r[1], r[2], r[4])
        info = r[7][:SQL_CHARS] if isinstance(r[7], str) else r[7]
        out.append([r[0], r[1], r[2], r[3], r[4], r[6], r[5], info])
    return out, threads


def busy(sessions: Iterable[list[Any]]) -> list[list[Any]]:
    return [r for r in sessions if r[4] not in IDLE_COMMANDS]


def session_groups(sessions: list[list[Any]], counts: Any = None) -> list[list[Any]]:
    """[command, state, sessions, longest_s] per (command, state) of the sessions rows; `counts`
    (SESSION_COUNTS_PS: all, sleeping, longest sleep) adds the idle ones the rows leave out."""
    groups: dict[tuple[str, str], list[Any]] = {}
    for r in sessions:
        key = (_text(r[4]), _text(r[5]))
        g = groups.setdefault(key, [key[0], key[1], 0, None])
        g[2] += 1
        if isinstance(r[6], (int, float)) and (g[3] is None or r[6] > g[3]):
            g[3] = r[6]
    out = sorted(groups.values(), key=lambda g: (-g[2], _desc(g[3]), g[0], g[1]))[:MAX_STATES]
    row = plain_rows(counts)[0] if counts else None
    if row and len(row) >= 3 and isinstance(row[0], int) and isinstance(row[1], int):
        if row[1]:
            out.append(["Sleep", "", row[1], row[2]])
        other = row[0] - row[1] - len(sessions)          # server threads, or busy beyond ROWS_READ
        if other > 0:
            out.append(["(other)", "", other, None])
    return out


def fill_threads(sel: Select, rows: list[list[Any]], threads: Threads | None) -> list[list[Any]]:
    """Who each thread is, from SHOW PROCESSLIST's rows (the statement read NULL there)."""
    if not sel.thread_cols or threads is None:
        return rows
    for r in rows:
        for tid, user, host, command in sel.thread_cols:
            who = threads.get(r[tid]) if isinstance(r[tid], int) else None
            if who is not None:
                r[user], r[host] = who[0], who[1]
                if command >= 0:
                    r[command] = who[2]
    return rows


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
