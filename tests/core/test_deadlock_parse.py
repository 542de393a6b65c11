"""LATEST DETECTED DEADLOCK read whole: every corpus deadlock, and real ones made on MariaDB 10.11
(two rows in opposite order, a gap-lock insert, a three-way cycle), checked field by field."""

from __future__ import annotations

from pathlib import Path

import pytest

from mysqltop.core.innodb import parse_innodb_status
from mysqltop.core.innodb.deadlock import (
    GAP, INSERT_INTENTION, NEXT_KEY, RECORD, TABLE, Deadlock, DeadlockLock, parse_deadlock_section)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS = FIXTURES / "corpus" / "innodb-status"
MADE = FIXTURES / "deadlocks"


def status_deadlock(path: Path) -> Deadlock:
    d = parse_innodb_status(path.read_text()).deadlock
    assert d is not None
    return d


def lock(d: Deadlock, n: int, which: str, i: int = 0) -> DeadlockLock:
    t = next(t for t in d.transactions if t.number == n)
    return (t.holds if which == "holds" else t.waits_for)[i]


def test_every_corpus_deadlock_is_read_whole() -> None:
    """Every corpus file with the section: two or more transactions, each with a thread, a
    statement and a wait, and a victim among them."""
    files = [p for p in sorted(CORPUS.glob("*.txt")) if "LATEST DETECTED DEADLOCK" in p.read_text()]
    assert len(files) == 7
    for p in files:
        d = status_deadlock(p)
        assert not d.truncated and d.victim_trx is not None, p.name
        assert len(d.transactions) >= 2, p.name
        for t in d.transactions:
            assert t.thread_id and t.statement and t.trx_id and t.waits_for, (p.name, t.number)
            assert all(lk.trx_id == t.trx_id for lk in t.holds + t.waits_for), (p.name, t.number)


def test_mysql_57_documentation_example_wrapped_lines() -> None:
    d = status_deadlock(CORPUS / "mysql-5.7__mysql-docs__InnoDB_Monitors-5.7-example.txt")
    assert (d.time, d.thread, d.victim) == ("2014-10-16 18:36:30", "0x7fc2a95c1700", 1)
    t1, t2 = d.transactions
    assert (t1.trx_id, t1.active_s, t1.state) == ("1824", 9, "starting index read")
    assert (t1.tables_in_use, t1.tables_locked, t1.lock_structs, t1.row_locks) == (1, 1, 2, 1)
    assert (t1.thread_id, t1.query_id, t1.host, t1.user, t1.query_state) == (3, 80, "localhost", "root", "updating")
    assert t1.statement == "DELETE FROM t WHERE i = 1" and t1.holds == []
    w = lock(d, 1, "waits")
    assert (w.kind, w.mode, w.table, w.index, w.waiting, w.space, w.page) == (
        NEXT_KEY, "X", "mysql.t", "GEN_CLUST_INDEX", True, 35, 3)
    assert [(r.heap_no, r.fields) for r in w.records] == [
        (2, ["000000000200", "00000000071f", "b80000012b0110", "80000001"])]
    assert (t2.trx_id, t2.active_s, t2.lock_structs, t2.row_locks, t2.thread_id) == ("1825", 29, 4, 3, 2)
    h = lock(d, 2, "holds")
    assert (h.kind, h.mode, h.waiting) == (NEXT_KEY, "S", False)
    assert [(r.heap_no, r.supremum) for r in h.records] == [(1, True), (2, False)]
    assert lock(d, 2, "waits").mode == "X" and d.victim_trx is t1


def test_percona_55_innotop_hex_ids_backquoted_index() -> None:
    d = status_deadlock(CORPUS / "percona-5.5__innotop__innodb-status-007.txt")
    assert (d.time, d.thread, d.victim) == ("2012-09-06 06:03:32", None, 1)
    t1, t2 = d.transactions
    assert (t1.trx_id, t1.state, t1.lock_structs, t1.row_locks, t1.undo_entries) == (
        "AFB88BCF", "inserting", 2914, 231524, 270)
    assert (t1.thread_id, t1.query_id, t1.host, t1.user, t1.query_state) == (
        384855, 79940498, "10.8.0.86", "robot", "Sending data")
    assert t1.statement == "replace into foo values(1)"
    w = lock(d, 1, "waits")
    assert (w.kind, w.mode, w.table, w.index, w.space, w.page) == (RECORD, "X", "foo.foo", "PRIMARY", 3367223, 10329)
    assert (t2.trx_id, t2.state, t2.tables_in_use, t2.row_locks) == ("AFB889B6", "fetching rows", 15, 1264011)
    assert (lock(d, 2, "holds").kind, lock(d, 2, "holds").mode) == (NEXT_KEY, "S")
    assert lock(d, 2, "waits").page == 7113


