"""Real stalls on a throwaway MariaDB: one session holds a lock and goes idle, real sessions pile
up behind it (row lock, metadata lock + ALTER, FLUSH TABLES WITH READ LOCK, LOCK TABLES,
GET_LOCK, a chain two deep). Shared by tests/live/test_stalls_live.py and bench/diagnosis.

    with inject(db.root_kwargs(), "metadata_lock", waiters=8) as s:
        s.holder_id, s.waiter_ids()       # the session to release, and the sessions waiting
    # leaving the block releases the holder and ends every waiter
"""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping

import pymysql

from tests.support.sql import connect, cursor
from tests.support.waiting import wait_until

DB = "mysqltop_test"
CLASSES = ("row_lock", "metadata_lock", "global_read_lock", "table_lock", "user_lock", "chain", "running_query")
# The finding each class must lead with (core/rules/stall_rules.py ids).
FINDING = {"row_lock": "stall_row_lock", "metadata_lock": "stall_metadata_lock",
           "global_read_lock": "stall_global_read_lock", "table_lock": "stall_table_lock",
           "user_lock": "stall_user_lock", "chain": "stall_row_lock", "running_query": "stall_metadata_lock"}
_seq = itertools.count(1)


def _id(conn: Any) -> int:
    with conn.cursor() as c:
        c.execute("SELECT CONNECTION_ID()")
        return int(c.fetchone()[0])


def _run(conn: Any, *sql: str) -> None:
    try:
        with conn.cursor() as c:
            for s in sql:
                c.execute(s)
                c.fetchall()
    except pymysql.MySQLError:
        pass            # a wait ended by the release (a lock timeout, a killed holder): done


@dataclass
class Injected:
    kind: str
    holder_id: int
    started: float                                  # time.time() when the first waiter was sent
    holder: Any
    release_sql: tuple[str, ...]
    waiters: list[tuple[int, Any, threading.Thread]] = field(default_factory=list)
    others: list[Any] = field(default_factory=list)  # sessions neither holder nor waiter (chain middle)
    kw: Mapping[str, Any] | None = None               # set: release from another session (a busy holder)
    holder_thread: threading.Thread | None = None

    def waiter_ids(self) -> list[int]:
        return [i for i, _, _ in self.waiters]

    def release(self) -> None:
        if self.kw is not None:
            other = connect(self.kw)
            _run(other, *self.release_sql)
            other.close()
            if self.holder_thread is not None:
                self.holder_thread.join(timeout=60)
        else:
            _run(self.holder, *self.release_sql)
        for _, _, t in self.waiters:
            t.join(timeout=60)
        for c in (self.holder, *self.others, *(c for _, c, _ in self.waiters)):
            try:
                c.close()
            except Exception:  # noqa: BLE001 - closing a session the server may have ended
                pass


def _start_waiter(kw: Mapping[str, Any], sql: tuple[str, ...]) -> tuple[int, Any, threading.Thread]:
    conn = connect(kw)
    tid = _id(conn)
    with conn.cursor() as c:
        c.execute("SET SESSION innodb_lock_wait_timeout = 300, lock_wait_timeout = 300")
    t = threading.Thread(target=_run, args=(conn, *sql), daemon=True)
    t.start()
    return tid, conn, t


def _waiting(kw: Mapping[str, Any], ids: list[int]) -> Callable[[], bool]:
    """All of `ids` wait (on a server lock state, or in an InnoDB lock wait)."""
    def check() -> bool:
        return set(ids) <= set(waiting_now(kw))
    return check


def inject(kw: Mapping[str, Any], kind: str, waiters: int = 16) -> "_Ctx":
    return _Ctx(kw, kind, waiters)


class _Ctx:
    def __init__(self, kw: Mapping[str, Any], kind: str, waiters: int) -> None:
        self.kw, self.kind, self.n = kw, kind, waiters
        self.s: Injected | None = None

    def __enter__(self) -> Injected:
        self.s = _inject(self.kw, self.kind, self.n)
        return self.s

    def __exit__(self, *exc: object) -> None:
        if self.s is not None:
            self.s.release()


