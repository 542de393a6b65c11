"""Row-lock roots on a throwaway MariaDB, with real sessions: a flood of wait pairs that the
lock-wait read cannot hold, and a root elsewhere that must still be named with its waiters."""

from __future__ import annotations

import json
import re
from typing import Any

import pymysql
import pytest

from mysqltop.core.advice import advise
from mysqltop.core.frame import Frame
from mysqltop.core.lock_report import LockWindow
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.core.rules.rule_kit import Window
from mysqltop.core.rules.load import hottest_row
from mysqltop.sources.lock_reads import ROWS_READ
from mysqltop.sources.mysql import MySQLSource
from mysqltop.views.headless import json_frame, text_frame
from mysqltop.views.locks_text import kill_line
from tests.support.load import LoadGenerator, LoadSpec
from tests.support.mariadb import TEST_DB, ThrowawayMariaDB
from tests.support.row_waits import start_row_waiter
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live

FLOOD, REAL = f"{TEST_DB}.flood_row", f"{TEST_DB}.real_row"
SHARED, FLOOD_WAITERS, REAL_WAITERS = 35, 60, 3      # about a hundred connections


def _conn(db: ThrowawayMariaDB) -> Any:
    return pymysql.connect(**db.root_kwargs(), autocommit=True, connect_timeout=20)


def _id(conn: Any) -> int:
    with conn.cursor() as c:
        c.execute("SELECT CONNECTION_ID()")
        return int(c.fetchone()[0])


