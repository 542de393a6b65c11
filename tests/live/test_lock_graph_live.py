"""One wait-for graph across lock kinds, on throwaway MariaDBs with real sessions: chains that cross
kinds, with MariaDB's metadata_lock_info plugin, with the performance_schema metadata-lock
instrument, and with neither. Each chain has a decoy: an idle session holding an unrelated
metadata lock (an open transaction that read another table). The KILL offered anywhere — the
stall finding, `k`, the snapshot text, JSON, OpenMetrics, the report — is exactly the session at
the end of the chain; with neither source the pile's own holder is never offered."""

from __future__ import annotations

import json
import re
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator

import pymysql
import pytest

from mysqltop.core.frame import Frame
from mysqltop.core.report_builder import build_report
from mysqltop.core.stalls import Certainty
from mysqltop.sources.mysql import MySQLSource
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.views.headless import json_frame, openmetrics_frame, text_frame
from mysqltop.views.locks_text import kill_line
from mysqltop.views.report_text import render
from tests.support.mariadb import TEST_DB, ThrowawayMariaDB
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live

PLUGIN = "--plugin-load-add=metadata_lock_info"
MDL_ON = "--performance-schema-instrument=wait/lock/metadata/sql/mdl=ON"
KILL_ID = re.compile(r"KILL (\d+)")
SOURCES = ("plugin", "instrument", "neither")


