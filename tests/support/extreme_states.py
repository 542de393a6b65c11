"""Extreme server states for the bound tests and bench/extremes: many idle sessions, open
transactions, a lock-wait flood on one row, a huge table cache, a huge statement in the
processlist. Each state is held by connections of this process until `release()`.

    with ExtremeState(db) as st:
        st.sessions(3000)            # connected, idle
        st.open_transactions(1000)   # each holds a row lock of its own, ACTIVE
        st.lock_flood(250)           # a holder and 250 waiters on one row: n(n+1)/2 wait pairs
        st.tables(100_000)           # that many tables opened once (in the table cache)
        st.huge_statement(50 << 20)  # a statement of that many bytes, running
Statements whose answer would block are sent without reading it (the session then waits on
the server, not on this process).

Run as `python -m tests.support.extreme_states PORT KIND N` it builds one state, prints "ready"
and holds it until its standard input closes (bench/extremes measures the monitor in another
process, so the holder's memory is not counted as the monitor's).
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from tests.support.mariadb import TEST_DB

# What the server must allow for the full-size states (bench/extremes starts it with these).
SERVER_ARGS = ("--max-connections=3600", "--open-files-limit=20000", "--table-open-cache=110000",
               "--table-definition-cache=110000", "--max-allowed-packet=128M", "--innodb-lock-wait-timeout=3600",
               "--thread-cache-size=0", "--performance-schema-max-thread-instances=4000",
               "--performance-schema-max-table-instances=1000", "--skip-sync-frm")
FLOOD_TABLE = f"{TEST_DB}.flood"
TRX_TABLE = f"{TEST_DB}.open_trx"


def _connect(port: int, **kw: Any) -> Any:
    import pymysql

    return pymysql.connect(host="127.0.0.1", port=port, user="root", password="", autocommit=True,
                           connect_timeout=30, **kw)


def _send(conn: Any, sql: str) -> None:
    """Send a statement and leave its answer unread (it may wait on a lock for as long as held)."""
    from pymysql.constants import COMMAND

    conn._execute_command(COMMAND.COM_QUERY, sql.encode())


class ExtremeState:
    def __init__(self, port: int) -> None:
        self.port = port
        self.conns: list[Any] = []

    def _many(self, n: int, **kw: Any) -> list[Any]:
        out: list[Any] = []
        lock = threading.Lock()

        def work(k: int) -> None:
            got = [_connect(self.port, **kw) for _ in range(k)]
            with lock:
                out.extend(got)

        threads = [threading.Thread(target=work, args=(n // 8 + (i < n % 8),)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.conns += out
        return out

    def sessions(self, n: int) -> None:
        self._many(n)

    def open_transactions(self, n: int) -> None:
        root = _connect(self.port)
        with root.cursor() as cur:
            cur.execute(f"CREATE TABLE IF NOT EXISTS {TRX_TABLE} (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
            cur.execute(f"INSERT IGNORE INTO {TRX_TABLE} SELECT seq, 0 FROM {TEST_DB}.seq_1_to_{max(n, 1)}")
        root.close()
        for i, conn in enumerate(self._many(n), 1):
            with conn.cursor() as cur:
                cur.execute("BEGIN")
                cur.execute(f"UPDATE {TRX_TABLE} SET v = v + 1 WHERE id = {i}")

    def lock_flood(self, waiters: int) -> None:
        root = _connect(self.port)
        with root.cursor() as cur:
            cur.execute(f"CREATE TABLE IF NOT EXISTS {FLOOD_TABLE} (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
            cur.execute(f"INSERT IGNORE INTO {FLOOD_TABLE} VALUES (1, 0)")
        root.close()
        (holder,) = self._many(1)
        with holder.cursor() as cur:
            cur.execute("BEGIN")
            cur.execute(f"SELECT * FROM {FLOOD_TABLE} WHERE id = 1 FOR UPDATE")
            cur.fetchall()
        for conn in self._many(waiters):
            _send(conn, f"UPDATE {FLOOD_TABLE} SET v = v + 1 WHERE id = 1")

    def tables(self, n: int, batch: int = 500) -> None:
        """n tables opened once: the Sequence engine's seq_1_to_K, a table of its own for each K,
        made when first opened (no file to write, so 100,000 take seconds, not an hour)."""
        from pymysql.constants import CLIENT

        conn = _connect(self.port, client_flag=CLIENT.MULTI_STATEMENTS)
        for start in range(1, n + 1, batch):
            with conn.cursor() as cur:
                cur.execute(";".join(f"SELECT * FROM {TEST_DB}.seq_1_to_{k} LIMIT 0"
                                     for k in range(start, min(n + 1, start + batch))))
                while cur.nextset():
                    pass
        self.conns.append(conn)

    def huge_statement(self, size: int) -> None:
        (conn,) = self._many(1, max_allowed_packet=size + (1 << 20))
        _send(conn, f"SELECT SLEEP(3600) /* {'x' * size} */")

    def release(self) -> None:
        for conn in self.conns:
            try:
                conn._force_close() if hasattr(conn, "_force_close") else conn.close()
            except Exception:  # noqa: BLE001 - a session the server dropped
                pass
        self.conns = []

    def __enter__(self) -> "ExtremeState":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def main(argv: list[str]) -> int:
    port, kind, n = int(argv[0]), argv[1], int(argv[2])
    state = ExtremeState(port)
    getattr(state, kind)(n)
    print("ready", flush=True)
    sys.stdin.read()
    state.release()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
