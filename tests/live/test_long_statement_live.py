"""A long statement in another character set leaves every other entry of the TRANSACTIONS list
readable: an application's latin1 statement of 600, 1,000 and 4,000 bytes reaches the status
text as raw bytes ("?" for "é") and is printed whole up to the server's cut, with older
transactions, each holding a read view, listed after it."""

from __future__ import annotations

import threading
from typing import Any

import pymysql
import pytest

from mysqltop.core.frame import Frame
from tests.support.scenarios import Watcher
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live

OLDER = 3


def _conn(db: Any, charset: str = "utf8mb4") -> Any:
    return pymysql.connect(**db.root_kwargs(), autocommit=True, charset=charset, connect_timeout=10)


def _snapshot(conn: Any) -> None:
    with conn.cursor() as cur:
        cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
        cur.execute("SELECT COUNT(*) FROM mysqltop_test.long_stmt")
        cur.fetchall()


@pytest.mark.parametrize("size", [600, 1_000, 4_000])
def test_entries_after_a_long_latin1_statement_read_right(mariadb, size: int) -> None:
    db = mariadb
    db.query("CREATE TABLE IF NOT EXISTS mysqltop_test.long_stmt (id INT PRIMARY KEY) ENGINE=InnoDB")
    sessions: list[Any] = []
    watcher = Watcher(db)
    try:
        for _ in range(OLDER):                    # older: listed after the application's entry
            s = _conn(db)
            sessions.append(s)
            _snapshot(s)
        app = _conn(db, charset="latin1")
        sessions.append(app)
        _snapshot(app)
        head = "SELECT /* "
        tail = " */ SLEEP(120)"
        words = "café " * ((size - len(head) - len(tail)) // 5 + 1)
        statement = (head + words)[: size - len(tail)] + tail
        assert len(statement.encode("latin1")) == size

        def run() -> None:
            try:
                with app.cursor() as cur:
                    cur.execute(statement)
            except pymysql.MySQLError:
                pass                                 # killed at the end
        threading.Thread(target=run, daemon=True).start()
        wait_until(lambda: "SELECT /* caf? caf?" in db.query("SHOW ENGINE INNODB STATUS")[0][2], timeout=30)

        threads = [s.thread_id() for s in sessions]
        frames: list[Frame] = []

        def views() -> dict[int, Any] | None:
            frames.extend(watcher.poll(1))
            if not frames:
                return None
            # the server's rows are read once a transaction is old enough (sources/poll_statements.py)
            got = {t.thread_id: t.read_view for t in frames[-1].transactions
                   if t.thread_id in threads and t.confirmed}
            return got if len(got) == len(threads) else None
        got = wait_until(views, timeout=60, step=0.0)
        older, app_id = threads[:-1], threads[-1]
        assert {t: got[t] for t in older} == {t: True for t in older}, got
        # INNODB_TRX keeps 1,024 bytes of a statement: a longer one cannot be told from what the
        # server printed after it, so its own entry is unknown, never "no"
        assert got[app_id] is (True if size < 1_024 else None), got
    finally:
        watcher.close()
        for s in sessions:
            try:
                db.query(f"KILL {s.thread_id()}")
            except pymysql.MySQLError:
                pass
