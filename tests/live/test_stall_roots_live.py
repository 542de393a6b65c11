"""A KILL line only for a root the server's rows confirm, on throwaway MariaDBs with real sessions.

An application holds each lock kind (an open transaction's metadata lock, LOCK TABLES … WRITE,
GET_LOCK, FLUSH TABLES WITH READ LOCK) while a DBA's session sits idle nearby — for the metadata
locks an older idle transaction that read another table (a decoy the timing would pick). With the
metadata-lock instrument off and no plugin (MariaDB's default), nothing names the holder: no KILL
anywhere, and the real holder and the DBA's session are both among the candidates. With the
instrument on, the exact KILL. Turned on at runtime during a stall (the `m` key's statement), the
exact holder replaces the candidates within two polls. A row-lock stall whose waiters time out
and retry stays one stall."""

from __future__ import annotations

import json
import re
import threading
import time
from typing import Any, Iterator

import pymysql
import pytest

from mysqltop.core.frame import Frame
from mysqltop.timeline.polled import PolledTimeline, live_timeline
from mysqltop.core.stalls import Certainty, Stall
from mysqltop.sources.mysql import MySQLSource
from mysqltop.views.headless import json_frame, text_frame
from mysqltop.views.locks_text import kill_line, release_first
from tests.support.mariadb import ThrowawayMariaDB
from tests.support.stalls import DB, FINDING, inject
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live

KINDS = ("metadata_lock", "table_lock", "user_lock", "global_read_lock")
MDL_ON = "--performance-schema-instrument=wait/lock/metadata/sql/mdl=ON"
KILL_ANY = re.compile(r"KILL \d")
INTERVAL = 0.5


@pytest.fixture(scope="module")
def off_db() -> Iterator[ThrowawayMariaDB]:
    """MariaDB's default: the metadata-lock instrument off, no plugin. Its own server: the shared
    one may have had them turned on by --enable-instruments tests, which lasts until a restart."""
    with ThrowawayMariaDB(name="mdloff") as db:
        yield db


@pytest.fixture(scope="module")
def mdl_db() -> Iterator[ThrowawayMariaDB]:
    with ThrowawayMariaDB(name="mdlon", extra_args=[MDL_ON]) as db:
        yield db


class Dba:
    """The DBA's own session, idle nearby: with an older open transaction on another table (the
    decoy), or idle outside one (beside a backup's FTWRL, which an open table would hold up)."""

    def __init__(self, db: ThrowawayMariaDB, in_transaction: bool) -> None:
        self.conn = pymysql.connect(**db.root_kwargs(), autocommit=True, connect_timeout=10)
        with self.conn.cursor() as c:
            c.execute("SELECT CONNECTION_ID()")
            self.id = int(c.fetchone()[0])
            c.execute(f"CREATE DATABASE IF NOT EXISTS {DB}")
            c.execute(f"CREATE TABLE IF NOT EXISTS {DB}.dba_notes (id INT PRIMARY KEY) ENGINE=InnoDB")
            if in_transaction:
                c.execute("BEGIN")
                c.execute(f"SELECT * FROM {DB}.dba_notes")
            else:
                c.execute("SELECT 1")
            c.fetchall()

    def close(self) -> None:
        try:
            self.conn.close()
        except Exception:  # noqa: BLE001 - a session the server may have ended
            pass


class Monitor:
    def __init__(self, db: ThrowawayMariaDB, user: str | None = None) -> None:
        self.src = MySQLSource(db.options(user) if user else db.options(), interval=1.0)
        self.src.open()
        self.pipe = PolledTimeline()
        self._last = time.monotonic()

    def frame(self) -> Frame:
        return self.pipe.push(self.src.read())

    def paced(self) -> Frame:
        """A poll on the engine's grid: the frames a rule judges stand INTERVAL apart, as live."""
        due = self._last + INTERVAL
        if (left := due - time.monotonic()) > 0:
            time.sleep(left)
        self._last = time.monotonic()
        return self.frame()

    def until(self, cond: Any, timeout: float = 90.0, paced: bool = False) -> Frame:
        def check() -> Frame | None:
            f = self.paced() if paced else self.frame()
            return f if cond(f) else None
        return wait_until(check, timeout=timeout, step=0.0 if paced else 0.3)

    def close(self) -> None:
        self.src.close()


