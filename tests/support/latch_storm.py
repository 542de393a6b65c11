"""A latch storm MariaDB 10.11 measures: sessions rewriting BLOBs that InnoDB stores off-page.

    with blob_rewrites(db.root_kwargs(), sessions=16):
        ...                     # the sessions run until the block ends (then KILL QUERY, joined)

InnoDB writes an off-page column (a BLOB too large for the record) with the clustered index's tree
latch held for the whole write: an update of a record with off-page columns is always
pessimistic (row_upd_clust_rec: BTR_MODIFY_TREE, index->lock SX), and the new BLOB pages are
allocated and filled in that same mini-transaction. Two such updates of one table exclude each
other however far apart their rows are, so every session but the holder waits on
`wait/synch/sxlock/innodb/index_tree_rw_lock`, blocked (futex), not running. Each session
rewrites its own ROWS rows (no row lock between sessions) in one statement, so it stays in the
processlist from row to row and the client costs almost no CPU; rewriting, not inserting, keeps
the table at its first size (purge frees the old BLOB pages).
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from typing import Any, Iterator, Mapping

import pymysql

from tests.support.sql import end_sessions

DB = "latch_storm"
TABLE = f"{DB}.blobs"
BLOB_BYTES = 20_000       # > half a 16 KiB page: stored off-page (two BLOB pages)
ROWS = 50                 # per statement
KEY_RANGE = 10**12        # keys of session i: i * KEY_RANGE + 1 … + ROWS


def create_table(kw: Mapping[str, Any]) -> None:
    with contextlib.closing(pymysql.connect(**kw, autocommit=True)) as c, c.cursor() as cur:
        cur.execute(f"CREATE DATABASE IF NOT EXISTS {DB}")
        cur.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} (id BIGINT PRIMARY KEY, v LONGBLOB) ENGINE=InnoDB")


def fill_sql(session: int) -> str:
    """The session's ROWS rows (keys session * KEY_RANGE + 1 … + ROWS), one BLOB_BYTES value each."""
    return (f"INSERT INTO {TABLE} (id, v) SELECT {session * KEY_RANGE} + seq, REPEAT('-', {BLOB_BYTES}) "
            f"FROM {DB}.seq_1_to_{ROWS}")


def rewrite_sql(session: int, round_no: int) -> str:
    """Every row of the session a new value: a letter that differs from the last round's (a row set
    to the value it holds is not written at all). The keys are listed, not a range: a range scan
    would lock the next session's first row too (next-key), and sessions would queue on rows."""
    first = session * KEY_RANGE + 1
    keys = ", ".join(str(k) for k in range(first, first + ROWS))
    return f"UPDATE {TABLE} SET v = REPEAT(CHAR(65 + {round_no % 26}), {BLOB_BYTES}) WHERE id IN ({keys})"


@contextlib.contextmanager
def blob_rewrites(kw: Mapping[str, Any], sessions: int = 16) -> Iterator[list[int]]:
    """`sessions` connections rewriting the off-page BLOBs of their own rows of one table until
    the block ends; yields their connection ids. On the way out each running statement is killed
    and every thread joined, whatever happened."""
    create_table(kw)
    with contextlib.closing(pymysql.connect(**kw, autocommit=True)) as c, c.cursor() as cur:
        for i in range(sessions):
            cur.execute(fill_sql(i))
    stop = threading.Event()
    conns = [pymysql.connect(**kw, autocommit=True) for _ in range(sessions)]
    ids = [c.thread_id() for c in conns]

    def rewrite(session: int, conn: Any) -> None:
        with contextlib.suppress(pymysql.MySQLError), conn.cursor() as cur:
            for round_no in itertools.count():
                if stop.is_set():
                    return
                cur.execute(rewrite_sql(session, round_no))

    threads = [threading.Thread(target=rewrite, args=(i, c), daemon=True) for i, c in enumerate(conns)]
    for t in threads:
        t.start()
    try:
        yield ids
    finally:
        stop.set()
        end_sessions(kw, conns, threads)