def test_percona_55_toolkit_host_name_and_address() -> None:
    d = status_deadlock(CORPUS / "percona-5.5__percona-toolkit__2018_03_05_13_24_55-innodbstatus1.txt")
    assert (d.time, d.victim) == ("2018-02-27 14:45:46", 2)
    t1, t2 = d.transactions
    assert t1.host == "bm-dell05-publicwww01.bm.int.percona.com 10.10.9.210"
    assert (t1.user, t1.query_state, t1.thread_id, t2.thread_id) == ("root", "update", 29247292, 29247291)
    assert t2.statement is not None and t2.statement.startswith("INSERT INTO semaphore (name, value, expire)")
    h = lock(d, 2, "holds")
    assert (h.kind, h.mode, h.table, h.index) == (RECORD, "S", "percona_com_redesign2015.semaphore", "PRIMARY")
    assert (lock(d, 2, "waits").mode, lock(d, 1, "waits").mode) == ("X", "X")


def test_mariadb_1011_two_rows_in_opposite_order() -> None:
    d = status_deadlock(MADE / "mariadb-10.11__two-row.txt")
    assert (d.time, d.victim, len(d.transactions), d.truncated) == ("2026-11-28 01:35:29", 1, 2, False)
    t1, t2 = d.transactions
    assert (t1.trx_id, t1.thread_id, t1.host, t1.user, t1.query_state) == ("32", 7, "127.0.0.1", "root", "Updating")
    assert t1.statement == "UPDATE shop.accounts SET balance=balance+10 WHERE id=1"
    assert t2.statement == "UPDATE shop.accounts SET balance=balance+10 WHERE id=2"
    # MariaDB lists what is in the way under CONFLICTING WITH, each lock naming its owner
    assert lock(d, 1, "holds").records[0].fields[0] == "80000002" == lock(d, 2, "waits").records[0].fields[0]
    assert lock(d, 2, "holds").records[0].fields[0] == "80000001" == lock(d, 1, "waits").records[0].fields[0]
    for n in (1, 2):
        w = lock(d, n, "waits")
        assert (w.kind, w.mode, w.table, w.index, w.waiting) == (RECORD, "X", "shop.accounts", "PRIMARY", True)


def test_mariadb_1011_gap_lock_insert() -> None:
    d = status_deadlock(MADE / "mariadb-10.11__gap-insert.txt")
    assert (d.victim, [t.trx_id for t in d.transactions]) == (1, ["36", "35"])
    for n in (1, 2):
        h, w = lock(d, n, "holds"), lock(d, n, "waits")
        assert (h.kind, h.mode, h.index, h.table) == (GAP, "X", "idx_customer", "shop.orders")
        assert (w.kind, w.mode, w.waiting) == (INSERT_INTENTION, "X", True)
        assert w.records[0].fields == ["8000001e", "80000003"]   # the gap before customer 30, id 3
    assert d.transactions[0].statement == "INSERT INTO shop.orders (customer) VALUES (26)"
    assert d.transactions[0].undo_entries == 1


def test_mariadb_1011_three_way_cycle() -> None:
    d = status_deadlock(MADE / "mariadb-10.11__three-way.txt")
    assert (d.victim, len(d.transactions)) == (3, 3)
    assert [t.thread_id for t in d.transactions] == [6, 7, 8]
    wanted = {1: "80000002", 2: "80000003", 3: "80000001"}
    held = {1: "80000001", 2: "80000002", 3: "80000003"}
    for n in (1, 2, 3):
        assert lock(d, n, "waits").records[0].fields[0] == wanted[n]
        assert [h.records[0].fields[0] for h in next(t for t in d.transactions if t.number == n).holds] == [held[n]]


