"""The load by user, client host, statement shape and wait object on a mixed workload with known
shares, on the throwaway MariaDB: three application users, each from its own loopback address
with its own statements and wait — writers queued on one row behind an idle holder, sessions in
SELECT SLEEP, CPU-bound statements. Ground truth: the server's processlist read independently
five times a second over the same window. mysqltop's average active sessions per user, host,
shape and object agree within 10 % (or 0.3 sessions) live, from the recording and in the report."""

from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pymysql
import pytest

from mysqltop.core import load_slices
from mysqltop.core.frame import Frame
from mysqltop.core.wait_load import IDLE_COMMANDS
from mysqltop.recording.writer import RecordingWriter
from mysqltop.sources.mysql import MySQLSource
from mysqltop.timeline.polled import PolledTimeline
from tests.support.mariadb import MONITOR_USER
from tests.support.sql import end_sessions
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live

# user → (client address, schema, sessions, statement)
WORKLOAD = {
    "app_orders": ("127.0.0.2", "shop", 4, "UPDATE inventory SET qty = qty - 1 WHERE sku = 1"),
    "reporting": ("127.0.0.3", "dw", 3, "SELECT SLEEP(300)"),
    "app_web": ("127.0.0.4", "shop", 2, "SELECT BENCHMARK(3000000000, MD5('mysqltop'))"),
}
WINDOW_S = 8.0


def _setup(root: Any) -> None:
    with root.cursor() as c:
        for sql in ("CREATE DATABASE shop", "CREATE DATABASE dw",
                    "CREATE TABLE shop.inventory (sku INT PRIMARY KEY, qty INT) ENGINE=InnoDB",
                    "INSERT INTO shop.inventory VALUES (1, 100), (2, 100)"):
            c.execute(sql)
        for user in WORKLOAD:
            c.execute(f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'")
            c.execute(f"GRANT ALL ON *.* TO '{user}'@'%'")


@contextlib.contextmanager
def workload(db: Any) -> Iterator[None]:
    kw = db.root_kwargs()
    holder = pymysql.connect(**kw, autocommit=False)
    with holder.cursor() as c:                # idle in its transaction: holds sku 1, not active
        c.execute("SELECT qty FROM shop.inventory WHERE sku = 1 FOR UPDATE")
    conns, threads = [], []
    for user, (addr, schema, n, sql) in WORKLOAD.items():
        for _ in range(n):
            conn = pymysql.connect(host=kw["host"], port=kw["port"], user=user, password="pw", database=schema,
                                   autocommit=True, bind_address=addr)
            with conn.cursor() as c:
                c.execute("SET SESSION innodb_lock_wait_timeout = 600")

            def run(conn: Any = conn, sql: str = sql) -> None:
                with contextlib.suppress(pymysql.MySQLError), conn.cursor() as c:
                    c.execute(sql)
            conns.append(conn)
            threads.append(threading.Thread(target=run, daemon=True))
    for t in threads:
        t.start()
    try:
        yield
    finally:
        end_sessions(kw, conns, threads)
        holder.close()


def listed(watch: Any) -> list[tuple[str, str]]:
    """(user, state) of every session the server lists as working, the monitor's left out."""
    with watch.cursor() as c:
        c.execute("SHOW FULL PROCESSLIST")
        rows = c.fetchall()
    return [(r[1], r[6] or "") for r in rows
            if r[0] != watch.thread_id() and r[1] != MONITOR_USER and r[4] not in IDLE_COMMANDS]


def test_load_by_dimension_agrees_with_the_processlist(mariadb_factory: Any, tmp_path: Path) -> None:
    from mysqltop.commands.report import window_report

    db = mariadb_factory(name="slices")
    root = db.root_conn()
    _setup(root)
    watch = db.root_conn()
    src = MySQLSource(db.options(), interval=1.0)
    src.open()
    path = tmp_path / "mixed.mtrec"
    pipe = PolledTimeline()
    frames: list[Frame] = []
    truth: dict[str, float] = {}
    reads = 0
    stop = threading.Event()

    def sample_truth() -> None:
        nonlocal reads
        while not stop.is_set():
            for user, _ in listed(watch):
                truth[user] = truth.get(user, 0.0) + 1
            reads += 1
            stop.wait(0.2)
    try:
        with workload(db), RecordingWriter(path, interval=1.0) as rec:
            wait_until(lambda: sum(1 for u, _ in listed(root) if u in WORKLOAD) >= 9, timeout=60)
            first = src.read()
            rec.append(first)
            pipe.push(first, advise=False)
            sampler = threading.Thread(target=sample_truth, daemon=True)
            sampler.start()
            t_end = time.monotonic() + WINDOW_S
            while time.monotonic() < t_end:
                time.sleep(1.0)
                raw = src.read()
                rec.append(raw)
                frames.append(pipe.push(raw, advise=False))
            stop.set()
            sampler.join(10)
    finally:
        stop.set()
        src.close()
        watch.close()
        root.close()
    truth = {u: n / reads for u, n in truth.items()}
    live = load_slices.fold(frames).slices()
    report = window_report(str(path), None, None).load.slices

    def agree(got: dict[str, float], want: float) -> bool:
        return abs(got - want) <= max(0.3, 0.1 * want)

    for name, slices in (("live", {d: [(x.value, x.sessions, x.classes) for x in rows] for d, rows in live.items()}),
                         ("report", {d: [(x["value"], x["sessions"], x["classes"]) for x in rows]
                                     for d, rows in report.items()})):
        users = {v: n for v, n, _ in slices["user"]}
        hosts = {v: n for v, n, _ in slices["host"]}
        shapes = {v: n for v, n, _ in slices["sql"]}
        objects = {v: (n, c) for v, n, c in slices["object"]}
        for user, (addr, _, n, _) in WORKLOAD.items():
            assert truth.get(user, 0.0) >= n - 0.5, truth               # the workload ran as meant
            assert agree(users.get(user, 0.0), truth.get(user, 0.0)), (name, user, users, truth)
            assert agree(hosts.get(addr, 0.0), truth.get(user, 0.0)), (name, addr, hosts, truth)
        assert agree(shapes.get("UPDATE inventory SET qty = qty - ? WHERE sku = ?", 0.0), truth["app_orders"]), shapes
        assert agree(shapes.get("SELECT SLEEP(?)", 0.0), truth["reporting"]), shapes
        row = objects.get("`shop`.`inventory` (PRIMARY)")
        assert row is not None and agree(row[0], truth["app_orders"]) and set(row[1]) == {"row_lock"}, objects
        assert agree(objects.get("SLEEP()", (0.0, {}))[0], truth["reporting"]), objects
