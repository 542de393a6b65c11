"""A statement in another character set does not move the purge finding: an application's latin1
`SELECT /* café */ …` reaches the status text as raw bytes ("caf?"), while INNODB_TRX converts it.
On a throwaway MariaDB with real sessions: the DBA's older write transaction holds no read view,
the application's younger one does, and its running statement is the latin1 one.
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
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live


def _conn(db: Any, autocommit: bool = True, charset: str = "utf8mb4") -> Any:
    return pymysql.connect(**db.root_kwargs(), autocommit=autocommit, charset=charset, connect_timeout=10)


def test_a_latin1_statement_leaves_the_purge_finding_on_the_read_view_holder(mariadb) -> None:
    db = mariadb
    db.query("CREATE TABLE IF NOT EXISTS mysqltop_test.dba2 (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
    db.query("REPLACE INTO mysqltop_test.dba2 VALUES (1, 1)")
    with purge_scene(db) as scene:
        dba = _conn(db, autocommit=False)          # the oldest transaction: a write, no read view
        scene.sessions.append(dba)
        with dba.cursor() as cur:
            cur.execute("UPDATE mysqltop_test.dba2 SET v = v + 1 WHERE id = 1")
        time.sleep(1.2)
        app = _conn(db, charset="latin1")          # the read view that holds purge back
        scene.sessions.append(app)
        with app.cursor() as cur:
            cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
            cur.execute("SELECT COUNT(*) FROM mysqltop_test.dba2")
            cur.fetchall()
        app_id, dba_id = app.thread_id(), dba.thread_id()

        def run() -> None:
            try:
                with app.cursor() as cur:
                    cur.execute("SELECT /* café */ SLEEP(120)")
            except pymysql.MySQLError:
                pass                                 # killed at the end
        threading.Thread(target=run, daemon=True).start()
        wait_until(lambda: "caf?" in db.query("SHOW ENGINE INNODB STATUS")[0][2], timeout=30)
        assert db.query(f"SELECT trx_query FROM information_schema.INNODB_TRX "
                        f"WHERE trx_mysql_thread_id = {app_id}")[0][0] == "SELECT /* café */ SLEEP(120)"

        scene.gen.start()
        frames: list[Frame] = []

        said: list[str] = []

        def named() -> str:
            frames.extend(scene.watcher.poll(1))
            found = [a for a in advise(frames, scene.watcher.variables, min_span_s=None) if a.id == "purge_lag"]
            if found and "Purge is held back" in found[0].message:
                said.append(found[0].message)
                return found[0].message if f"KILL {app_id}" in found[0].message else ""
            return ""
        msg = wait_until(named, timeout=180, step=0.0)
        assert not any(f"KILL {dba_id}" in m for m in said), said      # the no-view write is never the KILL
        assert msg.startswith(f"Purge is held back by an old transaction: thread {app_id}, root@"), msg
        assert f"KILL {app_id} or commit it" in msg and f"thread {dba_id}" not in msg
        # Per frame an entry may stand on unknown ground (a statement moved between the INNODB_TRX read
        # and the status read): never a wrong value, so the window is asserted, not the last frame.
        app_views = [t.read_view for f in frames for t in f.transactions if t.thread_id == app_id]
        dba_views = [t.read_view for f in frames for t in f.transactions if t.thread_id == dba_id]
        assert True in app_views and False not in app_views, app_views
        assert False in dba_views and True not in dba_views, dba_views