def test_mysql_80_holds_then_waits_per_transaction() -> None:
    d = parse_deadlock_section((MADE / "mysql-8.0__holds-then-waits.txt").read_text())
    assert (d.time, d.thread, d.victim, d.truncated) == ("2018-08-24 09:53:53", "0x7fc11c38b700", 2, False)
    t1, t2 = d.transactions
    assert t1.statement == "UPDATE animals SET value=30 WHERE name='Aardvark'"
    assert (lock(d, 1, "holds").table, lock(d, 1, "holds").mode, lock(d, 1, "holds").kind) == ("test.birds", "S", RECORD)
    assert (lock(d, 1, "waits").table, lock(d, 1, "waits").mode) == ("test.animals", "X")
    assert lock(d, 1, "waits").records[0].fields[0] == "416172647661726b"
    assert (lock(d, 2, "holds").table, lock(d, 2, "waits").table) == ("test.animals", "test.birds")
    assert d.victim_trx is t2


def test_table_locks_and_old_two_word_ids() -> None:
    body = """080610 12:00:00
*** (1) TRANSACTION:
TRANSACTION 0 1807, ACTIVE 1 sec, process no 3, OS thread id 1 inserting
MySQL thread id 1, query id 100 localhost root update
INSERT INTO t VALUES (1)
*** (1) WAITING FOR THIS LOCK TO BE GRANTED:
TABLE LOCK table `db`.`t` trx id 0 1807 lock mode AUTO-INC waiting
*** (2) TRANSACTION:
TRANSACTION 0 1808, ACTIVE 2 sec, process no 3, OS thread id 2 inserting
MySQL thread id 2, query id 101 localhost root update
INSERT INTO t VALUES (2)
*** (2) HOLDS THE LOCK(S):
TABLE LOCK table `db`.`t` trx id 0 1808 lock mode AUTO-INC
*** (2) WAITING FOR THIS LOCK TO BE GRANTED:
RECORD LOCKS space id 0 page no 50 n bits 72 index `PRIMARY` of table `db/t` trx id 0 1808 lock_mode X insert intention waiting
*** WE ROLL BACK TRANSACTION (1)
"""
    d = parse_deadlock_section(body)
    assert d.time == "2008-06-10 12:00:00" and d.victim == 1
    assert [t.trx_id for t in d.transactions] == ["0 1807", "0 1808"]
    w = lock(d, 1, "waits")
    assert (w.kind, w.mode, w.table, w.waiting) == (TABLE, "AUTO-INC", "db.t", True)
    assert (lock(d, 2, "holds").kind, lock(d, 2, "waits").kind, lock(d, 2, "waits").table) == (
        TABLE, INSERT_INTENTION, "db/t")


@pytest.mark.parametrize("cut", ["*** (2) TRANSACTION:", "*** WE ROLL BACK"])
def test_a_truncated_section_says_so(cut: str) -> None:
    body = (MADE / "mysql-8.0__holds-then-waits.txt").read_text()
    d = parse_deadlock_section(body[:body.index(cut)])
    assert d.truncated and d.victim is None
    assert d.transactions[0].statement == "UPDATE animals SET value=30 WHERE name='Aardvark'"


def test_too_deep_search_is_truncated() -> None:
    body = """2026-01-01 00:00:00 0x7f00
TOO DEEP OR LONG SEARCH IN THE LOCK TABLE WAITS-FOR GRAPH, WE WILL ROLL BACK FOLLOWING TRANSACTION
*** TRANSACTION:
TRANSACTION 99, ACTIVE 3 sec starting index read
MySQL thread id 9, OS thread handle 1, query id 5 localhost app updating
UPDATE t SET v = v + 1
"""
    d = parse_deadlock_section(body)
    assert d.too_deep and d.truncated and [t.thread_id for t in d.transactions] == [9]


def test_a_statement_is_kept_raw_and_whole() -> None:
    body = (MADE / "mysql-8.0__holds-then-waits.txt").read_text().replace(
        "UPDATE animals SET value=30 WHERE name='Aardvark'",
        "UPDATE animals\n  SET value='\x1b]0;owned\x07' -- RECORD LOCKS space id 1\nWHERE name='x'")
    t1 = parse_deadlock_section(body).transactions[0]
    assert t1.statement == "UPDATE animals\n  SET value='\x1b]0;owned\x07' -- RECORD LOCKS space id 1\nWHERE name='x'"
    assert len(t1.holds) == 1 and t1.holds[0].table == "test.birds"
