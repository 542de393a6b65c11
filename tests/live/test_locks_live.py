"""Lock waits, transactions and sessions against the throwaway MariaDB: the blocking tree names the
blocker the server's own lock tables name, an open read view shows with its age, and a monitor
user without SELECT on performance_schema gets the GRANT, with the rest still working."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any, Callable

import pymysql
import pytest

from mysqltop.config import ConnectionOptions
from mysqltop.core.frame import Frame
from mysqltop.core.blocking import blocking_tree
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.recording.writer import RecordingWriter
from mysqltop.sources.lock_reads import LOCK_WAITS_PS_SQL, plain_rows
from mysqltop.sources.mysql import MySQLSource
from mysqltop.views.headless import json_frame, text_frame
from tests.support.mariadb import TEST_DB, ThrowawayMariaDB
from tests.support.row_waits import start_row_waiter
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live

TABLE = f"{TEST_DB}.lockrow"


def _conn(db: ThrowawayMariaDB) -> Any:
    return pymysql.connect(**db.root_kwargs(), autocommit=True)


@pytest.fixture
def hot_row(mariadb: ThrowawayMariaDB):
    """One session holds row 1 (idle in its transaction), three more wait for it."""
    setup = _conn(mariadb)
    with setup.cursor() as c:
        c.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
        c.execute(f"REPLACE INTO {TABLE} VALUES (1, 0), (2, 0)")
    holder = _conn(mariadb)
    with holder.cursor() as c:
        c.execute("SET SESSION innodb_lock_wait_timeout = 120")
        c.execute("BEGIN")
        c.execute(f"UPDATE {TABLE} SET v = v + 1 WHERE id = 1")
        c.execute("SELECT CONNECTION_ID()")
        holder_id = c.fetchone()[0]
    waiters = [_conn(mariadb) for _ in range(3)]
    threads = [start_row_waiter(w, f"UPDATE {TABLE} SET v = v + 1 WHERE id = 1 /* \x1b[2J\x1b[31m[b]evil[/b] */")
               for w in waiters]
    try:
        yield holder_id, setup
    finally:
        with holder.cursor() as c:
            c.execute("ROLLBACK")
        for t in threads:
            t.join(timeout=60)
        for c_ in (holder, setup, *waiters):
            c_.close()


def _frames(src: MySQLSource) -> Callable[[], Frame]:
    pipe = PolledTimeline()
    return lambda: pipe.push(src.read())


def test_hot_row_blocking_tree_names_the_servers_blocker(mariadb: ThrowawayMariaDB, hot_row) -> None:
    holder_id, setup = hot_row
    src = MySQLSource(mariadb.options(), interval=1.0)
    src.open()
    try:
        push = _frames(src)
        # a KILL line once the holder has held it a pile's threshold (a moment's hold may be a hot
        # row passing along)
        frame = wait_until(lambda: (f := push()).blocking and f.blocking[0].blocked >= 3
                           and (f.blocking[0].trx_age_s or 0) >= 5 and f)
    finally:
        src.close()
    with setup.cursor() as c:        # the server's own answer, independently
        # blockers that are not waiting themselves (later waiters also queue behind earlier ones)
        c.execute("SELECT DISTINCT b.trx_mysql_thread_id FROM information_schema.INNODB_LOCK_WAITS w "
                  "JOIN information_schema.INNODB_TRX b ON b.trx_id = w.blocking_trx_id "
                  "WHERE b.trx_state <> 'LOCK WAIT'")
        server_roots = {r[0] for r in c.fetchall()}
    top = frame.blocking[0]
    print(frame.blocking)
    assert server_roots == {holder_id} and len(frame.blocking) == 1
    assert top.thread_id == holder_id and top.kill == f"KILL {holder_id}"
    assert top.command == "Sleep" and top.user == "root"
    assert top.blocked == 3 and frame.locks.blocked_sessions == 3
    w = top.waiters[0]
    assert w.lock_table == f"`{TEST_DB}`.`lockrow`" and w.lock_index == "PRIMARY" and w.lock_mode == "X"
    assert w.waiting_s is not None and w.waiting_s >= 0 and "evil" in (w.statement or "")
    assert any(s.state == "Updating" or "Updat" in (s.state or "") for s in frame.sessions)
    assert any(g.sessions >= 3 for g in frame.session_states)
    assert not {k: v for k, v in frame.errors.items() if k in ("lock_waits", "transactions", "sessions")}
    text = text_frame(frame)             # snapshot text: the KILL line, hostile text made visible
    print(text)
    assert f"hottest blocker: KILL {holder_id};" in text and "\x1b" not in text and "\\x1b[2J" in text
    assert json.loads(json_frame(frame))["blocking"][0]["kill"] == f"KILL {holder_id}"


def test_mysql8_lock_waits_statement_on_tables_shaped_like_performance_schemas(mariadb: ThrowawayMariaDB,
                                                                              hot_row) -> None:
    """MariaDB has no data_lock_waits/data_locks: copies with MySQL 8.0's columns, filled from the
    server's own lock tables, check the MySQL 8 statement's syntax, joins and column order."""
    holder_id, setup = hot_row
    db = f"{TEST_DB}_ps8"
    with setup.cursor() as c:
        c.execute(f"DROP DATABASE IF EXISTS {db}")
        c.execute(f"CREATE DATABASE {db}")
        c.execute(f"CREATE TABLE {db}.data_locks (ENGINE VARCHAR(32), ENGINE_LOCK_ID VARCHAR(128), "
                  "ENGINE_TRANSACTION_ID BIGINT UNSIGNED, THREAD_ID BIGINT UNSIGNED, EVENT_ID BIGINT UNSIGNED, "
                  "OBJECT_SCHEMA VARCHAR(64), OBJECT_NAME VARCHAR(64), PARTITION_NAME VARCHAR(64), "
                  "SUBPARTITION_NAME VARCHAR(64), INDEX_NAME VARCHAR(64), OBJECT_INSTANCE_BEGIN BIGINT UNSIGNED, "
                  "LOCK_TYPE VARCHAR(32), LOCK_MODE VARCHAR(32), LOCK_STATUS VARCHAR(32), LOCK_DATA VARCHAR(8192))")
        c.execute(f"CREATE TABLE {db}.data_lock_waits (ENGINE VARCHAR(32), REQUESTING_ENGINE_LOCK_ID VARCHAR(128), "
                  "REQUESTING_ENGINE_TRANSACTION_ID BIGINT UNSIGNED, REQUESTING_THREAD_ID BIGINT UNSIGNED, "
                  "REQUESTING_EVENT_ID BIGINT UNSIGNED, REQUESTING_OBJECT_INSTANCE_BEGIN BIGINT UNSIGNED, "
                  "BLOCKING_ENGINE_LOCK_ID VARCHAR(128), BLOCKING_ENGINE_TRANSACTION_ID BIGINT UNSIGNED, "
                  "BLOCKING_THREAD_ID BIGINT UNSIGNED, BLOCKING_EVENT_ID BIGINT UNSIGNED, "
                  "BLOCKING_OBJECT_INSTANCE_BEGIN BIGINT UNSIGNED)")
        wait_until(lambda: c.execute("SELECT 1 FROM information_schema.INNODB_LOCK_WAITS") >= 3)
        c.execute(f"INSERT INTO {db}.data_locks (ENGINE, ENGINE_LOCK_ID, ENGINE_TRANSACTION_ID, OBJECT_SCHEMA, "
                  "OBJECT_NAME, INDEX_NAME, LOCK_TYPE, LOCK_MODE, LOCK_STATUS) "
                  "SELECT 'INNODB', lock_id, lock_trx_id, SUBSTRING_INDEX(REPLACE(lock_table, '`', ''), '.', 1), "
                  "SUBSTRING_INDEX(REPLACE(lock_table, '`', ''), '.', -1), lock_index, lock_type, lock_mode, 'WAITING' "
                  "FROM information_schema.INNODB_LOCKS")
        c.execute(f"INSERT INTO {db}.data_lock_waits (ENGINE, REQUESTING_ENGINE_LOCK_ID, "
                  "REQUESTING_ENGINE_TRANSACTION_ID, BLOCKING_ENGINE_LOCK_ID, BLOCKING_ENGINE_TRANSACTION_ID) "
                  "SELECT 'INNODB', requested_lock_id, requesting_trx_id, blocking_lock_id, blocking_trx_id "
                  "FROM information_schema.INNODB_LOCK_WAITS")
        c.execute(LOCK_WAITS_PS_SQL.replace("performance_schema.data_", f"{db}.data_"))
        rows = plain_rows(c.fetchall())
        c.execute(f"DROP DATABASE {db}")
    tree = blocking_tree(rows)
    assert tree and tree[0].thread_id == holder_id and tree[0].blocked == 3
    w = tree[0].waiters[0]
    assert (w.lock_table, w.lock_index, w.lock_mode, w.lock_type) == \
        (f"`{TEST_DB}`.`lockrow`", "PRIMARY", "X", "RECORD")


def test_recorded_hot_row_reaches_replay_and_report(mariadb: ThrowawayMariaDB, hot_row, tmp_path) -> None:
    holder_id, _ = hot_row
    path = tmp_path / "hot.mtrec"
    src = MySQLSource(mariadb.options(), interval=1.0)
    src.open()
    writer = RecordingWriter(path, interval=1.0)
    edges: list[int] = []
    try:
        def recorded() -> bool:
            raw = src.read()
            writer.append(raw)
            edges.append(len(raw.lock_waits or []))
            return bool(raw.lock_waits) and _blocked(raw) >= 3
        wait_until(recorded)
        # one edge per waiter: the queue's waiter-behind-waiter edges (3 more here, n² for n) are left out
        assert edges[-1] == 3
        time.sleep(1.1)                      # a second sample after it: the report needs rates
        writer.append(src.read())
    finally:
        writer.close()
        src.close()
    out = subprocess.run([sys.executable, "-m", "mysqltop", "report", str(path)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "LONGEST BLOCKING CHAINS" in out.stdout and f"KILL {holder_id};" in out.stdout
    assert f"thread {holder_id} root@" in out.stdout and "blocked 3 at once" in out.stdout
    assert "LONGEST TRANSACTIONS" in out.stdout and "\x1b" not in out.stdout
    js = subprocess.run([sys.executable, "-m", "mysqltop", "report", "--format", "json", str(path)],
                        capture_output=True, text=True, timeout=120)
    assert json.loads(js.stdout)["blocking_chains"][0]["thread_id"] == holder_id


def _blocked(raw: Any) -> int:
    return sum(b.blocked for b in blocking_tree(raw.lock_waits))


def test_open_read_view_shows_with_its_age(mariadb: ThrowawayMariaDB) -> None:
    reader = _conn(mariadb)
    with reader.cursor() as c:
        c.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
        c.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
        c.execute(f"SELECT COUNT(*) FROM {TABLE}")
        c.execute("SELECT CONNECTION_ID()")
        reader_id = c.fetchone()[0]
    opened = time.monotonic()
    src = MySQLSource(mariadb.options(), interval=1.0)
    src.open()
    try:
        push = _frames(src)

        def aged() -> Any:
            f = push()
            t = next((t for t in f.transactions if t.thread_id == reader_id), None)
            return t is not None and (t.age_s or 0) >= 2 and (f, t)
        frame, trx = wait_until(aged)
    finally:
        src.close()
        reader.close()
    assert trx.age_s <= time.monotonic() - opened + 1.5
    assert trx.read_view is True and trx.command == "Sleep" and trx.rows_modified == 0
    assert frame.locks.longest_transaction_s is not None and frame.locks.longest_transaction_s >= trx.age_s


def test_process_without_performance_schema_names_the_grant(mariadb: ThrowawayMariaDB) -> None:
    other = _conn(mariadb)           # a session for the process list to show
    with other.cursor() as c:
        c.execute("CREATE USER IF NOT EXISTS 'proconly'@'%' IDENTIFIED BY 'proconly-pw'")
        c.execute("CREATE USER IF NOT EXISTS 'proconly'@'localhost' IDENTIFIED BY 'proconly-pw'")
        c.execute("GRANT PROCESS ON *.* TO 'proconly'@'%'")
        c.execute("GRANT PROCESS ON *.* TO 'proconly'@'localhost'")
    opts = ConnectionOptions(host="127.0.0.1", port=mariadb.port, user="proconly", password="proconly-pw")
    src = MySQLSource(opts, interval=1.0)
    src.open()
    try:
        push = _frames(src)
        push()
        frame = push()
    finally:
        src.close()
        other.close()
    note = next(n for n in frame.notes if "performance_schema" in n)
    assert "GRANT SELECT ON performance_schema.* TO 'proconly'@" in note
    assert "performance_schema=ON" not in note
    assert frame.throughput.tps is not None              # the rest still works
    assert frame.session_states                           # sessions fall back to the process list
    assert not {k for k in frame.errors if k in ("lock_waits", "transactions", "sessions", "session_states")}