def _inject(kw: Mapping[str, Any], kind: str, n: int) -> Injected:
    table = f"{DB}.stall_{kind}_{next(_seq)}_{int(time.time() * 1000) % 100000}"
    with cursor(kw) as c:
        c.execute(f"CREATE DATABASE IF NOT EXISTS {DB}")
        c.execute(f"CREATE TABLE {table} (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
        c.execute(f"INSERT INTO {table} VALUES (1, 0), (2, 0), (3, 0)")
    holder = connect(kw)
    hid = _id(holder)
    update = f"UPDATE {table} SET v = v + 1 WHERE id = 1"
    others: list[Any] = []
    if kind in ("row_lock", "chain"):
        _run(holder, "SET SESSION innodb_lock_wait_timeout = 300", "BEGIN", update)
        release: tuple[str, ...] = ("ROLLBACK",)
        sqls: list[tuple[str, ...]] = [("BEGIN", update, "ROLLBACK")] * n
    elif kind == "metadata_lock":
        _run(holder, "BEGIN", f"SELECT * FROM {table}")
        release = ("ROLLBACK",)
        alter: tuple[str, ...] = (f"ALTER TABLE {table} ADD COLUMN w INT",)
        sqls = [alter, *[(f"SELECT v FROM {table} WHERE id = 2",)] * (n - 1)]
    elif kind == "global_read_lock":
        _run(holder, "FLUSH TABLES WITH READ LOCK")
        release, sqls = ("UNLOCK TABLES",), [(update,)] * n
    elif kind == "table_lock":
        _run(holder, f"LOCK TABLES {table} WRITE")
        release, sqls = ("UNLOCK TABLES",), [(f"SELECT v FROM {table} WHERE id = 2",)] * n
    elif kind == "user_lock":
        _run(holder, "SELECT GET_LOCK('mysqltop_stall_job', 0)")
        release, sqls = ("SELECT RELEASE_LOCK('mysqltop_stall_job')",), \
            [("SELECT GET_LOCK('mysqltop_stall_job', 300)", "SELECT RELEASE_LOCK('mysqltop_stall_job')")] * n
    elif kind == "running_query":
        # a statement that runs (not idle) holds the table while an ALTER and selects queue behind it
        busy = threading.Thread(target=_run, args=(holder, f"SELECT v, SLEEP(300) FROM {table} WHERE id = 3"),
                                daemon=True)
        busy.start()
        wait_until(lambda: _state_of(kw, hid) == "User sleep", timeout=60)
        release = (f"KILL QUERY {hid}",)
        alter = (f"ALTER TABLE {table} ADD COLUMN w INT",)
        sqls = [alter, *[(f"SELECT v FROM {table} WHERE id = 2",)] * (n - 1)]
    else:
        raise ValueError(kind)
    started = time.time()
    s = Injected(kind, hid, started, holder, release, others=others)
    if kind == "running_query":
        s.kw, s.holder_thread = kw, busy
    if kind == "chain":
        # B holds row 2 and waits for A's row 1; the rest wait for B's row 2: two deep below A
        mid = _start_waiter(kw, ("BEGIN", f"UPDATE {table} SET v = v + 1 WHERE id = 2", update, "ROLLBACK"))
        s.waiters.append(mid)
        sqls = [("BEGIN", f"UPDATE {table} SET v = v + 1 WHERE id = 2", "ROLLBACK")] * (n - 1)
        wait_until(_waiting(kw, [mid[0]]), timeout=60)
    for i, sql in enumerate(sqls):
        s.waiters.append(_start_waiter(kw, sql))
        if kind in ("metadata_lock", "running_query") and i == 0:          # the ALTER queues first, the selects behind it
            wait_until(_waiting(kw, [s.waiters[-1][0]]), timeout=60)
    wait_until(_waiting(kw, s.waiter_ids()), timeout=60)
    return s


def _state_of(kw: Mapping[str, Any], thread: int) -> str | None:
    with cursor(kw) as c:
        c.execute(f"SELECT STATE FROM information_schema.PROCESSLIST WHERE ID = {int(thread)}")
        row = c.fetchone()
        return str(row[0]) if row else None


def waiting_now(kw: Mapping[str, Any]) -> Iterator[int]:
    """Thread ids waiting on any lock right now (for assertions that a stall has ended)."""
    with cursor(kw) as c:
        c.execute("SELECT p.ID FROM information_schema.PROCESSLIST p LEFT JOIN information_schema.INNODB_TRX t "
                  "ON t.trx_mysql_thread_id = p.ID WHERE p.STATE LIKE 'Waiting for %lock' "
                  "OR p.STATE = 'User lock' OR t.trx_state = 'LOCK WAIT'")
        yield from (int(r[0]) for r in c.fetchall())
