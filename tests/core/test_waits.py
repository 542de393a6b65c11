"""performance_schema events_waits_summary_global_by_event_name rows."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mysqltop.core.textforms import Table
from mysqltop.core.waits import WaitRow, parse_wait_rows, parse_waits_table, waits_json
from tests.support.pasted import wait_rows

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FILES = sorted((FIXTURES / "corpus" / "ps-waits").iterdir())


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_golden(path: Path) -> None:
    golden = FIXTURES / "golden" / "ps-waits" / (path.stem + ".json")
    assert waits_json(wait_rows(path.read_text()) or []) == json.loads(golden.read_text())


def test_live_rows_str_int_and_decimal() -> None:
    rows = parse_wait_rows([
        ["wait/synch/mutex/innodb/buf_pool_mutex", "48215", "156566846225", "9816", "3247051", "19755195299"],
        ["wait/synch/rwlock/innodb/fil_space_latch", 6831, 138953600286, 9816, 20341615, Decimal("10993260283")],
        ["wait/synch/cond/sql/COND_manager", 2, "NULL", 1, 2, 3],        # no SUM: skipped
        ["", 1, 2, 3, 4, 5], ["short"],
    ])
    assert rows == [
        WaitRow("wait/synch/mutex/innodb/buf_pool_mutex", 48215, 156566846225, 9816, 3247051, 19755195299),
        WaitRow("wait/synch/rwlock/innodb/fil_space_latch", 6831, 138953600286, 9816, 20341615, 10993260283),
    ]


def test_mariadb_capture_values() -> None:
    rows = {r.event_name: r for r in wait_rows(FILES[0].read_text()) or []}
    assert len(rows) == 288
    # "wait/synch/sxlock/innodb/index_tree_rw_lock	217083	799107888362	9816	3681000	47243934378"
    assert rows["wait/synch/sxlock/innodb/index_tree_rw_lock"] == WaitRow(
        "wait/synch/sxlock/innodb/index_tree_rw_lock", 217083, 799107888362, 9816, 3681000, 47243934378)


def test_docs_table_scaled_alias_is_read_in_picoseconds() -> None:
    rows = wait_rows(FILES[1].read_text())
    assert rows is not None and len(rows) == 30
    # "| wait/synch/mutex/innodb/trx_pool_mutex | 4885 | 8821.7496 |" (SUM_TIMER_WAIT_MS)
    pool = next(r for r in rows if r.event_name.endswith("/trx_pool_mutex"))
    assert (pool.count_star, pool.sum_timer_wait, pool.max_timer_wait) == (4885, 8_821_749_600_000, None)


def test_sys_schema_formatted_times() -> None:
    rows = parse_waits_table(Table(["event_name", "count_star", "sum_timer_wait", "avg_timer_wait"],
                                   [["wait/synch/mutex/innodb/log_sys_mutex", "46113", "2.04 ms", "44.31 ns"],
                                    ["wait/synch/mutex/innodb/lock_mutex", "34872", "1.04 s", "29.80 us"]]))
    assert [(r.sum_timer_wait, r.avg_timer_wait) for r in rows] == [(2_040_000_000, 44_310), (1_040_000_000_000, 29_800_000)]


def test_headerless_rows() -> None:
    t = Table(["wait/synch/mutex/innodb/buf_pool_mutex", "1", "2", "3", "4", "5"], [["junk"]])
    assert parse_waits_table(t) == [WaitRow("wait/synch/mutex/innodb/buf_pool_mutex", 1, 2, 3, 4, 5)]


def test_not_a_waits_table() -> None:
    assert wait_rows("Variable_name\tValue\nUptime\t5\n") is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.one_of(st.text(max_size=30), st.integers(), st.none(), st.booleans(),
                                   st.decimals(allow_nan=True)), max_size=8), max_size=20))
def test_random_rows_never_raise(rows) -> None:
    for r in parse_wait_rows(rows):
        assert isinstance(r.count_star, int) and isinstance(r.sum_timer_wait, int)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=1500))
def test_random_text_never_raises(text: str) -> None:
    wait_rows(text)
    wait_rows("EVENT_NAME\tCOUNT_STAR\tSUM_TIMER_WAIT_MS\n" + text)
