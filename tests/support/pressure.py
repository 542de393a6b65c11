"""Pressure problems injected on a throwaway MariaDB, one per finding of core/rules/pressure.py:
a server started with the buffer, cache or connection limit too small, a load that overflows it, and the remedy
(a SET GLOBAL, or a server started with the larger size where the setting is not dynamic).

    with PressureLoad(db.root_kwargs(), "thread_cache", plain_kw=db.monitor_kwargs()):
        ...                                    # threads load the server until the block ends
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import pymysql

from tests.support.sql import connect, cursor

DB = "mysqltop_pressure"


@dataclass(frozen=True)
class Problem:
    finding: str
    server_args: tuple[str, ...]              # the buffer too small
    counter: str                              # the server's own status counter behind the finding
    remedy_sql: tuple[str, ...] = ()          # dynamic remedy; empty: restart with remedy_args
    remedy_args: tuple[str, ...] = ()
    threads: int = 2
    # The load connects as an account without SUPER / CONNECTION ADMIN (the monitor's): an
    # administrator's connects would take the one connection kept past max_connections.
    plain_account: bool = False


PROBLEMS: dict[str, Problem] = {
    "log_waits": Problem("log_waits", ("--innodb-log-buffer-size=2M", "--innodb-log-file-size=256M"),
                         "Innodb_log_waits", remedy_args=("--innodb-log-buffer-size=256M",
                                                          "--innodb-log-file-size=256M"), threads=3),
    "thread_cache": Problem("thread_cache", ("--thread-cache-size=0",), "Threads_created",
                            ("SET GLOBAL thread_cache_size = 64",)),
    "tmp_disk_tables": Problem("tmp_disk_tables", ("--tmp-table-size=16K", "--max-heap-table-size=16K"),
                               "Created_tmp_disk_tables",
                               ("SET GLOBAL tmp_table_size = 67108864", "SET GLOBAL max_heap_table_size = 67108864")),
    "binlog_cache_disk": Problem("binlog_cache_disk", ("--log-bin=binlog", "--server-id=1", "--binlog-format=ROW",
                                                      "--binlog-cache-size=4096"),
                                 "Binlog_cache_disk_use", ("SET GLOBAL binlog_cache_size = 4194304",)),
    # A session that finds no clean page at the LRU tail flushes lru_flush_size pages itself: one
    # page a time (and a page cleaner held to 100 IOPS) keeps the waits coming every second
    # instead of in bursts, on a fast disk as on a slow one.
    "buffer_pool_wait_free": Problem("buffer_pool_wait_free", ("--innodb-buffer-pool-size=6M", "--innodb-io-capacity=100",
                                                              "--innodb-io-capacity-max=100", "--innodb-lru-flush-size=1",
                                                              "--innodb-lru-scan-depth=100", "--innodb-flush-neighbors=0",
                                                              "--innodb-max-dirty-pages-pct=99"),
                                     "Innodb_buffer_pool_wait_free",
                                     ("SET GLOBAL innodb_buffer_pool_size = 268435456",), threads=4),
    # MariaDB counts a refusal after the login (the connection kept past the limit still free) in
    # Aborted_connects alone, not in Connection_errors_max_connections.
    "max_connections": Problem("max_connections", ("--max-connections=10",), "Aborted_connects",
                               ("SET GLOBAL max_connections = 100",), threads=1, plain_account=True),
}
# Connects a second the refused client tries (each refused at once while the server is full).
CONNECTS_PER_S = 5.0
ER_CON_COUNT_ERROR = 1040                     # "Too many connections"
PAGES_ROWS = 64_000          # ~33 MiB of rows: five times a 6 MiB buffer pool


def status(kw: Mapping[str, Any], name: str) -> int:
    with cursor(kw) as c:
        c.execute("SHOW GLOBAL STATUS LIKE %s", (name,))
        return int(c.fetchone()[1])


def prepare(kw: Mapping[str, Any]) -> None:
    with cursor(kw) as c:
        c.execute(f"CREATE DATABASE IF NOT EXISTS {DB}")
        c.execute(f"CREATE TABLE IF NOT EXISTS {DB}.groups_src (id INT PRIMARY KEY, c VARCHAR(200))")
        c.execute(f"SELECT COUNT(*) FROM {DB}.groups_src")
        if not c.fetchone()[0]:
            rows = ", ".join(f"({i}, REPEAT('{i % 10}', 150))" for i in range(1, 3001))
            c.execute(f"INSERT INTO {DB}.groups_src VALUES {rows}")
        c.execute(f"CREATE TABLE IF NOT EXISTS {DB}.blobs (id INT AUTO_INCREMENT PRIMARY KEY, b LONGBLOB)")


def prepare_pages(kw: Mapping[str, Any]) -> None:
    """A table several times the buffer pool, for scans and updates that need free pages."""
    with cursor(kw) as c:
        c.execute(f"CREATE TABLE IF NOT EXISTS {DB}.pages (id INT AUTO_INCREMENT PRIMARY KEY, p CHAR(255), "
                  "q CHAR(255)) ENGINE=InnoDB")
        c.execute(f"SELECT COUNT(*) FROM {DB}.pages")
        if c.fetchone()[0] >= PAGES_ROWS:
            return
        c.execute(f"INSERT INTO {DB}.pages (p, q) VALUES "
                  + ",".join(["(REPEAT('a', 255), REPEAT('b', 255))"] * 1000))
        while True:
            c.execute(f"SELECT COUNT(*) FROM {DB}.pages")
            if c.fetchone()[0] >= PAGES_ROWS:
                break
            c.execute(f"INSERT INTO {DB}.pages (p, q) SELECT p, q FROM {DB}.pages")


def apply_remedy(kw: Mapping[str, Any], problem: Problem) -> None:
    with cursor(kw) as c:
        for sql in problem.remedy_sql:
            c.execute(sql)


def _log_waits(kw: Mapping[str, Any], stop: threading.Event) -> None:
    """Large transactions: 4 MiB of redo per row, more than the log buffer holds."""
    conn = connect(kw, autocommit=False)
    with conn.cursor() as c:
        while not stop.is_set():
            c.execute(f"INSERT INTO {DB}.blobs (b) VALUES (REPEAT(UUID(), 120000))")
            conn.commit()
            c.execute(f"DELETE FROM {DB}.blobs")
            conn.commit()
    conn.close()


def _thread_cache(kw: Mapping[str, Any], stop: threading.Event) -> None:
    """Connection churn: connect, one statement, disconnect (each one a new thread without a cache)."""
    while not stop.is_set():
        conn = connect(kw)
        with conn.cursor() as c:
            c.execute("SELECT 1")
        conn.close()
        stop.wait(0.05)


def _tmp_disk_tables(kw: Mapping[str, Any], stop: threading.Event) -> None:
    """GROUP BY over 3,000 distinct 150-byte keys: an implicit temporary table of ~500 KiB. A new
    session per query, so a changed global applies at once."""
    while not stop.is_set():
        conn = connect(kw)
        with conn.cursor() as c:
            c.execute(f"SELECT c, COUNT(*) FROM {DB}.groups_src GROUP BY c, id")
            c.fetchall()
        conn.close()
        stop.wait(0.1)


def _binlog_cache(kw: Mapping[str, Any], stop: threading.Event) -> None:
    """Transactions of ~40 KiB of row events, ten times the binlog cache; a new session each."""
    while not stop.is_set():
        conn = connect(kw, autocommit=False)
        with conn.cursor() as c:
            c.execute(f"INSERT INTO {DB}.blobs (b) VALUES (REPEAT('x', 40000))")
            conn.commit()
            c.execute(f"DELETE FROM {DB}.blobs")
            conn.commit()
        conn.close()
        stop.wait(0.1)


def _pages(kw: Mapping[str, Any], stop: threading.Event, worker: int) -> None:
    """Half the threads update rows all over the table (dirty pages), half scan it (reads that
    need a free page each)."""
    conn = connect(kw)
    with conn.cursor() as c:
        while not stop.is_set():
            if worker % 2:
                c.execute(f"UPDATE {DB}.pages SET p = REPEAT(CHAR(97 + FLOOR(RAND() * 20)), 255) "
                          "WHERE MOD(id, 7) = %s LIMIT 3000", (worker,))
            else:
                c.execute(f"SELECT COUNT(*) FROM {DB}.pages WHERE q LIKE 'x%%'")
                c.fetchall()
    conn.close()


def _max_connections(kw: Mapping[str, Any], stop: threading.Event) -> None:
    """Idle sessions held open until the server refuses one (max_connections reached), then a
    client that keeps trying: each refused connect counts once, each one let in closes at once."""
    held: list[Any] = []
    try:
        while not stop.is_set():
            try:
                held.append(connect(kw))
            except pymysql.err.OperationalError as e:
                if e.args[0] != ER_CON_COUNT_ERROR:
                    raise
                break
        while not stop.is_set():
            try:
                connect(kw).close()
            except pymysql.err.OperationalError as e:
                if e.args[0] != ER_CON_COUNT_ERROR:
                    raise
            stop.wait(1.0 / CONNECTS_PER_S)
    finally:
        for conn in held:
            conn.close()


LOADS: dict[str, Callable[[Mapping[str, Any], threading.Event], None]] = {
    "log_waits": _log_waits, "thread_cache": _thread_cache, "tmp_disk_tables": _tmp_disk_tables,
    "binlog_cache_disk": _binlog_cache, "max_connections": _max_connections,
}
WORKER_LOADS: dict[str, Callable[[Mapping[str, Any], threading.Event, int], None]] = {
    "buffer_pool_wait_free": _pages,
}


class PressureLoad:
    """Threads running a problem's load until the block ends (joined in every case)."""

    def __init__(self, kw: Mapping[str, Any], finding: str, plain_kw: Mapping[str, Any] | None = None) -> None:
        """`kw`: an administrator's account (the tables); `plain_kw`: one without SUPER / CONNECTION
        ADMIN, which a problem with `plain_account` connects as."""
        self.kw, self.problem = kw, PROBLEMS[finding]
        self.load_kw = plain_kw if self.problem.plain_account and plain_kw is not None else kw
        self.stop = threading.Event()
        self.threads: list[threading.Thread] = []
        self.errors: list[BaseException] = []

    def _run(self, worker: int) -> None:
        try:
            name = self.problem.finding
            if name in WORKER_LOADS:
                WORKER_LOADS[name](self.load_kw, self.stop, worker)
            else:
                LOADS[name](self.load_kw, self.stop)
        except BaseException as e:  # noqa: BLE001 - reported by the test, never a hang
            self.errors.append(e)

    def __enter__(self) -> "PressureLoad":
        prepare(self.kw)
        if self.problem.finding in WORKER_LOADS:
            prepare_pages(self.kw)
        for worker in range(self.problem.threads):
            t = threading.Thread(target=self._run, args=(worker,), daemon=True)
            t.start()
            self.threads.append(t)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(timeout=60)