def test_a_flood_of_wait_pairs_does_not_hide_the_real_root(mariadb: ThrowawayMariaDB) -> None:
    setup = _conn(mariadb)
    with setup.cursor() as c:
        for t in (FLOOD, REAL):
            c.execute(f"CREATE TABLE IF NOT EXISTS {t} (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
            c.execute(f"REPLACE INTO {t} VALUES (1, 0)")
    conns: list[Any] = [setup]          # the holders: closing one ends its transaction
    waiters: list[Any] = []
    threads = []
    try:
        real = _conn(mariadb)
        conns.append(real)
        real_id = _id(real)
        with real.cursor() as c:                 # the real root: idle in its transaction
            c.execute("BEGIN")
            c.execute(f"UPDATE {REAL} SET v = v + 1 WHERE id = 1")
        for _ in range(REAL_WAITERS):
            waiters.append(w := _conn(mariadb))
            threads.append(start_row_waiter(w, f"UPDATE {REAL} SET v = v + 1 WHERE id = 1"))
        shared = []
        for _ in range(SHARED):                  # the application's flood: a row held in share mode…
            conns.append(h := _conn(mariadb))
            shared.append(_id(h))
            with h.cursor() as c:
                c.execute("BEGIN")
                c.execute(f"SELECT v FROM {FLOOD} WHERE id = 1 LOCK IN SHARE MODE")
        for _ in range(FLOOD_WAITERS):           # … and sessions queued for it
            waiters.append(w := _conn(mariadb))
            threads.append(start_row_waiter(w, f"UPDATE {FLOOD} SET v = v + 1 WHERE id = 1"))

        def pairs() -> int:
            with setup.cursor() as c:
                c.execute("SELECT COUNT(*) FROM information_schema.INNODB_LOCK_WAITS")
                return int(c.fetchone()[0])
        wait_until(lambda: pairs() > ROWS_READ, timeout=60)     # more than one read can hold

        src = MySQLSource(mariadb.options(), interval=1.0)
        src.open()
        pipe = PolledTimeline()
        frames: list[Frame] = []
        try:
            def stalled() -> Frame | None:
                frames.append(f := pipe.push(src.read()))
                piles = [b for b in f.blocking if b.thread_id == real_id or b.candidates]
                # two frames at least: the first has no rates, and the findings judge frames with them
                stuck = len(piles) == 2 and all((b.longest_wait_s or 0) >= 6 for b in piles)
                return f if stuck and len(frames) >= 2 else None
            frame = wait_until(stalled, timeout=90)
        finally:
            src.close()
        assert pairs() > ROWS_READ
        root = next(b for b in frame.blocking if b.thread_id == real_id)
        assert root.blocked == REAL_WAITERS and root.kill == f"KILL {real_id}" and root.command == "Sleep"
        assert (root.hot_table, root.hot_index, root.hot_key, root.hot_holders) == (
            f"`{TEST_DB}`.`real_row`", "PRIMARY", "1", 1)
        # MariaDB lists every read-only transaction as trx 0: the shared row's holders are
        # candidates, never one session to KILL
        flood = [b for b in frame.blocking if b.thread_id != real_id]
        assert len(flood) == 1 and flood[0].thread_id is None and flood[0].kill is None
        assert set(flood[0].candidates) == set(shared) and flood[0].blocked == FLOOD_WAITERS
        assert flood[0].hot_key == "1" and flood[0].hot_table == f"`{TEST_DB}`.`flood_row`"
        assert frame.locks.blocked_sessions == FLOOD_WAITERS + REAL_WAITERS
        # every surface that offers a KILL offers the real root's
        assert kill_line(frame) == f"KILL {real_id};"
        text = text_frame(frame)
        assert f"release first: KILL {real_id};" in text
        assert f"held by {SHARED} at once (no single KILL)" in text and "one of threads" in text
        assert [b["kill"] for b in json.loads(json_frame(frame))["blocking"] if b["kill"]] == [
            f"KILL {real_id}"]
        stall = [a for a in advise(frames, {}, min_span_s=None) if a.id == "stall_row_lock"]
        assert stall, [a.id for a in advise(frames, {}, min_span_s=None)]
        msg = stall[0].message
        assert msg.startswith(f"Stall: {FLOOD_WAITERS} sessions waiting on a row lock on `{TEST_DB}`.`flood_row` PRIMARY key 1")
        assert f"held in share mode by read-only transactions (the server does not say which: {SHARED} candidates" in msg
        assert "no single KILL releases it" in msg
        assert f"blocks {REAL_WAITERS} on a row lock on `{TEST_DB}`.`real_row` PRIMARY key 1 — KILL {real_id}" in msg
        assert re.findall(r"KILL \d+", msg) == [f"KILL {real_id}"]
    finally:
        for c_ in conns:
            c_.close()        # the server ends each transaction; the waiters then get the rows
        for t in threads:
            t.join(timeout=60)
        for c_ in waiters:
            c_.close()


def test_a_hot_row_is_named_and_its_passing_holders_are_no_kill_targets(mariadb: ThrowawayMariaDB) -> None:
    """24 sessions update one counter row, each in a short transaction (no idle holder): the
    finding names the row (table, index, key) and the report lists no holder as a KILL target."""
    table = "hot_counter"
    gen = LoadGenerator(mariadb.root_kwargs(), LoadSpec(mode="hot", threads=24, duration=120, rows=10, table=table))
    gen.prepare()
    src = MySQLSource(mariadb.options(), interval=1.0)
    pipe = PolledTimeline()
    frames: list[Frame] = []
    variables: dict[str, str] = {}
    try:
        with gen:
            src.open()

            def named() -> bool:
                raw = src.read()
                variables.update(raw.variables or {})
                frames.append(pipe.push(raw))
                listed = [f for f in frames if any(b.hot_key for b in f.blocking)]
                return len(frames) >= 12 and len(listed) >= 5
            wait_until(named, timeout=120, step=1.0)
    finally:
        src.close()
    row = f"`{TEST_DB}`.`{table}` PRIMARY key 1"
    found = [a for a in advise(frames, variables, min_span_s=None) if a.id == "row_lock_waits"]
    assert found, [a.id for a in advise(frames, variables, min_span_s=None)]
    assert f"the row most waited on: {row} (up to " in found[0].message
    hottest = hottest_row(Window.of(frames, None))
    assert hottest is not None and hottest[0] == row and hottest[1] >= 2
    # the holders rotate: over the window, the report's chains name the row, never a KILL of a holder
    window = LockWindow()
    for f in frames:
        window.add(f)
    chains = window.longest_chains()
    on_row = [c for c in chains if c.hot_row == row]
    assert on_row and all(c.kill is None for c in on_row)
    assert any(c.holders > 1 for c in on_row)
