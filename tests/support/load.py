"""A load generator whose true counts are known: tests compare mysqltop's rates against them.

    from tests.support.load import LoadGenerator, LoadSpec
    gen = LoadGenerator(db.root_kwargs(), LoadSpec(mode="oltp", threads=4, rate=50, duration=20))
    gen.prepare()                 # (re)creates and fills the table; not counted
    with gen:                     # start(): threads connect first, then run together
        c1 = gen.counts(); time.sleep(5); c2 = gen.counts()
        tps = (c2.commits + c2.rollbacks - c1.commits - c1.rollbacks) / (c2.mono - c1.mono)
    total = gen.wait()            # LoadCounts when all threads are done (bounded by duration)

Modes (one thread = one PyMySQL connection, autocommit on, explicit BEGIN/COMMIT):
  oltp  BEGIN; SELECT c … WHERE id=r; UPDATE … SET k=k+1 WHERE id=r; COMMIT   (+ `plain_queries`
        autocommit point SELECTs per transaction; every `rollback_every`-th transaction ROLLBACKs)
  hot   every thread updates the SAME row (id=1) inside BEGIN…COMMIT, holding the lock `hold_ms`
        → row lock waits / lock wait time in the frame
  scan  full-table aggregate SELECTs over a table bigger than a tiny buffer pool (use `rows` so
        rows*~300 B exceeds --innodb-buffer-pool-size) → buffer pool / page read contention
  point autocommit primary-key SELECTs at random rows (a hot adaptive hash index when the table
        fits the pool; IO-bound reads when it does not)
  insert autocommit single-row INSERTs (each one a write transaction and, with the binary log
        on, one binlog commit) → fsync-bound commits when durability is on
  update autocommit single-row UPDATEs at random rows (history list grows behind a read view)
  ahi   autocommit lookups on the secondary index k (served by the adaptive hash index) mixed
        with UPDATEs of k (each one changes hashed index pages) → btr_search_latch
  tables autocommit point SELECTs over `tables` small tables t_0 … t_{tables-1}: more tables than
        table_open_cache → table cache misses and LOCK_table_cache

Counting is exact for what this generator sends after the threads connected: `statements` is
every COM_QUERY sent (= the server's Questions increment), `commits`/`rollbacks` every COMMIT/
ROLLBACK statement (= Com_commit/Com_rollback). A monitor polling the same server adds its own
statements to Questions, and each connection open/close adds ~2 there (outside the counted
window). Bounded: stops after `transactions` per thread or `duration` seconds.
Scripts: `python -m tests.support.load --port P [--mode oltp] [--threads 4] [--duration 10] …`.
`LoadProcess` runs a generator in a child process (for a harness that times something else).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

TEST_DB = "mysqltop_test"
PAD = "x" * 250
MODES = ("oltp", "hot", "scan", "point", "insert", "update", "tables", "ahi")


@dataclass
class LoadSpec:
    mode: str = "oltp"                 # oltp | hot | scan
    threads: int = 4
    transactions: int = 10_000         # per thread, upper bound
    duration: float = 30.0             # seconds, upper bound
    rate: float | None = None          # per-thread transactions (or scans) per second; None = flat out
    rows: int = 10_000
    table: str = "sbtest1"
    rollback_every: int = 0            # oltp: every Nth transaction ends with ROLLBACK (0 = never)
    plain_queries: int = 0             # oltp: autocommit point SELECTs after each transaction
    hold_ms: float = 0.0               # hot: sleep while holding the row lock
    tables: int = 200                  # tables: how many small tables to spread over
    database: str = TEST_DB


@dataclass
class LoadCounts:
    commits: int = 0
    rollbacks: int = 0
    statements: int = 0                # every statement sent, including BEGIN/COMMIT/ROLLBACK
    transactions: int = 0              # finished transactions (commit or rollback)
    errors: int = 0                    # statements that failed (lock wait timeout, deadlock …)
    mono: float = 0.0                  # time.monotonic() of this snapshot
    error_texts: list[str] = field(default_factory=list)

    @property
    def trx_ends(self) -> int:
        return self.commits + self.rollbacks


class LoadGenerator:
    def __init__(self, conn_kwargs: dict[str, Any], spec: LoadSpec | None = None, **overrides: Any) -> None:
        self.conn_kwargs = dict(conn_kwargs)
        self.spec = spec or LoadSpec()
        for k, v in overrides.items():
            setattr(self.spec, k, v)
        if self.spec.mode not in MODES:
            raise ValueError(f"unknown load mode {self.spec.mode!r}")
        self._lock = threading.Lock()
        self._counts = LoadCounts()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._ready = threading.Barrier(self.spec.threads + 1)
        self.started_mono: float | None = None

    # ---- setup -----------------------------------------------------------------------------------
    def _connect(self):
        import pymysql
        kw = {"connect_timeout": 10, **self.conn_kwargs, "autocommit": True}
        kw.setdefault("database", self.spec.database)
        return pymysql.connect(**kw)

    def prepare(self) -> None:
        """(Re)create `table` with `rows` rows (ids 1..rows); in `tables` mode the small tables
        t_0 … t_{tables-1} (10 rows each). Not counted."""
        import pymysql
        kw = {"connect_timeout": 10, **self.conn_kwargs, "autocommit": True}
        kw.pop("database", None)
        conn = pymysql.connect(**kw)
        s, t = self.spec, self.spec.table
        try:
            with conn.cursor() as cur:
                cur.execute(f"CREATE DATABASE IF NOT EXISTS {s.database}")
                cur.execute(f"USE {s.database}")
                if s.mode == "tables":
                    for i in range(s.tables):
                        cur.execute(f"CREATE TABLE IF NOT EXISTS t_{i} (id INT UNSIGNED NOT NULL PRIMARY KEY, "
                                    "c CHAR(20) NOT NULL) ENGINE=InnoDB")
                        cur.execute(f"INSERT IGNORE INTO t_{i} VALUES " + ",".join(f"({j},'c')" for j in range(1, 11)))
                    return
                cur.execute(f"DROP TABLE IF EXISTS {t}")
                cur.execute(f"CREATE TABLE {t} (id INT UNSIGNED NOT NULL PRIMARY KEY, k INT NOT NULL DEFAULT 0,"
                            f" c CHAR(120) NOT NULL, pad CHAR(250) NOT NULL, KEY k_1 (k)) ENGINE=InnoDB")
                batch = 2000
                for lo in range(1, s.rows + 1, batch):
                    hi = min(lo + batch, s.rows + 1)
                    cur.executemany(f"INSERT INTO {t} (id, k, c, pad) VALUES (%s, %s, %s, %s)",
                                    [(i, i % 1000, f"c-{i}", PAD) for i in range(lo, hi)])
        finally:
            conn.close()

    # ---- running ---------------------------------------------------------------------------------
    def start(self) -> "LoadGenerator":
        for i in range(self.spec.threads):
            th = threading.Thread(target=self._worker, args=(i,), name=f"load-{i}", daemon=True)
            th.start()
            self._threads.append(th)
        try:
            self._ready.wait(timeout=60)   # all connected: counting starts together
        except threading.BrokenBarrierError:
            self._stop.set()
            raise RuntimeError(f"load threads could not connect: {self.counts().error_texts}") from None
        self.started_mono = time.monotonic()
        return self

    def stop(self) -> LoadCounts:
        self._stop.set()
        return self.wait()

    def wait(self, timeout: float | None = None) -> LoadCounts:
        limit = timeout if timeout is not None else self.spec.duration + 60
        deadline = time.monotonic() + limit
        for th in self._threads:
            th.join(timeout=max(0.0, deadline - time.monotonic()))
        return self.counts()

    @property
    def running(self) -> bool:
        return any(th.is_alive() for th in self._threads)

    def counts(self) -> LoadCounts:
        with self._lock:
            c = self._counts
            return LoadCounts(c.commits, c.rollbacks, c.statements, c.transactions, c.errors,
                              time.monotonic(), list(c.error_texts[-20:]))

    def __enter__(self) -> "LoadGenerator":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _add(self, **deltas: int) -> None:
        with self._lock:
            for k, v in deltas.items():
                setattr(self._counts, k, getattr(self._counts, k) + v)

    def _worker(self, idx: int) -> None:
        try:
            conn = self._connect()
        except Exception as e:  # noqa: BLE001 - reported through counts
            with self._lock:
                self._counts.errors += 1
                self._counts.error_texts.append(f"connect: {e}")
            self._ready.abort()
            return
        rnd = random.Random(idx)
        s = self.spec
        try:
            self._ready.wait(timeout=60)
            end = time.monotonic() + s.duration
            next_at = time.monotonic()
            with conn.cursor() as cur:
                for n in range(1, s.transactions + 1):
                    if self._stop.is_set() or time.monotonic() >= end:
                        break
                    if s.rate:
                        next_at += 1.0 / s.rate
                        delay = next_at - time.monotonic()
                        if delay > 0 and self._stop.wait(delay):
                            break
                    getattr(self, f"_one_{s.mode}")(cur, rnd, n)
        except threading.BrokenBarrierError:
            pass
        finally:
            conn.close()

    def _exec(self, cur: Any, sql: str, args: Any = None) -> bool:
        """Send one statement, count it; False when the server refused it."""
        import pymysql
        try:
            cur.execute(sql, args)
            cur.fetchall()
            self._add(statements=1)
            return True
        except pymysql.err.OperationalError as e:  # lock wait timeout, deadlock
            with self._lock:
                self._counts.statements += 1
                self._counts.errors += 1
                self._counts.error_texts.append(str(e))
            return False

    def _end(self, cur: Any, ok: bool, rollback: bool) -> None:
        if ok and not rollback:
            self._exec(cur, "COMMIT")
            self._add(commits=1, transactions=1)
        else:
            self._exec(cur, "ROLLBACK")
            self._add(rollbacks=1, transactions=1)

    def _one_oltp(self, cur: Any, rnd: random.Random, n: int) -> None:
        t = self.spec.table
        rid = rnd.randint(1, self.spec.rows)
        ok = (self._exec(cur, "BEGIN")
              and self._exec(cur, f"SELECT c FROM {t} WHERE id=%s", (rid,))
              and self._exec(cur, f"UPDATE {t} SET k=k+1 WHERE id=%s", (rid,)))
        self._end(cur, ok, rollback=bool(self.spec.rollback_every) and n % self.spec.rollback_every == 0)
        for _ in range(self.spec.plain_queries):
            self._exec(cur, f"SELECT k FROM {t} WHERE id=%s", (rnd.randint(1, self.spec.rows),))

    def _one_hot(self, cur: Any, rnd: random.Random, n: int) -> None:
        ok = self._exec(cur, "BEGIN") and self._exec(cur, f"UPDATE {self.spec.table} SET k=k+1 WHERE id=1")
        if ok and self.spec.hold_ms:
            time.sleep(self.spec.hold_ms / 1000.0)
        self._end(cur, ok, rollback=False)

    def _one_scan(self, cur: Any, rnd: random.Random, n: int) -> None:
        # IGNORE INDEX: force a clustered-index scan so every page passes the buffer pool.
        self._exec(cur, f"SELECT COUNT(*), SUM(LENGTH(pad)) FROM {self.spec.table} IGNORE INDEX (k_1)")


    def _one_point(self, cur: Any, rnd: random.Random, n: int) -> None:
        self._exec(cur, f"SELECT c FROM {self.spec.table} WHERE id=%s", (rnd.randint(1, self.spec.rows),))

    def _one_insert(self, cur: Any, rnd: random.Random, n: int) -> None:
        # ids above the prepared rows, a million per thread: no duplicate keys, no shared row locks
        idx = int(threading.current_thread().name.rsplit("-", 1)[-1])
        rid = self.spec.rows + 1 + idx * 1_000_000 + n
        self._exec(cur, f"INSERT INTO {self.spec.table} (id, k, c, pad) VALUES (%s, 0, 'i', 'p')", (rid,))

    def _one_update(self, cur: Any, rnd: random.Random, n: int) -> None:
        self._exec(cur, f"UPDATE {self.spec.table} SET k=k+1 WHERE id=%s", (rnd.randint(1, self.spec.rows),))

    def _one_ahi(self, cur: Any, rnd: random.Random, n: int) -> None:
        t = self.spec.table
        for _ in range(4):
            self._exec(cur, f"SELECT id FROM {t} WHERE k=%s LIMIT 5", (rnd.randrange(1000),))
        self._exec(cur, f"UPDATE {t} SET k=%s WHERE id=%s", (rnd.randrange(1000), rnd.randint(1, self.spec.rows)))

    def _one_tables(self, cur: Any, rnd: random.Random, n: int) -> None:
        self._exec(cur, f"SELECT c FROM t_{rnd.randrange(self.spec.tables)} WHERE id=%s", (rnd.randint(1, 10),))


class ReadViewHolder:
    """One session that opens a consistent snapshot (a read view InnoDB cannot purge past) and
    keeps it until close() or until the server KILLs it. `thread_id` is its CONNECTION_ID()."""

    def __init__(self, conn_kwargs: dict[str, Any], table: str = "sbtest1", database: str = TEST_DB) -> None:
        import pymysql
        self.conn = pymysql.connect(**{"connect_timeout": 10, **conn_kwargs, "autocommit": True,
                                       "database": database})
        with self.conn.cursor() as cur:
            cur.execute("SELECT CONNECTION_ID()")
            self.thread_id = int(cur.fetchone()[0])
            cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
            cur.execute(f"SELECT COUNT(*) FROM {table}")
            cur.fetchall()

    def close(self) -> None:
        try:
            self.conn.close()
        except Exception:  # noqa: BLE001 - already killed by the test
            pass


def run_load(conn_kwargs: dict[str, Any], prepare: bool = True, **spec: Any) -> LoadCounts:
    """Blocking convenience: prepare (optional), run to the end, return the counts."""
    gen = LoadGenerator(conn_kwargs, LoadSpec(**spec))
    if prepare:
        gen.prepare()
    gen.start()
    return gen.wait()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--serve", metavar="JSON", help=argparse.SUPPRESS)    # LoadProcess's child
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int)
    ap.add_argument("--user", default="root")
    ap.add_argument("--password", default="")
    ap.add_argument("--mode", default="oltp", choices=list(MODES))
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--rate", type=float, default=None)
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--no-prepare", action="store_true")
    a = ap.parse_args(argv)
    if a.serve:
        serve(json.loads(a.serve))
        return
    if a.port is None:
        ap.error("--port is required")
    c = run_load({"host": a.host, "port": a.port, "user": a.user, "password": a.password},
                 prepare=not a.no_prepare, mode=a.mode, threads=a.threads, duration=a.duration,
                 rate=a.rate, rows=a.rows)
    print(f"commits={c.commits} rollbacks={c.rollbacks} statements={c.statements} errors={c.errors}")


class LoadProcess:
    """A LoadGenerator in a child process and session of its own, started on entry (once its threads
    are connected) and stopped on exit. For a harness that times the screen of another program: 64
    load threads in the harness's own process kept its reader waiting on the GIL for up to 110 ms
    after the screen was written (bench/keys), and in its own session (Linux's scheduler group)
    they would still take its turns on the CPU, as clients on other machines never do."""

    def __init__(self, conn_kwargs: dict[str, Any], spec: LoadSpec) -> None:
        self.blob = json.dumps({"conn": conn_kwargs, "spec": asdict(spec)})
        self.proc: subprocess.Popen[str] | None = None

    def __enter__(self) -> "LoadProcess":
        root = Path(__file__).resolve().parents[2]
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.support.load", "--serve", self.blob],
                                     cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     start_new_session=True)
        assert self.proc.stdout is not None
        if self.proc.stdout.readline().strip() != "ready":
            self.proc.kill()
            raise RuntimeError("the load process could not start its threads")
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is None:
            return
        assert self.proc.stdin is not None
        self.proc.stdin.close()                 # the child stops its threads at end of input
        try:
            self.proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def serve(blob: dict[str, Any]) -> None:
    """LoadProcess's child: run the load until standard input ends."""
    with LoadGenerator(blob["conn"], LoadSpec(**blob["spec"])):
        print("ready", flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
