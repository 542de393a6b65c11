"""A deadlock story forged inside a statement stays statement text: an application writes a
third transaction, run by the DBA's session, into a comment of its own blocked statement; the
deadlock view, the snapshot line and the JSON still show the two real transactions, with the
forgery as that statement's text, and say the story is in doubt."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from mysqltop.core.innodb import parse_innodb_status
from mysqltop.views import deadlocks_text

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MARIADB = FIXTURES / "deadlocks" / "mariadb-10.11__two-row.txt"
PERCONA = FIXTURES / "corpus" / "innodb-status" / "percona-5.5__innotop__innodb-status-007.txt"
DBA_THREAD = 4242

# MariaDB 10.6+ shapes: unnumbered lock headings; the comment is closed by a line shaped as a
# record field (` 0: len 2; hex 2a2f; asc */;;`), so the statement's last line looks like the server's.
FORGED_MARIADB = """ /*
*** WAITING FOR THIS LOCK TO BE GRANTED:
RECORD LOCKS space id 5 page no 3 n bits 320 index PRIMARY of table `shop`.`accounts` trx id {own} lock_mode X locks rec but not gap waiting
*** (3) TRANSACTION:
TRANSACTION 77, ACTIVE 99 sec starting index read
mysql tables in use 1, locked 1
LOCK WAIT 3 lock struct(s), heap size 1128, 2 row lock(s), undo log entries 1
MariaDB thread id 4242, OS thread handle 1, query id 1 10.0.0.5 dba Updating
UPDATE payroll.salaries SET amount=amount*2 WHERE emp=7
*** WAITING FOR THIS LOCK TO BE GRANTED:
RECORD LOCKS space id 9 page no 3 n bits 8 index PRIMARY of table `payroll`.`salaries` trx id 77 lock_mode X locks rec but not gap waiting
*** WE ROLL BACK TRANSACTION (3)
 0: len 2; hex 2a2f; asc */;;"""

# MySQL 5.5-5.7 shapes: numbered headings.
FORGED_NUMBERED = """ /*
*** ({n}) WAITING FOR THIS LOCK TO BE GRANTED:
RECORD LOCKS space id 3367223 page no 10329 n bits 216 index `PRIMARY` of table `foo`.`foo` trx id {own} lock_mode X locks rec but not gap waiting
*** (3) TRANSACTION:
TRANSACTION 77, ACTIVE 99 sec starting index read
mysql tables in use 1, locked 1
MySQL thread id 4242, query id 1 10.0.0.5 dba updating
UPDATE payroll.salaries SET amount=amount*2 WHERE emp=7
*** (3) WAITING FOR THIS LOCK TO BE GRANTED:
RECORD LOCKS space id 9 page no 3 n bits 8 index `PRIMARY` of table `payroll`.`salaries` trx id 77 lock_mode X waiting
*** WE ROLL BACK TRANSACTION (3)
 0: len 2; hex 2a2f; asc */;;"""


def _forge(path: Path, statement: str, forged: str) -> str:
    text = path.read_text()
    assert text.count(statement + "\n") == 1
    return text.replace(statement + "\n", statement + forged + "\n")


CASES = [
    pytest.param(MARIADB, "UPDATE shop.accounts SET balance=balance+10 WHERE id=2", FORGED_MARIADB.format(own=31),
                 {7, 6}, 1, id="mariadb-in-the-second"),
    pytest.param(MARIADB, "UPDATE shop.accounts SET balance=balance+10 WHERE id=1", FORGED_MARIADB.format(own=32),
                 {7, 6}, 1, id="mariadb-in-the-victim"),
    pytest.param(PERCONA, "replace into foo values(2);", FORGED_NUMBERED.format(n=2, own="AFB889B6"),
                 {384855, 383438}, 1, id="numbered-in-the-second"),
    pytest.param(PERCONA, "replace into foo values(1)", FORGED_NUMBERED.format(n=1, own="AFB88BCF"),
                 {384855, 383438}, 1, id="numbered-in-the-victim"),
]


@pytest.mark.parametrize("path, statement, forged, threads, victim", CASES)
def test_a_forged_transaction_shows_as_statement_text_only(path: Path, statement: str, forged: str,
                                                           threads: set[int], victim: int) -> None:
    real = parse_innodb_status(path.read_text()).deadlock
    d = parse_innodb_status(_forge(path, statement, forged)).deadlock
    assert real is not None and d is not None and not real.doubtful
    assert {t.thread_id for t in d.transactions} == threads and len(d.transactions) == 2
    assert d.victim == victim and d.victim_trx is not None and d.victim_trx.thread_id != DBA_THREAD
    # the two stories agree on every lock; the forgery is the statement's text, whole
    assert [(t.trx_id, t.holds, t.waits_for) for t in d.transactions] == \
        [(t.trx_id, t.holds, t.waits_for) for t in real.transactions]
    holder = next(t for t in d.transactions if t.statement and "payroll.salaries" in t.statement)
    assert holder.statement is not None and holder.statement.startswith(statement)
    assert holder.statement.endswith("asc */;;") and "*** (3) TRANSACTION:" in holder.statement
    assert d.doubtful
    # the deadlock view, the snapshot line, the JSON
    story = "\n".join(deadlocks_text.story(d))
    assert f"thread {DBA_THREAD}" not in story and "(3)" not in story.split("runs")[0]
    assert "in doubt" in story and "forged" in deadlocks_text.one_line(d)
    as_json = dataclasses.asdict(d)
    assert as_json["doubtful"] is True and len(as_json["transactions"]) == 2
    assert DBA_THREAD not in [t["thread_id"] for t in as_json["transactions"]]


def test_every_real_deadlock_reads_without_doubt() -> None:
    paths = [*(FIXTURES / "deadlocks").glob("*.txt"), *(FIXTURES / "corpus" / "innodb-status").glob("*.txt")]
    seen = 0
    for path in paths:
        d = parse_innodb_status(path.read_text(errors="replace")).deadlock
        if d is not None and d.transactions:
            seen += 1
            assert not d.doubtful, path.name
    assert seen >= 8


def test_a_flood_of_headings_is_bounded() -> None:
    """A statement of 100 000 heading lines: read in bounded time, told as in doubt."""
    import time

    flood = " /*\n" + "*** WAITING FOR THIS LOCK TO BE GRANTED:\n" * 100_000 + "*/"
    text = _forge(MARIADB, "UPDATE shop.accounts SET balance=balance+10 WHERE id=2", flood)
    t0 = time.process_time()
    d = parse_innodb_status(text).deadlock
    assert time.process_time() - t0 < 5
    assert d is not None and d.doubtful


def test_a_later_statement_forging_an_earlier_ones_lines_is_in_doubt() -> None:
    """Text in the second statement shaped as the first transaction's locks and a new head: the
    server's lines cannot tell which reading is the server's, so the story is told in doubt."""
    forged = """ /*
*** WAITING FOR THIS LOCK TO BE GRANTED:
RECORD LOCKS space id 5 page no 3 n bits 320 index PRIMARY of table `shop`.`accounts` trx id 32 lock_mode X locks rec but not gap waiting
*** (2) TRANSACTION:
TRANSACTION 31, ACTIVE 20 sec starting index read
MariaDB thread id 4242, OS thread handle 1, query id 1 10.0.0.5 dba Updating
*/ UPDATE shop.accounts SET balance=balance+10 WHERE id=2"""
    d = parse_innodb_status(_forge(MARIADB, "UPDATE shop.accounts SET balance=balance+10 WHERE id=2", forged)).deadlock
    assert d is not None and d.doubtful and "in doubt" in "\n".join(deadlocks_text.story(d))
