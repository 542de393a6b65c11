"""A session waiting on a row lock another session holds: the real lock wait the lock tests need."""

from __future__ import annotations

import threading
from typing import Any

import pymysql


def start_row_waiter(conn: Any, update: str) -> threading.Thread:
    """Run `update` in its own transaction on `conn` (autocommit) in a daemon thread; it waits for
    the row's holder for up to 120 s (the holder decides when it ends), then rolls back. A wait
    ended by the server (timeout, deadlock, the holder's connection closed) ends the thread quietly.
    Join the thread after releasing the row."""

    def wait() -> None:
        try:
            with conn.cursor() as c:
                c.execute("SET SESSION innodb_lock_wait_timeout = 120")
                c.execute("BEGIN")
                c.execute(update)
                c.execute("ROLLBACK")
        except pymysql.MySQLError:
            pass

    thread = threading.Thread(target=wait, daemon=True)
    thread.start()
    return thread
