"""MySQL 8.0+ lock waits come from performance_schema.data_lock_waits/data_locks: no MySQL 8 server
here, so rows shaped as PyMySQL returns that statement's result on 8.0 (BIGINT trx ids, "`db`.`t`"
tables, "X,REC_NOT_GAP" modes, DATETIME/Decimal/bytes cells) go the whole way: statement choice,
plain rows, derive with a MySQL 8 status text from the corpus, JSON, the recording, a refusal."""

from __future__ import annotations

import datetime
import decimal
import json
from pathlib import Path

import pytest

from mysqltop.core.derive import derive
from mysqltop.core.parsed import parse_sample
from mysqltop.core.sample import RawSample, ServerIdentity
from mysqltop.recording.format import parse_sample_text, sample_text
from mysqltop.sources.lock_reads import (
    K_LOCK_WAITS, K_SESSIONS, LOCK_WAITS_IS_SQL, LOCK_WAITS_PS_SQL, explain_error, lock_statements, plain_rows,
)

CORPUS = Path(__file__).parents[1] / "fixtures" / "corpus" / "innodb-status"
MYSQL8_STATUS = CORPUS / "mysql-8.0.3x__datadog__innodb_status_mysql_80.txt"


@pytest.mark.parametrize("flavor, version, ps", [
    ("mysql", (8, 0, 36), LOCK_WAITS_PS_SQL), ("percona", (8, 0, 32), LOCK_WAITS_PS_SQL),
    ("mysql", (8, 4, 0), LOCK_WAITS_PS_SQL), ("mysql", (5, 7, 44), LOCK_WAITS_IS_SQL),
    ("mariadb", (10, 11, 6), LOCK_WAITS_IS_SQL), ("mariadb", (11, 4, 2), LOCK_WAITS_IS_SQL)])
def test_mysql8_reads_lock_waits_from_performance_schema(flavor: str, version: tuple[int, ...], ps: str) -> None:
    stmts = dict(lock_statements(flavor, version, True))
    assert stmts[K_LOCK_WAITS] == ps
    if ps is LOCK_WAITS_PS_SQL:
        assert "performance_schema.data_lock_waits" in ps and "performance_schema.data_locks" in ps
        assert "INNODB_LOCK_WAITS" not in ps and "INNODB_LOCKS" not in ps    # gone in 8.0


def _row(w_trx: int, w_thr: int, wait_s: int, b_trx: int, b_thr: int, *, mode: str = "X,REC_NOT_GAP",
         b_cmd: str = "Sleep", b_sql: object = None) -> tuple:
    """One row of LOCK_WAITS_PS_SQL as PyMySQL gives it on MySQL 8.0 (column order of the statement)."""
    return (w_trx, w_thr, "app", "10.0.0.5:4711", wait_s, b"UPDATE accounts SET balance = balance - 1 WHERE id = 7",
            b_trx, b_thr, "batch", "10.0.0.9:1234", decimal.Decimal(42), "RUNNING", b_cmd, b_sql,
            "`shop`.`accounts`", "PRIMARY", mode, "RECORD")


def mysql8_rows() -> list[tuple]:
    # trx 421 (thread 57) holds id=7; 422 and 423 wait for it; 423 also queued behind 422 (the
    # statement keeps that edge out, as here); 430 waits on a gap lock of 429 (thread 60)
    return [_row(422, 58, 12, 421, 57), _row(423, 59, 4, 421, 57),
            _row(430, 61, 2, 429, 60, mode="X,GAP", b_cmd="Query", b_sql="INSERT INTO accounts VALUES (8)")]


def test_mysql8_rows_become_the_blocking_tree_with_the_right_blocker() -> None:
    rows = plain_rows(mysql8_rows())
    assert rows[0][5].startswith("UPDATE accounts") and rows[0][10] == 42    # bytes → text, Decimal → int
    raw = RawSample(wall=1_790_000_000.0, mono=100.0, server=ServerIdentity("8.0.36", "mysql", "db8:3306"),
                    innodb_status=MYSQL8_STATUS.read_text(), lock_waits=rows,
                    transactions=[[421, 57, "batch", "10.0.0.9:1234", "RUNNING", 42, 1, 1, 2, "REPEATABLE READ",
                                   "Sleep", None, None]])
    frame = derive(None, parse_sample(raw))
    assert [b.thread_id for b in frame.blocking] == [57, 60]         # two sessions behind 57 first
    top = frame.blocking[0]
    assert top.blocked == 2 and top.kill == "KILL 57" and top.trx_age_s == 42 and top.command == "Sleep"
    assert [w.thread_id for w in top.waiters] == [58, 59]            # longest wait first
    w = top.waiters[0]
    assert (w.lock_table, w.lock_index, w.lock_mode, w.lock_type, w.waiting_s) == \
        ("`shop`.`accounts`", "PRIMARY", "X,REC_NOT_GAP", "RECORD", 12)
    assert frame.blocking[1].waiters[0].lock_mode == "X,GAP"
    d = json.loads(json.dumps(frame.to_dict()))
    assert d["blocking"][0]["kill"] == "KILL 57" and d["blocking"][0]["waiters"][0]["lock_table"] == "`shop`.`accounts`"
    assert frame.transactions and frame.transactions[0].thread_id == 57


def test_mysql8_rows_survive_the_recording() -> None:
    rows = plain_rows([*mysql8_rows(), (1, 2, datetime.datetime(2026, 11, 23, 10, 0), *([None] * 15))])
    raw = RawSample(wall=1_790_000_000.0, mono=100.0, lock_waits=rows)
    back = parse_sample_text(sample_text(raw), raw.wall, raw.mono, raw.server, raw.variables)
    assert back.lock_waits == rows and back.lock_waits[-1][2] == "2026-11-23 10:00:00"


def test_a_refused_data_lock_waits_names_the_performance_schema_grant() -> None:
    """MySQL 8 names only the table in a table-level refusal (1142): the fix is SELECT on
    performance_schema, not PROCESS (which INNODB_TRX needs, refused as 1227)."""
    grantee = "'mon'@'%'"
    msg = explain_error(K_LOCK_WAITS, 1142, "SELECT command denied to user 'mon'@'10.0.0.1' for table "
                        "'data_lock_waits'", grantee)
    assert msg.endswith(f"run GRANT SELECT ON performance_schema.* TO {grantee};")
    msg = explain_error(K_LOCK_WAITS, 1227, "Access denied; you need (at least one of) the PROCESS privilege(s) "
                        "for this operation", grantee)
    assert msg.endswith(f"run GRANT PROCESS ON *.* TO {grantee};")
    assert explain_error(K_SESSIONS, 1142, "SELECT command denied … for table 'threads'", grantee).endswith(
        f"GRANT SELECT ON performance_schema.* TO {grantee};")
