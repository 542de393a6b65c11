"""Deadlocks made on purpose: two sessions lock two rows in opposite orders, the server picks one.

    made = make_deadlocks(db.root_kwargs(), 5)       # → 5 (each ended by ER_LOCK_DEADLOCK 1213)

Each round waits (bounded) until the first session's second UPDATE is really waiting for its lock
before the second session closes the cycle, so every round is one deadlock whatever the machine's
speed. Idempotent setup: mysqltop_test.deadlock (id 1, 2).
"""

from __future__ import annotations

import threading
import time
from typing import Any

TABLE = "mysqltop_test.deadlock"
ER_LOCK_DEADLOCK = 1213


def prepare(kwargs: dict[str, Any]) -> None:
    import pymysql
    conn = pymysql.connect(**kwargs, autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE IF NOT EXISTS mysqltop_test")
            cur.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
            cur.execute(f"REPLACE INTO {TABLE} VALUES (1, 0), (2, 0)")
    finally:
        conn.close()


def _waiting(watch: Any, thread_id: int) -> bool:
    with watch.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM information_schema.innodb_trx "
                    "WHERE trx_mysql_thread_id=%s AND trx_state='LOCK WAIT'", (thread_id,))
        row = cur.fetchone()
    return bool(row and row[0])


def make_deadlocks(kwargs: dict[str, Any], rounds: int, timeout: float = 30.0) -> int:
    """Make `rounds` deadlocks; returns how many the server reported (1213)."""
    import pymysql
    prepare(kwargs)
    a = pymysql.connect(**kwargs, autocommit=True)
    b = pymysql.connect(**kwargs, autocommit=True)
    watch = pymysql.connect(**kwargs, autocommit=True)
    made = 0
    try:
        for _ in range(rounds):
            errors: list[int] = []

            def second_update(conn: Any) -> None:
                try:
                    with conn.cursor() as cur:
                        cur.execute(f"UPDATE {TABLE} SET v=v+1 WHERE id=2")
                except pymysql.err.OperationalError as e:
                    errors.append(e.args[0])

            with a.cursor() as ca, b.cursor() as cb:
                ca.execute("BEGIN")
                cb.execute("BEGIN")
                ca.execute(f"UPDATE {TABLE} SET v=v+1 WHERE id=1")
                cb.execute(f"UPDATE {TABLE} SET v=v+1 WHERE id=2")
                t = threading.Thread(target=second_update, args=(a,), daemon=True)
                t.start()
                deadline = time.monotonic() + timeout
                # INNODB_TRX is a cache the server refreshes only when it was not read in the last
                # 0.1 s: asking more often than that keeps it stale (and the round waits its timeout).
                while not _waiting(watch, a.thread_id()) and time.monotonic() < deadline:
                    time.sleep(0.15)
                try:
                    cb.execute(f"UPDATE {TABLE} SET v=v+1 WHERE id=1")
                except pymysql.err.OperationalError as e:
                    errors.append(e.args[0])
                t.join(timeout)
                made += errors.count(ER_LOCK_DEADLOCK)
                ca.execute("ROLLBACK")
                cb.execute("ROLLBACK")
    finally:
        for c in (a, b, watch):
            c.close()
    return made
