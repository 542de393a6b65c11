"""Top SQL from statement digests on the throwaway MariaDB: the calls per second mysqltop reports
for a shape agree within 2 % with the count of the client that drives it and with the digest
table's own counter over the same span; with the consumer off, the sample says so and the read
stops."""

from __future__ import annotations

import threading
from typing import Any

import pymysql
import pytest

from mysqltop.sources.digest_reads import K_DIGESTS
from mysqltop.sources.mysql import MySQLSource
from mysqltop.timeline.polled import PolledTimeline

pytestmark = pytest.mark.live



def test_calls_per_second_agree_with_the_client_and_the_table(mariadb_factory: Any, monkeypatch: Any) -> None:
    from mysqltop.sources import digest_reads
    monkeypatch.setattr(digest_reads, "DIGEST_EVERY_S", 3.0)     # three spans in a short test
    db = mariadb_factory(name="digests")
    root = db.root_conn()
    with root.cursor() as c:
        for sql in ("CREATE DATABASE shop", "CREATE TABLE shop.inventory (sku INT PRIMARY KEY, qty INT)",
                    "INSERT INTO shop.inventory VALUES (1, 100), (2, 100)"):
            c.execute(sql)
    calls = [0]
    stop = threading.Event()
    go = threading.Event()          # cleared around each read: the client, the table and mysqltop
    idle = threading.Event()        # see the same statements (as sysbench's report interval would)
    conn = pymysql.connect(**db.root_kwargs(), autocommit=True)

    def run() -> None:
        with conn.cursor() as c:
            while not stop.is_set():
                if not go.is_set():
                    idle.set()
                    go.wait(0.1)
                    continue
                idle.clear()
                c.execute("SELECT qty FROM shop.inventory WHERE sku = %s", (1 + calls[0] % 2,))
                c.fetchall()
                calls[0] += 1
    t = threading.Thread(target=run, daemon=True)
    src = MySQLSource(db.options(), interval=1.0)
    src.open()
    pipe = PolledTimeline()
    spans: list[tuple[float, int, int]] = []          # (mysqltop's calls, client's, table's) per span

    def table_count() -> int:
        with root.cursor() as c:
            c.execute("SELECT COUNT_STAR FROM performance_schema.events_statements_summary_by_digest "
                      "WHERE DIGEST_TEXT LIKE 'SELECT `qty` FROM `shop` . `inventory`%'")
            row = c.fetchone()
        return int(row[0]) if row else 0
    try:
        t.start()
        last: tuple[int, int] | None = None
        for _ in range(40):
            go.clear()
            idle.wait(10)
            raw = src.read()
            client, table = calls[0], table_count()
            go.set()
            f = pipe.push(raw, advise=False)
            if raw.digests is None or K_DIGESTS not in raw.timings_ms:
                stop.wait(1.0)
                continue
            if last is not None:
                ours = next((d for d in f.digests if d.sql.startswith("SELECT `qty`")), None)
                assert ours is not None, f.digests
                spans.append((ours.calls_per_s * ours.span_s, client - last[0], table - last[1]))
            last = (client, table)
            if len(spans) >= 3:
                break
            stop.wait(1.0)
    finally:
        stop.set()
        go.set()
        t.join(10)
        conn.close()
        src.close()
        root.close()
    assert len(spans) >= 2, spans
    for ours, client, table in spans:
        assert client > 100, spans
        assert abs(ours - table) <= 0.02 * table, spans
        assert abs(ours - client) <= 0.02 * client, spans


def test_digests_off_are_said_and_not_read_again(mariadb_factory: Any) -> None:
    db = mariadb_factory(name="nodigest")
    db.query("UPDATE performance_schema.setup_consumers SET ENABLED = 'NO' WHERE NAME = 'statements_digest'")
    src = MySQLSource(db.options(), interval=1.0)
    src.open()
    try:
        first, second = src.read(), src.read()
    finally:
        src.close()
    assert K_DIGESTS in first.timings_ms and first.digests is None
    assert "statement digests are off" in second.errors[K_DIGESTS] and K_DIGESTS not in second.timings_ms