@pytest.fixture(scope="module", params=SOURCES)
def server(request: pytest.FixtureRequest) -> Iterator[tuple[str, ThrowawayMariaDB]]:
    args = {"plugin": [PLUGIN], "instrument": [MDL_ON], "neither": []}[request.param]
    with ThrowawayMariaDB(name=f"graph{request.param[:3]}", extra_args=args) as db:
        conn = pymysql.connect(**db.root_kwargs(), autocommit=True)
        with conn.cursor() as c:
            for t in ("t", "t2", "t3", "decoy"):
                c.execute(f"CREATE TABLE IF NOT EXISTS {TEST_DB}.{t} (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
                c.execute(f"REPLACE INTO {TEST_DB}.{t} VALUES (1, 0), (2, 0)")
        conn.close()
        yield request.param, db


@dataclass
class Sessions:
    db: ThrowawayMariaDB
    conns: list[Any] = field(default_factory=list)
    threads: list[threading.Thread] = field(default_factory=list)

    def open(self) -> tuple[Any, int]:
        c = pymysql.connect(**self.db.root_kwargs(), autocommit=True, connect_timeout=10, read_timeout=300)
        self.conns.append(c)
        with c.cursor() as cur:
            cur.execute("SELECT CONNECTION_ID()")
            return c, int(cur.fetchone()[0])

    def run(self, conn: Any, *sql: str) -> None:
        with conn.cursor() as cur:
            for s in sql:
                cur.execute(s)
                cur.fetchall()

    def background(self, conn: Any, sql: str) -> None:
        def go() -> None:
            try:
                self.run(conn, sql)
            except Exception:  # noqa: BLE001 - ended by the test's teardown
                pass
        t = threading.Thread(target=go, daemon=True)
        t.start()
        self.threads.append(t)

    def state_of(self, tid: int) -> str:
        rows = self.db.query(f"SELECT STATE FROM information_schema.PROCESSLIST WHERE ID = {tid}")
        return str(rows[0][0]) if rows else ""

    def wait_state(self, tid: int, words: str) -> None:
        wait_until(lambda: words in self.state_of(tid), timeout=30)

    def close(self) -> None:
        for c in self.conns:
            try:
                self.db.query(f"KILL {c.thread_id()}")
            except Exception:  # noqa: BLE001 - already gone
                pass
        for c in self.conns:
            try:
                c.close()
            except Exception:  # noqa: BLE001
                pass
        for t in self.threads:
            t.join(timeout=10)


@contextmanager
def sessions(db: ThrowawayMariaDB) -> Iterator[Sessions]:
    s = Sessions(db)
    try:
        decoy, _ = s.open()          # the DBA's idle snapshot: a metadata lock on another table
        s.run(decoy, "BEGIN", f"SELECT * FROM {TEST_DB}.decoy")
        yield s
    finally:
        s.close()


def _frames(db: ThrowawayMariaDB, n: int = 4) -> list[Frame]:
    src = MySQLSource(db.options(), interval=1.0)
    src.open()
    pipe = PolledTimeline()
    try:
        out = []
        for _ in range(n):
            out.append(pipe.push(src.read()))
            time.sleep(0.3)
        return out
    finally:
        src.close()


def _kills(frames: list[Frame]) -> dict[str, set[int]]:
    """Every KILL id each surface offers."""
    last = frames[-1]
    report = build_report(frames)
    om = openmetrics_frame(last)
    roots = {int(m) for m in re.findall(r'blocking_root_waiters\{[^}]*session="(\d+)"', om)}
    js = json.loads(json_frame(last))
    return {
        "finding": {int(x) for a in last.advice if a.id.startswith("stall_") for x in KILL_ID.findall(a.message)},
        "k": {int(x) for x in KILL_ID.findall(kill_line(last) or "")},
        "text": {int(x) for x in KILL_ID.findall(text_frame(last))},
        "json": {int(x) for x in KILL_ID.findall(json.dumps([js.get("stalls"), js.get("blocking"),
                                                              js.get("metadata_blocking")]))},
        "openmetrics": roots,
        "report": {int(x) for x in KILL_ID.findall(render(report, "text"))},
    }


def _settle(db: ThrowawayMariaDB, ready: Any) -> list[Frame]:
    """Frames once the pile is a stall (waits ≥ 5 s) and `ready` holds on the newest."""
    def get() -> list[Frame] | None:
        fs = _frames(db)
        return fs if ready(fs[-1]) else None
    return wait_until(get, timeout=60, step=0.5)


def _pile_ready(f: Frame) -> bool:
    return any(s.is_stall for s in f.stalls) and any(a.id.startswith("stall_") for a in f.advice)


def test_metadata_lock_pile_whose_holder_waits_on_a_user_lock(server: tuple[str, ThrowawayMariaDB]) -> None:
    """ALTER + writers wait on t, held by 93 (a transaction that read t), which waits on user lock
    'x' held by 94, idle: the KILL is 94's."""
    source, db = server
    with sessions(db) as s:
        root, root_id = s.open()
        s.run(root, "SELECT GET_LOCK('x', 0)")
        mid, mid_id = s.open()
        s.run(mid, "BEGIN", f"SELECT * FROM {TEST_DB}.t")
        s.background(mid, "SELECT GET_LOCK('x', 300)")
        s.wait_state(mid_id, "lock")
        alter, alter_id = s.open()
        s.background(alter, f"ALTER TABLE {TEST_DB}.t ADD COLUMN z INT")
        s.wait_state(alter_id, "metadata lock")
        writers = []
        for _ in range(3):
            w, wid = s.open()
            writers.append(wid)
            s.background(w, f"UPDATE {TEST_DB}.t SET v = v + 1 WHERE id = 1")
        for wid in writers:
            s.wait_state(wid, "metadata lock")
        other = MySQLSource(db.options(), interval=1.0)        # another mysqltop watching the same server
        other.open()
        try:
            other.read()
            frames = _settle(db, _pile_ready)
            monitors = {int(r[0]) for r in db.query(
                "SELECT PROCESSLIST_ID FROM performance_schema.session_connect_attrs "
                "WHERE ATTR_NAME = 'program_name' AND ATTR_VALUE = 'mysqltop'")}
        finally:
            other.close()
        last = frames[-1]
        kills = _kills(frames)
        assert monitors and not monitors & {c.thread_id for x in last.stalls for c in x.candidates}
        if source == "neither":
            assert not any(kills.values()), kills
            assert last.stalls[0].certainty is Certainty.INFERRED
        else:
            for surface, ids in kills.items():
                assert ids == {root_id}, (surface, kills)
            st = next(x for x in last.stalls if x.root is not None)
            assert st.root.thread_id == root_id and st.waiting >= 5
            msg = next(a.message for a in last.advice if a.id.startswith("stall_"))
            assert f"user lock 'x' held by {root_id}" in msg and f"held by {mid_id}" in msg, msg
        assert last.locks.blocked_sessions is not None and last.locks.blocked_sessions >= 5


def test_user_lock_pile_whose_holder_waits_on_a_row_lock(server: tuple[str, ThrowawayMariaDB]) -> None:
    source, db = server
    with sessions(db) as s:
        root, root_id = s.open()
        s.run(root, "BEGIN", f"UPDATE {TEST_DB}.t2 SET v = v + 1 WHERE id = 1")
        mid, mid_id = s.open()
        s.run(mid, "SELECT GET_LOCK('y', 0)")
        s.background(mid, f"UPDATE {TEST_DB}.t2 SET v = v + 1 WHERE id = 1")
        waiters = []
        for _ in range(3):
            w, wid = s.open()
            waiters.append(wid)
            s.background(w, "SELECT GET_LOCK('y', 300)")
        for wid in waiters:
            s.wait_state(wid, "lock")
        frames = _settle(db, _pile_ready)
        last = frames[-1]
        kills = _kills(frames)
        pile = next(x for x in last.stalls if x.kind == "user_lock" or x.waiting >= 3)
        if source == "neither":
            # the user-lock pile's holder is not listed: no KILL for it; only the row wait the
            # server's lock rows confirm may be offered, and that is the end of the chain
            assert pile.root is None
            assert all(ids <= {root_id} for ids in kills.values()), kills
            assert mid_id not in set().union(*kills.values())
        else:
            for surface, ids in kills.items():
                assert ids == {root_id}, (surface, kills)
            assert pile.root is not None and pile.root.thread_id == root_id and pile.waiting == 4


def test_row_lock_pile_whose_holder_waits_on_a_metadata_lock(server: tuple[str, ThrowawayMariaDB]) -> None:
    source, db = server
    with sessions(db) as s:
        root, root_id = s.open()
        s.run(root, f"LOCK TABLES {TEST_DB}.t3 WRITE")
        mid, mid_id = s.open()
        s.run(mid, "BEGIN", f"UPDATE {TEST_DB}.t SET v = v + 1 WHERE id = 2")
        s.background(mid, f"SELECT * FROM {TEST_DB}.t3")
        s.wait_state(mid_id, "metadata lock")
        waiters = []
        for _ in range(3):
            w, wid = s.open()
            waiters.append(wid)
            s.background(w, f"UPDATE {TEST_DB}.t SET v = v + 1 WHERE id = 2")
        wait_until(lambda: len(db.query("SELECT * FROM information_schema.INNODB_LOCK_WAITS")) >= 3, timeout=30)
        frames = _settle(db, _pile_ready)
        last = frames[-1]
        kills = _kills(frames)
        if source == "neither":
            assert not any(kills.values()), kills
        else:
            for surface, ids in kills.items():
                assert ids == {root_id}, (surface, kills)
            st = next(x for x in last.stalls if x.root is not None)
            assert st.kind == "row_lock" and st.root.thread_id == root_id and st.waiting == 4
        assert mid_id not in set().union(*kills.values())


def test_a_cycle_across_lock_kinds_is_reported_as_a_cycle(server: tuple[str, ThrowawayMariaDB]) -> None:
    """A (idle, row lock on t3 and a metadata lock on t) ← ALTER t ← writer W of t, which holds a
    row A asks for: no server detector breaks it; innodb_lock_wait_timeout ends A's wait."""
    source, db = server
    with sessions(db) as s:
        a, a_id = s.open()
        s.run(a, "BEGIN", f"UPDATE {TEST_DB}.t SET v = v + 1 WHERE id = 1")
        alter, alter_id = s.open()
        s.background(alter, f"ALTER TABLE {TEST_DB}.t ADD COLUMN c{int(time.time())} INT")
        s.wait_state(alter_id, "metadata lock")
        w, w_id = s.open()
        s.run(w, "BEGIN", f"UPDATE {TEST_DB}.t3 SET v = v + 1 WHERE id = 2")
        s.background(w, f"UPDATE {TEST_DB}.t SET v = v + 1 WHERE id = 2")
        s.wait_state(w_id, "metadata lock")
        s.background(a, f"UPDATE {TEST_DB}.t3 SET v = v + 1 WHERE id = 2")
        started = time.monotonic()

        def cycle(f: Frame) -> bool:
            return any(x.certainty is Certainty.CYCLE for x in f.stalls)
        if source == "neither":
            fs = _frames(db, 3)
            assert not any(cycle(f) for f in fs)
            assert not any(_kills(fs).values())
            return
        def seen() -> Frame | None:
            f = _frames(db, 1)[-1]
            return f if cycle(f) else None
        f = wait_until(seen, timeout=20, step=0.2)
        assert time.monotonic() - started < 10
        st = next(x for x in f.stalls if x.certainty is Certainty.CYCLE)
        assert set(st.cycle) == {a_id, alter_id, w_id} and st.root is None
        assert not KILL_ID.search(kill_line(f) or "")


@pytest.fixture(scope="module")
def plugin_db() -> Iterator[ThrowawayMariaDB]:
    with ThrowawayMariaDB(name="graphcopy", extra_args=[PLUGIN]) as db:
        db.query(f"CREATE TABLE IF NOT EXISTS {TEST_DB}.decoy (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
        yield db


def test_a_copying_alter_is_named_in_every_sample_the_plugin_lists_it(plugin_db: ThrowawayMariaDB) -> None:
    """ALGORITHM=COPY on a table whose copy outlasts the test, writers queued: in every poll where
    METADATA_LOCK_INFO, read alongside, lists the ALTER's lock on the table, the stall's root is the
    ALTER and the finding says so (no flip to "no single session to kill")."""
    db = plugin_db
    table = f"{TEST_DB}.copying"
    db.query(f"CREATE TABLE IF NOT EXISTS {table} (id INT PRIMARY KEY, v INT, p VARCHAR(200)) ENGINE=InnoDB")
    db.query(f"INSERT IGNORE INTO {table} SELECT seq, 0, REPEAT('x', 150) FROM {TEST_DB}.seq_1_to_50000")
    with sessions(db) as s:
        alter, alter_id = s.open()
        s.background(alter, f"ALTER TABLE {table} ADD COLUMN h CHAR(128) AS (SHA2(REPEAT(p, 10000), 512)) "
                            "PERSISTENT, ALGORITHM=COPY")
        s.wait_state(alter_id, "copy to tmp table")
        for _ in range(4):
            w, wid = s.open()
            s.background(w, f"UPDATE {table} SET v = v + 1 WHERE id = 7")
            s.wait_state(wid, "metadata lock")
        src = MySQLSource(db.options(), interval=1.0)
        src.open()
        pipe = PolledTimeline()
        listed = named = 0
        try:
            for _ in range(16):
                f = pipe.push(src.read())
                lists = bool(db.query(f"SELECT 1 FROM information_schema.METADATA_LOCK_INFO WHERE THREAD_ID = "
                                      f"{alter_id} AND TABLE_NAME = 'copying'"))
                if not lists:
                    continue
                listed += 1
                st = f.stalls[0] if f.stalls else None
                if st is not None and st.root is not None and st.root.thread_id == alter_id:
                    named += 1
                time.sleep(0.3)
        finally:
            src.close()
        assert listed >= 12 and named == listed, (named, listed)
        assert f.advice and f"KILL {alter_id}" in f.advice[0].message and f.advice[0].id == "stall_running_ddl"


def test_a_hot_row_with_rotating_holders_is_never_a_kill(plugin_db: ThrowawayMariaDB) -> None:
    """Writers take one row in turn, each holding it a moment (idle in between statements): no
    frame offers a KILL (`k`, the finding), nor does the report's longest blocking chains."""
    db = plugin_db
    db.query(f"CREATE TABLE IF NOT EXISTS {TEST_DB}.hot (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
    db.query(f"REPLACE INTO {TEST_DB}.hot VALUES (1, 0)")
    stop = threading.Event()

    def worker() -> None:
        conn = pymysql.connect(**db.root_kwargs(), autocommit=True, connect_timeout=10)
        try:
            with conn.cursor() as c:
                while not stop.is_set():
                    c.execute("BEGIN")
                    c.execute(f"UPDATE {TEST_DB}.hot SET v = v + 1 WHERE id = 1")
                    time.sleep(0.4)                       # idle in its transaction, a moment
                    c.execute("COMMIT")
        except pymysql.MySQLError:
            pass
        finally:
            conn.close()
    workers = [threading.Thread(target=worker, daemon=True) for _ in range(8)]
    for t in workers:
        t.start()
    src = MySQLSource(db.options(), interval=1.0)
    src.open()
    pipe = PolledTimeline()
    frames: list[Frame] = []
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            frames.append(pipe.push(src.read()))
            time.sleep(0.3)
    finally:
        src.close()
        stop.set()
        for t in workers:
            t.join(timeout=30)
    assert any(f.blocking for f in frames), "no row was ever waited for"
    assert all(kill_line(f) is None for f in frames), [kill_line(f) for f in frames]
    assert not any(KILL_ID.search(a.message) for f in frames for a in f.advice)
    text = render(build_report(frames), "text")
    chains = text.split("Longest blocking chains", 1)[-1].split("\n\n", 1)[0]
    assert not KILL_ID.search(chains), chains
