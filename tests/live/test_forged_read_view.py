"""A hostile application user (rights on its own schema only) prints forged TRANSACTIONS entries
in statement comments to move the purge finding's KILL target, or to hide its own old read view.

On a throwaway MariaDB with real sessions: the DBA's older transaction without a read view, the
attacker's old read view, the DBA's younger read view, and an attacker session whose running
statement forges entries reusing their thread ids. The purge finding, from the frames mysqltop's
own live source and pipeline make, must name the attacker — then with the attacker alone, while
it forges an entry for its own thread.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pymysql
import pytest

from mysqltop.core.advice import advise
from mysqltop.core.frame import Frame
from tests.support.purge import purge_scene
from tests.support.scenarios import Watcher

pytestmark = pytest.mark.live

APP, APP_PW = "app", "app-pw"


def _conn(db: Any, user: str = "root", password: str = "", autocommit: bool = True) -> Any:
    return pymysql.connect(host=db.host, port=db.port, user=user, password=password, autocommit=autocommit,
                           connect_timeout=10)


def _id(conn: Any) -> int:
    with conn.cursor() as cur:
        cur.execute("SELECT CONNECTION_ID()")
        return int(cur.fetchone()[0])


def _forged(*entries: tuple[int, int]) -> str:
    """A comment that prints an entry per (thread, age): each claims an old read view."""
    body = "".join(f"\n---TRANSACTION {900 + i}, ACTIVE {age} sec\n0 lock struct(s), heap size 1128, 0 row lock(s)\n"
                   f"MariaDB thread id {thread}, OS thread handle 1, query id 1 localhost root \n"
                   "Trx read view will not see trx with id >= 1, sees < 1"
                   for i, (thread, age) in enumerate(entries))
    return f"/*{body}\n*/"


def _run(conn: Any, sql: str) -> threading.Thread:
    def go() -> None:
        try:
            with conn.cursor() as cur:
                cur.execute(sql)
        except pymysql.MySQLError:
            pass                                       # killed at teardown
    t = threading.Thread(target=go, daemon=True)
    t.start()
    return t


def _wait_running(db: Any, thread: int, deadline: float) -> None:
    while not db.query(f"SELECT 1 FROM information_schema.PROCESSLIST WHERE ID = {thread} AND INFO LIKE '%TRANSACTION%'"):
        assert time.monotonic() < deadline, "the forging statement never started"
        time.sleep(0.1)


def _purge(watcher: Watcher, frames: list[Frame], deadline: float, want: str) -> str:
    """Poll until the purge finding over these frames says `want` (or the deadline)."""
    last = ""
    while time.monotonic() < deadline:
        frames += watcher.poll(1)
        found = [a for a in advise(frames, watcher.variables, min_span_s=None) if a.id == "purge_lag"]
        last = found[0].message if found else ""
        if want in last:
            return last
    return last


def _views(frames: list[Frame], thread: int) -> set[bool | None]:
    """Every read view the frames give this thread's transaction."""
    return {t.read_view for f in frames for t in f.transactions if t.thread_id == thread}


def test_forged_entries_cannot_move_or_hide_the_purge_target(mariadb) -> None:
    db = mariadb
    for host in ("%", "localhost", "127.0.0.1"):
        db.query(f"CREATE USER IF NOT EXISTS '{APP}'@'{host}' IDENTIFIED BY '{APP_PW}'")
        db.query(f"GRANT ALL ON appdb.* TO '{APP}'@'{host}'")
    db.query("CREATE DATABASE IF NOT EXISTS appdb")
    db.query("CREATE TABLE IF NOT EXISTS appdb.t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
    db.query("REPLACE INTO appdb.t VALUES (1, 1), (2, 2)")
    db.query("CREATE TABLE IF NOT EXISTS mysqltop_test.dba (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
    db.query("REPLACE INTO mysqltop_test.dba VALUES (1, 1)")
    with purge_scene(db) as scene:
        # the DBA's own work: the oldest transaction, a write, no read view
        dba_old = _conn(db, autocommit=False)
        scene.sessions.append(dba_old)
        with dba_old.cursor() as cur:
            cur.execute("UPDATE mysqltop_test.dba SET v = v + 1 WHERE id = 1")
        time.sleep(1.2)
        # the attacker's old read view: what really holds purge back
        holder = _conn(db, APP, APP_PW)
        scene.sessions.append(holder)
        attacker = _id(holder)
        with holder.cursor() as cur:
            cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
            cur.execute("SELECT COUNT(*) FROM appdb.t")
            cur.fetchall()
        time.sleep(1.2)
        # the DBA's younger read view (thread 28 of the held-out run)
        dba_view = _conn(db)
        scene.sessions.append(dba_view)
        with dba_view.cursor() as cur:
            cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
            cur.execute("SELECT COUNT(*) FROM mysqltop_test.dba")
            cur.fetchall()
        old_id, view_id = _id(dba_old), _id(dba_view)
        # the forger: a transaction of its own, then a statement whose comment prints entries
        # that reuse the attacker's thread id and give both DBA sessions an old read view
        forger = _conn(db, APP, APP_PW, autocommit=False)
        scene.sessions.append(forger)
        forger_id = _id(forger)
        with forger.cursor() as cur:
            cur.execute("UPDATE appdb.t SET v = v + 1 WHERE id = 2")
        _run(forger, f"SELECT SLEEP(120) {_forged((attacker, 5), (old_id, 99_999), (view_id, 88_888))}")
        _wait_running(db, forger_id, time.monotonic() + 30)
        text = db.query("SHOW ENGINE INNODB STATUS")[0][2]
        assert f"MariaDB thread id {old_id}, OS thread handle 1" in text       # the server printed the forgery

        scene.gen.start()
        frames: list[Frame] = []
        msg = _purge(scene.watcher, frames, time.monotonic() + 90, f"KILL {attacker} or commit it")
        seen = [(t.thread_id, t.age_s, t.read_view) for t in frames[-1].transactions] if frames else []
        assert msg.startswith(f"Purge is held back by an old transaction: thread {attacker}, app@"), (msg, seen)
        assert f"KILL {attacker} or commit it" in msg
        # never a wrong value; the load's statements, changing between the two reads, may leave
        # any entry's view unknown in a frame, so the finding may rest on an earlier frame
        assert True in _views(frames, attacker) and False not in _views(frames, attacker)
        assert True not in _views(frames, old_id) and False not in _views(frames, view_id)

        # the attacker alone, forging an entry for its own thread (the text parser used to drop
        # a thread listed twice, and the finding disappeared while history grew)
        for thread in (old_id, view_id, forger_id):
            db.query(f"KILL {thread}")
        _run(holder, f"SELECT SLEEP(120) {_forged((attacker, 3))}")
        _wait_running(db, attacker, time.monotonic() + 30)
        assert f"MariaDB thread id {attacker}, OS thread handle 1" in db.query("SHOW ENGINE INNODB STATUS")[0][2]
        alone: list[Frame] = []       # a window of its own: the first part's frames cannot carry it
        msg = _purge(scene.watcher, alone, time.monotonic() + 60, f"KILL {attacker} or commit it")
        assert f"KILL {attacker} or commit it" in msg, (msg, _views(alone, attacker))
        assert True in _views(alone, attacker) and False not in _views(alone, attacker)