def _leading(f: Frame, finding: str) -> Stall | None:
    if not f.advice or f.advice[0].id != finding:
        return None
    return next((s for s in f.stalls if f"stall_{s.kind}" == finding), None)


def _off_finding(kind: str) -> str:
    # with no lock list, a LOCK TABLES holder's waiters read as a metadata-lock pile
    return "stall_metadata_lock" if kind == "table_lock" else FINDING[kind]


@pytest.mark.parametrize("kind", KINDS)
def test_instrument_off_offers_no_kill_and_lists_the_holder_among_the_candidates(
        off_db: ThrowawayMariaDB, kind: str) -> None:
    dba = Dba(off_db, in_transaction=kind != "global_read_lock")
    mon = Monitor(off_db)
    try:
        mon.frame()
        time.sleep(1.0)       # the DBA's transaction is older than the application's lock by a second at least
        with inject(off_db.root_kwargs(), kind, waiters=6) as s:
            finding = _off_finding(kind)
            f = mon.until(lambda x: _leading(x, finding) is not None and bool(_leading(x, finding).candidates))
            st = _leading(f, finding)
            assert st is not None and st.root is None and st.certainty is Certainty.INFERRED
            ids = [c.thread_id for c in st.candidates]
            assert s.holder_id in ids and dba.id in ids and not set(ids) & set(s.waiter_ids())
            assert all(c.kill is None for c in st.candidates)
            a = f.advice[0]
            assert not KILL_ANY.search(a.message) and "inferred" in a.message
            assert kill_line(f) is None and "holder inferred" in (release_first(f) or "")
            text = text_frame(f)
            assert not KILL_ANY.search(text.split("LOCK WAITS")[0]) and "holder inferred" in text
            d = json.loads(json_frame(f))
            sd = next(x for x in d["stalls"] if f"stall_{x['kind']}" == finding)
            assert sd["certainty"] == "inferred" and sd["root"] is None
            assert s.holder_id in [c["thread_id"] for c in sd["candidates"]]
    finally:
        mon.close()
        dba.close()


@pytest.mark.parametrize("kind", KINDS)
def test_instrument_on_names_the_exact_holder_not_the_dba(mdl_db: ThrowawayMariaDB, kind: str) -> None:
    dba = Dba(mdl_db, in_transaction=kind != "global_read_lock")
    mon = Monitor(mdl_db)
    try:
        mon.frame()
        time.sleep(1.0)
        with inject(mdl_db.root_kwargs(), kind, waiters=6) as s:
            finding = FINDING[kind]
            f = mon.until(lambda x: _leading(x, finding) is not None and _leading(x, finding).root is not None)
            st = _leading(f, finding)
            assert st is not None and st.root is not None and st.certainty is Certainty.CONFIRMED
            assert st.root.thread_id == s.holder_id and st.root.kill == f"KILL {s.holder_id}"
            assert st.source == "performance_schema"
            a = f.advice[0]
            assert f"KILL {s.holder_id}" in a.message and f"KILL {dba.id}" not in a.message
            assert kill_line(f) == f"KILL {s.holder_id};"
    finally:
        mon.close()
        dba.close()


