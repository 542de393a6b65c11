"""Statement digests: the delta the source takes between reads, and the top SQL a frame and a
report window make of it (hostile rows skipped)."""

from __future__ import annotations

import pytest

from mysqltop.core import top_sql
from mysqltop.sources.digest_reads import DigestBook, digest_sql


def row(digest: str, calls: int, ps: int, first_seen: float = 0.0, enabled: str = "YES") -> list:
    # [ENABLED, SCHEMA_NAME, DIGEST, DIGEST_TEXT, COUNT_STAR, SUM_TIMER_WAIT, MAX_TIMER_WAIT,
    #  SUM_ROWS_EXAMINED, SUM_ROWS_SENT, SUM_CREATED_TMP_DISK_TABLES, SUM_NO_INDEX_USED, FIRST_SEEN]
    return [enabled, "shop", digest, f"SELECT {digest}", calls, ps, 5 * 10**9, calls * 10, calls, 0, 0, first_seen]


def test_the_first_read_is_a_baseline_and_later_ones_are_changes() -> None:
    book = DigestBook()
    assert "LAST_SEEN" not in book.sql(0.0) and "LIMIT" in book.sql(0.0)
    assert book.take([row("a", 100, 10**9)], 1000.0) == []
    assert "LAST_SEEN >= FROM_UNIXTIME(999)" in book.sql(10.0)
    got = book.take([row("a", 150, 3 * 10**9), row("b", 7, 7 * 10**9, first_seen=1005.0),
                     row("c", 40, 10**9, first_seen=100.0)], 1010.0)
    # a: 50 calls, 2 ms (timers in picoseconds); b: new since the last read, whole; c: there before
    # the baseline, unknown
    assert [(r[1], r[3], r[4], r[10]) for r in got] == [("b", 7, 7.0, 10.0), ("a", 50, 2.0, 10.0)]   # most time first
    assert book.take([row("a", 10, 10**8)], 1020.0) == []          # truncated: no negative change


def test_consumer_off_is_said() -> None:
    book = DigestBook()
    assert book.take([["NO", *[None] * 11]], 1000.0) is None and book.off and not book.due(1e9)
    assert "setup_consumers" in digest_sql(None)


def test_rates_rank_by_load_and_skip_hostile_rows() -> None:
    rows = [["s", "a", "SELECT a", 100, 1000.0, 5.0, 1000, 100, 0, 0, 10.0],
            ["s", "b", "SELECT b", 10, 5000.0, 900.0, 10, 10, 2, 1, 10.0],
            "junk", ["s", "c", "x", float("nan"), 1.0, 1.0, 1, 1, 0, 0, 10.0], ["s", "d", "x", 5, 1.0, 1.0, 1, 1, 0, 0, 0]]
    got = top_sql.rates(rows)
    assert [d.digest for d in got] == ["b", "a"]
    b = got[0]
    assert b.calls_per_s == 1.0 and b.avg_ms == 500.0 and b.load == pytest.approx(0.5)
    assert b.tmp_disk_tables_per_s == pytest.approx(0.2) and b.rows_examined_per_call == 1.0
    assert top_sql.rates({"x": 1}) == []
    w = top_sql.window([got, top_sql.rates(rows[:1])], 20.0)
    assert w[0]["digest"] == "b" and w[1]["calls_per_s"] == pytest.approx(10.0)


def test_a_monitors_reads_are_not_top_sql() -> None:
    book = DigestBook()
    own = ["YES", None, "e", "SHOW ENGINE `INNODB` STATUS", 1, 10**9, 0, 0, 0, 0, 0, 1005.0]
    ps = ["YES", None, "f", "SELECT `EVENT_NAME` FROM `performance_schema` . `x`", 1, 10**9, 0, 0, 0, 0, 0, 1005.0]
    book.take([], 1000.0)
    assert [r[1] for r in book.take([own, ps, row("a", 5, 10**9, first_seen=1005.0)], 1010.0)] == ["a"]
