"""Another mysqltop watching the same server is no stall candidate: every mysqltop connection
sends program_name=mysqltop, and the sessions a stall's holder is looked for among leave out
those connections (this one's and another mysqltop's), not a client that happens to be idle."""

from __future__ import annotations

import threading

import pytest

from mysqltop.sources.mysql import MySQLSource
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live


def test_another_mysqltop_is_left_out_of_the_lock_sessions(mariadb) -> None:  # type: ignore[no-untyped-def]
    holder, waiter, idle = mariadb.root_conn(), mariadb.root_conn(), mariadb.root_conn()
    with holder.cursor() as c:
        c.execute("CREATE TABLE IF NOT EXISTS mysqltop_test.other_monitors (id INT PRIMARY KEY, v INT)")
        c.execute("REPLACE INTO mysqltop_test.other_monitors VALUES (1, 0)")
        c.execute("BEGIN")
        c.execute("UPDATE mysqltop_test.other_monitors SET v = v + 1 WHERE id = 1")
    blocked = threading.Thread(target=lambda: waiter.cursor().execute(
        "UPDATE mysqltop_test.other_monitors SET v = v + 1 WHERE id = 1"), daemon=True)
    watcher, other = MySQLSource(mariadb.options(), interval=1.0), MySQLSource(mariadb.options(), interval=1.0)
    try:
        with waiter.cursor() as c:
            c.execute("SET SESSION innodb_lock_wait_timeout = 60")
        blocked.start()
        watcher.open()
        other.open()
        other_id = other.link.conn.thread_id()
        raw = wait_until(lambda: (r := watcher.read()) is not None and r.lock_sessions and r, timeout=30, step=0.5)
        ids = {row[0] for row in raw.lock_sessions}
        assert holder.thread_id() in ids and idle.thread_id() in ids, ids
        assert other_id not in ids and watcher.link.conn.thread_id() not in ids, ids
    finally:
        with holder.cursor() as c:
            c.execute("ROLLBACK")
        blocked.join(timeout=70)
        watcher.close()
        other.close()
        for conn in (holder, waiter, idle):
            conn.close()