def test_plugin_installed_during_a_stall_gives_the_exact_holder_within_two_polls(mariadb_factory: Any) -> None:
    """The `m` key's statement on MariaDB, run while the stall lasts: the poll notices the plugin
    and the next one reads the holder — the candidates give way to the exact KILL."""
    db = mariadb_factory(name="mdlrt")
    dba = Dba(db, in_transaction=True)
    mon = Monitor(db, user="root")
    try:
        mon.frame()
        time.sleep(1.0)
        with inject(db.root_kwargs(), "metadata_lock", waiters=6) as s:
            f = mon.until(lambda x: (st := _leading(x, "stall_metadata_lock")) is not None and st.root is None)
            first_wait = s.started
            lines = mon.src.enable_lock_holders()
            assert any("metadata_lock_info" in line for line in lines)
            enabled = time.time()
            polls = 0
            while True:
                f = mon.paced()
                polls += 1
                st = _leading(f, "stall_metadata_lock")
                if st is not None and st.root is not None:
                    break
                assert polls < 2, f"still inferred after {polls} polls"
            took = time.time() - enabled
            assert st.root.thread_id == s.holder_id and st.root.kill == f"KILL {s.holder_id}"
            assert st.source == "metadata_lock_info" and kill_line(f) == f"KILL {s.holder_id};"
            print(f"\nexact holder {polls} poll(s), {took:.2f} s after the plugin was installed; "
                  f"{time.time() - first_wait:.1f} s after the first waiter")
    finally:
        mon.close()
        dba.close()


def _retrying_waiter(kw: dict[str, Any], table: str, stop: threading.Event) -> None:
    """Waits for the row, gives up at innodb_lock_wait_timeout (2 s) and waits again, until stopped."""
    conn = pymysql.connect(**kw, autocommit=True, connect_timeout=10)
    try:
        with conn.cursor() as c:
            c.execute("SET SESSION innodb_lock_wait_timeout = 2")
            while not stop.is_set():
                try:
                    c.execute("BEGIN")
                    c.execute(f"UPDATE {table} SET v = v + 1 WHERE id = 1")
                    c.execute("ROLLBACK")
                except pymysql.MySQLError:
                    pass
    finally:
        conn.close()


