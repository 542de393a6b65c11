"""rows r/s without the monitor's own reads (MariaDB's Rows_read also counts the rows of
mysqltop's information_schema / performance_schema statements): an idle server shows rows r/s ≈ 0
and rows changed ≈ 0, and a known scan between two polls is counted whole, not less."""

from __future__ import annotations

import time

import pytest

from mysqltop.timeline.polled import PolledTimeline
from mysqltop.engine import Engine
from tests.live.test_accuracy import delta, open_source

pytestmark = pytest.mark.live
ROWS = 3000


def test_idle_server_reads_no_rows_and_a_known_scan_is_counted(mariadb_factory) -> None:  # type: ignore[no-untyped-def]
    db = mariadb_factory(name="ownrows")                 # nobody else on it: idle means idle
    conn = db.root_conn()
    source = open_source(db, 0.5)
    try:
        with conn.cursor() as cur:
            cur.execute("CREATE TABLE mysqltop_test.own_rows (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
            cur.executemany("INSERT INTO mysqltop_test.own_rows VALUES (%s, %s)", [(i, i) for i in range(ROWS)])
        engine = Engine(source, PolledTimeline())
        frames, raws = [], []
        for _ in range(7):
            frames.append(engine.step())
            raws.append(engine.last_raw)
            time.sleep(0.5)
        for f, raw in list(zip(frames, raws))[2:]:        # past the first polls (variables, connect)
            t = f.throughput
            assert raw.own_rows_read is not None and raw.global_status.get("Rows_read") is not None
            # without the correction this read hundreds of rows/s (the poll's own I_S/P_S reads)
            assert t.rows_read_per_s is not None and delta(f, t.rows_read_per_s) <= 5, raw.own_rows_read
            assert t.rows_changed_per_s is not None and delta(f, t.rows_changed_per_s) <= 5
            assert t.qps == 0

        # one full scan of ROWS rows from another session between two polls: counted, not hidden
        with conn.cursor() as cur:
            cur.execute("SELECT COUNT(*) FROM mysqltop_test.own_rows WHERE v + 0 >= 0")
            assert cur.fetchone()[0] == ROWS
        f = engine.step()
        read = delta(f, f.throughput.rows_read_per_s)
        assert ROWS * 0.98 <= read <= ROWS * 1.02 + 5, (read, engine.last_raw.own_rows_read)
    finally:
        conn.close()
        source.close()
