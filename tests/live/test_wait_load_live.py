"""Database load by wait class on injected incidents against the throwaway MariaDB: an idle
row-lock holder with sessions queued behind it, a metadata-lock pile-up behind an ALTER, CPU
saturation (more busy statements than cores) and durable commits on slow log storage
(slow_sync). The largest class is the one injected, and the active sessions match the ones the
server lists (SHOW PROCESSLIST, read right after the poll) within 10 %."""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator

import pymysql
import pytest

from mysqltop.core.frame import WAIT_CLASSES, Frame
from mysqltop.timeline.pipeline import FramePipeline
from mysqltop.core.wait_load import IDLE_COMMANDS
from mysqltop.sources.mysql import MySQLSource
from tests.support.mariadb import ThrowawayMariaDB
from tests.support.stalls import inject
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live

BUSY = 5          # statements burning CPU at once (the throwaway box has 2 cores)


@contextlib.contextmanager
def cpu_burn(kw: dict[str, Any]) -> Iterator[None]:
    """BUSY sessions each running a long BENCHMARK; killed on the way out, whatever happened."""
    conns = [pymysql.connect(**kw, autocommit=True) for _ in range(BUSY)]
    ids = [c.thread_id() for c in conns]

    def burn(c: Any) -> None:
        with contextlib.suppress(pymysql.MySQLError):
            with c.cursor() as cur:
                cur.execute("SELECT BENCHMARK(2000000000, MD5('mysqltop'))")
    threads = [threading.Thread(target=burn, args=(c,), daemon=True) for c in conns]
    for t in threads:
        t.start()
    killer = pymysql.connect(**kw, autocommit=True)
    try:
        yield
    finally:
        with killer.cursor() as cur:
            for i in ids:
                with contextlib.suppress(pymysql.MySQLError):
                    cur.execute(f"KILL QUERY {i}")
        for t in threads:
            t.join(30)
        for c in [*conns, killer]:
            c.close()


def incident(db: ThrowawayMariaDB, kind: str) -> contextlib.AbstractContextManager[Any]:
    return cpu_burn(db.root_kwargs()) if kind == "cpu" else inject(db.root_kwargs(), kind, waiters=6)


def listed_active(watch: Any) -> int:
    """Sessions the server lists as working, the watcher itself left out (as mysqltop leaves out its own)."""
    with watch.cursor() as c:
        c.execute("SHOW FULL PROCESSLIST")
        rows = c.fetchall()
    return sum(1 for r in rows if r[0] != watch.thread_id() and r[4] not in IDLE_COMMANDS)


def largest(f: Frame) -> str | None:
    ld = f.load
    if not ld.active:
        return None
    return max(WAIT_CLASSES, key=lambda c: ld.value(c) or 0.0)


@pytest.mark.parametrize("kind,expected", [("row_lock", "row_lock"), ("metadata_lock", "metadata_lock"),
                                           ("cpu", "cpu")])
def test_largest_class_is_the_injected_incident(mariadb: ThrowawayMariaDB, kind: str, expected: str) -> None:
    src = MySQLSource(mariadb.options(), interval=1.0)
    src.open()
    watch = pymysql.connect(**mariadb.root_kwargs(), autocommit=True)
    pipe = FramePipeline()
    checked: list[tuple[float, int]] = []
    try:
        with incident(mariadb, kind):
            def polled() -> Frame | None:
                f = pipe.push(src.read(), advise=False)
                return f if f.elapsed is not None and largest(f) == expected else None
            wait_until(polled, timeout=60, step=0.5)
            for _ in range(3):
                f = pipe.push(src.read(), advise=False)
                truth = listed_active(watch)
                assert largest(f) == expected, (kind, f.load)
                checked.append((f.load.active or 0.0, truth))
    finally:
        watch.close()
        src.close()
    for active, truth in checked:
        assert truth >= 4 and abs(active - truth) <= 0.1 * truth, (kind, checked)


WRITERS = 8       # autocommit writers queued on group commit (fsync-bound, CPU to spare on 2 cores)
SYNC_DELAY_MS = 40.0


@contextlib.contextmanager
def durable_writers(kw: dict[str, Any]) -> Iterator[None]:
    """WRITERS sessions inserting one row per durable commit until the test is done."""
    with contextlib.closing(pymysql.connect(**kw, autocommit=True)) as c, c.cursor() as cur:
        cur.execute("CREATE DATABASE IF NOT EXISTS wl")
        cur.execute("CREATE TABLE IF NOT EXISTS wl.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT) ENGINE=InnoDB")
    stop = threading.Event()
    conns = [pymysql.connect(**kw, autocommit=True) for _ in range(WRITERS)]

    def write(c: Any) -> None:
        with contextlib.suppress(pymysql.MySQLError), c.cursor() as cur:
            while not stop.is_set():
                cur.execute("INSERT INTO wl.t (v) VALUES (1)")
    threads = [threading.Thread(target=write, args=(c,), daemon=True) for c in conns]
    for t in threads:
        t.start()
    try:
        yield
    finally:
        stop.set()
        for t in threads:
            t.join(30)
        for c in conns:
            c.close()


def test_fsync_bound_commits_are_the_largest_class(mariadb_factory: Any, tmp_path: Any) -> None:
    from tests.support import slow_sync
    try:
        lib = slow_sync.build(tmp_path)
    except slow_sync.NoCompiler as e:
        pytest.skip(str(e))
    db = mariadb_factory(["--log-bin=mysql-bin", "--sync-binlog=1", "--innodb-flush-log-at-trx-commit=1",
                          "--innodb-flush-method=O_DIRECT"], name="commits",
                         env=slow_sync.server_env(lib, SYNC_DELAY_MS))
    src = MySQLSource(db.options(), interval=1.0)
    src.open()
    watch = pymysql.connect(**db.root_kwargs(), autocommit=True)
    pipe = FramePipeline()
    checked: list[tuple[float, int]] = []
    try:
        with durable_writers(db.root_kwargs()):
            def polled() -> Frame | None:
                f = pipe.push(src.read(), advise=False)
                return f if f.elapsed is not None and largest(f) == "commit" else None
            wait_until(polled, timeout=60, step=0.5)
            for _ in range(5):
                f = pipe.push(src.read(), advise=False)
                truth = listed_active(watch)
                assert largest(f) == "commit", f.load
                checked.append((f.load.active or 0.0, truth))
    finally:
        watch.close()
        src.close()
    # Writers leave the server for a moment between commits, so one poll and the processlist read
    # after it may differ by a session; over five polls the averages must agree within 10 %.
    active, truth = (sum(x) / len(checked) for x in zip(*checked))
    assert truth >= 4 and abs(active - truth) <= 0.1 * truth, checked