def test_a_row_lock_stall_lasts_while_its_waiters_time_out_and_retry(mariadb: ThrowawayMariaDB) -> None:
    table = f"{DB}.retry_{int(time.time() * 1000) % 100000}"
    kw = mariadb.root_kwargs()
    setup = pymysql.connect(**kw, autocommit=True)
    with setup.cursor() as c:
        c.execute(f"CREATE DATABASE IF NOT EXISTS {DB}")
        c.execute(f"CREATE TABLE {table} (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
        c.execute(f"INSERT INTO {table} VALUES (1, 0)")
    holder = pymysql.connect(**kw, autocommit=True)
    with holder.cursor() as c:
        c.execute("SELECT CONNECTION_ID()")
        hid = int(c.fetchone()[0])
        c.execute("BEGIN")
        c.execute(f"UPDATE {table} SET v = 1 WHERE id = 1")
    stop = threading.Event()
    threads = [threading.Thread(target=_retrying_waiter, args=(kw, table, stop), daemon=True) for _ in range(16)]
    mon = Monitor(mariadb)
    try:
        for t in threads:
            t.start()
        began = time.monotonic()
        # the waits never reach the 5 s of a pile (2 s timeout), the root's blocking time does
        f = mon.until(lambda x: _leading(x, "stall_row_lock") is not None, timeout=60, paced=True)
        assert time.monotonic() - began < 30
        frames = [f]
        while time.monotonic() - began < 14:
            frames.append(mon.paced())
        for x in frames:
            st = _leading(x, "stall_row_lock")
            assert st is not None, ([a.id for a in x.advice], [(y.key, y.waiting, y.longest_wait_s) for y in x.stalls])
            assert st.root is not None and st.root.thread_id == hid and (st.longest_wait_s or 0) <= 3
        assert "blocked since" in frames[-1].advice[0].message
    finally:
        stop.set()
        with holder.cursor() as c:
            c.execute("ROLLBACK")
        for t in threads:
            t.join(timeout=30)
        holder.close()
        setup.close()
        mon.close()


def test_m_key_shows_the_statement_runs_it_only_on_yes_and_the_holder_replaces_the_candidates(
        mariadb_factory: Any) -> None:
    """The TUI during an inferred stall: `k` copies nothing; `m` shows INSTALL SONAME
    'metadata_lock_info' with its cost; `n` runs nothing; `y` runs it and within two polls the
    locks pane says `release first: KILL <holder>;`, which `k` then copies."""
    import asyncio

    from mysqltop.core.when import parse_when
    from mysqltop.engine import Engine
    from mysqltop.sources.live_source import LiveSource
    from mysqltop.views.tui.app import MysqltopApp
    from mysqltop.views.tui.feeds import LiveFeed
    from mysqltop.views.tui.position import ViewMode
    from mysqltop.views.tui.screens import LockHoldersScreen
    from tests.tui.conftest import Toasts, screen_text, wait_for

    db = mariadb_factory(name="mkey")
    dba = Dba(db, in_transaction=True)

    def plugin_active() -> bool:
        return bool(db.query("SELECT COUNT(*) FROM information_schema.PLUGINS WHERE PLUGIN_NAME = "
                             "'METADATA_LOCK_INFO' AND PLUGIN_STATUS = 'ACTIVE'")[0][0])

    def stall(app: MysqltopApp) -> Stall | None:
        return _leading(app.frame, "stall_metadata_lock") if app.frame is not None else None

    async def run(holder: int) -> tuple[float, int]:
        mysql = MySQLSource(db.options("root"), interval=INTERVAL)
        mysql.open()
        feed = LiveFeed(Engine(LiveSource(mysql), live_timeline(INTERVAL)), INTERVAL)
        app = MysqltopApp(feed, ViewMode.LIVE, address=db.options().address, parse_when=parse_when)
        toasts = Toasts()
        frames: list[float] = []
        async with app.run_test(size=(180, 50), message_hook=toasts) as p:
            await wait_for(p, lambda: (st := stall(app)) is not None and st.root is None, timeout=90)
            await p.press("7")                                   # the locks pane, zoomed
            await wait_for(p, lambda: "holder inferred" in screen_text(app))
            await p.press("k")
            await wait_for(p, lambda: any("nothing copied" in t for t in toasts.texts))
            assert not app.clipboard
            await p.press("m")
            await wait_for(p, lambda: isinstance(app.screen, LockHoldersScreen))
            shown = screen_text(app)
            assert "INSTALL SONAME 'metadata_lock_info'" in shown and "costs nothing until read" in shown
            await p.press("n")
            await wait_for(p, lambda: not isinstance(app.screen, LockHoldersScreen))
            await p.pause(1.0)
            assert not plugin_active()                           # no: nothing ran
            await p.press("m")
            await wait_for(p, lambda: isinstance(app.screen, LockHoldersScreen))
            seen = app.frame.time if app.frame is not None else 0.0
            await p.press("y")
            asked = time.time()
            await wait_for(p, lambda: any("ran INSTALL SONAME" in t for t in toasts.texts))

            def named() -> bool:
                if app.frame is not None and app.frame.time > seen and (not frames or frames[-1] != app.frame.time):
                    frames.append(app.frame.time)
                st = stall(app)
                return st is not None and st.root is not None
            await wait_for(p, named, timeout=30)
            took = time.time() - asked
            st = stall(app)
            assert st is not None and st.root is not None and st.root.kill == f"KILL {holder}"
            await wait_for(p, lambda: f"release first: KILL {holder};" in screen_text(app))
            await p.press("k")
            await wait_for(p, lambda: app.clipboard == f"KILL {holder};")
        return took, len([t for t in frames if t >= asked - INTERVAL])

    try:
        with inject(db.root_kwargs(), "metadata_lock", waiters=6) as s:
            took, polls = asyncio.run(run(s.holder_id))
            assert plugin_active()
            print(f"\nm, y: exact holder {took:.2f} s later ({polls} frame(s) at a {INTERVAL:g} s interval)")
            assert polls <= 3            # the poll that notices the plugin, the one that reads it (+1 in flight)
    finally:
        dba.close()


# Rows of the copied table: each costs the copy ~12 ms (a 2-core box), so the copy lasts minutes
# and still ~30 s on a machine twenty times faster.
COPIED_ROWS = 50_000


def test_a_copying_alter_is_let_finish_or_killed_and_changed_online_next_time(mdl_db: ThrowawayMariaDB) -> None:
    """A real ALTER … ALGORITHM=COPY, writers queued behind its metadata lock: the DDL is the root
    (the instrument lists it), the advice says let it finish or KILL it (its work is rolled back)
    and how to avoid it next time — never commit.

    The copy computes a stored column from 1.5 MB of each row (~12 ms a row on a 2-core box, so
    ~10 minutes for the table): it outlasts the wait on any machine, and is KILLed once asserted."""
    table = f"{DB}.copying_{int(time.time() * 1000) % 100000}"
    kw = mdl_db.root_kwargs()
    admin = pymysql.connect(**kw, autocommit=True, connect_timeout=10)
    with admin.cursor() as c:
        c.execute(f"CREATE DATABASE IF NOT EXISTS {DB}")
        c.execute(f"CREATE TABLE {table} (id INT PRIMARY KEY, v INT, p VARCHAR(200)) ENGINE=InnoDB")
        c.execute(f"INSERT INTO {table} SELECT seq, 0, REPEAT('x', 150) FROM {DB}.seq_1_to_{COPIED_ROWS}")
    alter = pymysql.connect(**kw, autocommit=True, connect_timeout=10)
    with alter.cursor() as c:
        c.execute("SELECT CONNECTION_ID()")
        alter_id = int(c.fetchone()[0])
    done = threading.Event()

    def run_alter() -> None:
        try:
            with alter.cursor() as c:
                c.execute(f"ALTER TABLE {table} ADD COLUMN h CHAR(128) AS (SHA2(REPEAT(p, 10000), 512)) "
                          "PERSISTENT, ALGORITHM=COPY")
        except pymysql.MySQLError:
            pass
        finally:
            done.set()

    def write() -> None:
        conn = pymysql.connect(**kw, autocommit=True, connect_timeout=10)
        try:
            with conn.cursor() as c:
                c.execute(f"UPDATE {table} SET v = v + 1 WHERE id = 7")
        except pymysql.MySQLError:
            pass
        finally:
            conn.close()

    mon = Monitor(mdl_db)
    threads = [threading.Thread(target=run_alter, daemon=True)]
    try:
        mon.frame()
        threads[0].start()
        wait_until(lambda: any(s == "copy to tmp table" for s, in mdl_db.query(
            f"SELECT STATE FROM information_schema.PROCESSLIST WHERE ID = {alter_id}")), timeout=60, step=0.05)
        for _ in range(4):
            threads.append(threading.Thread(target=write, daemon=True))
            threads[-1].start()

        def led() -> Frame | bool | None:
            if done.is_set():
                return True
            f = mon.frame()
            return f if _leading(f, "stall_running_ddl") is not None else None
        got = wait_until(led, timeout=120, step=0.3)
        assert isinstance(got, Frame), "the copy ended before the writers had waited 5 s"
        st = _leading(got, "stall_running_ddl")
        assert st is not None and st.root is not None and st.root.thread_id == alter_id
        msg = got.advice[0].message
        assert f"let it finish, or KILL {alter_id} (its work is rolled back)" in msg
        assert "ALGORITHM=INPLACE" in msg and "LOCK=NONE" in msg and "commit" not in msg.lower()
    finally:
        try:
            with admin.cursor() as c:
                c.execute(f"KILL {alter_id}")     # the copy would go on for minutes
        except pymysql.MySQLError:
            pass                                  # it ended (failed) already
        done.wait(180)
        for t in threads:
            t.join(timeout=60)
        alter.close()
        with admin.cursor() as c:
            c.execute(f"DROP TABLE IF EXISTS {table}")
        admin.close()
        mon.close()
