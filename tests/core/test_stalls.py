"""Stall roots from the rows a server gives, MySQL 8 included (no MySQL 8 server here: rows shaped as
its performance_schema.metadata_locks / data_lock_waits statements return them). Pure."""

from __future__ import annotations

from dataclasses import replace

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mysqltop.core import stall_rows, stalls
from mysqltop.core.advice import advise
from mysqltop.core.derive import derive
from mysqltop.core.frame import Frame, Throughput
from mysqltop.core.parsed import parse_sample
from mysqltop.core.report_builder import build_report
from mysqltop.core.sample import RawSample, ServerIdentity
from mysqltop.recording.format import parse_sample_text, sample_text
from mysqltop.sources.lock_reads import (
    K_LOCK_SESSIONS, K_METADATA_LOCKS, LOCK_SESSIONS_PS, METADATA_LOCKS_PLUGIN, METADATA_LOCKS_PS, reads,
)
from mysqltop.views.headless import text_frame
from mysqltop.views.locks_text import kill_line
from tests.core.test_locks_mysql8 import MYSQL8_STATUS, mysql8_rows
from mysqltop.sources.lock_reads import plain_rows

MYSQL8 = ServerIdentity("8.0.36", "mysql", "db8:3306")
MDL = "Waiting for table metadata lock"


def sess(tid: int, command: str, state: str, time_s: int, *, trx_age: int | None = None, sql: str | None = None,
         user: str = "app", host: str = "10.0.0.5:4711", trx_state: str | None = None) -> list:
    """One lock_sessions row (sources/lock_reads.py shape)."""
    return [tid, user, host, "shop", command, state, time_s, sql, trx_age,
            trx_state or ("RUNNING" if trx_age is not None else None), None, None]


def mdl(tid: int, obj: str, schema: str | None, name: str | None, mode: str, status: str = "GRANTED",
        duration: str = "TRANSACTION") -> list:
    """One metadata_locks row as METADATA_LOCKS_PS returns it on MySQL 8."""
    return ["performance_schema", tid, obj, schema, name, mode, status, duration]


def frame_of(lock_sessions: list, metadata: list | None, server: ServerIdentity = MYSQL8,
             lock_waits: list | None = None, wall: float = 1_790_000_100.0) -> Frame:
    raw = RawSample(wall=wall, mono=wall - 1_789_999_000.0, server=server, lock_waits=lock_waits or [],
                    lock_sessions=lock_sessions, metadata_locks=metadata, session_states=[])
    prev = RawSample(wall=wall - 1, mono=wall - 1_789_999_001.0, server=server, lock_waits=[], session_states=[])
    return derive(parse_sample(prev), parse_sample(raw))


def first(frame: Frame):
    out = advise([frame], {})
    assert out, "no finding"
    return out[0]


# ---- statement choice ----------------------------------------------------------------------------
@pytest.mark.parametrize("flavor, version, ps, plugin, want", [
    ("mysql", (8, 0, 36), True, False, METADATA_LOCKS_PS), ("mysql", (5, 7, 44), True, False, METADATA_LOCKS_PS),
    ("mariadb", (10, 11, 6), True, False, METADATA_LOCKS_PS), ("mariadb", (10, 11, 6), True, True, METADATA_LOCKS_PLUGIN),
    ("mariadb", (10, 11, 6), False, True, METADATA_LOCKS_PLUGIN), ("mariadb", (10, 4, 30), True, False, None),
    ("mysql", (8, 0, 36), False, False, None)])
def test_metadata_lock_statement_per_server(flavor, version, ps, plugin, want) -> None:
    r = reads(flavor, version, ps, plugin)
    assert r.metadata_locks is want
    assert (r.lock_sessions is LOCK_SESSIONS_PS) == ps          # else built from SHOW PROCESSLIST's rows
    for sel in (x for x in (r.metadata_locks, r.lock_sessions) if x is not None):
        assert "CONNECTION_ID()" in sel.sql                     # never the monitor's own session
        assert "ORDER BY" not in sel.sql and "GROUP BY" not in sel.sql and "information_schema.PROCESSLIST" not in sel.sql


def test_holder_reads_go_in_the_second_trip_only_while_a_session_waits() -> None:
    from mysqltop.sources.capabilities import Capabilities
    from mysqltop.sources.poll_statements import Poll, StatementPlan

    caps = Capabilities(flavor="mariadb", version="10.11.6-MariaDB", version_tuple=(10, 11, 6), version_comment="",
                        hostname="db1", current_user="m@%", address="db1:3306", performance_schema_on=True,
                        performance_schema=True, synch_instruments_total=0, synch_instruments_enabled=0, mutex_rows=0,
                        poll_mutex=False, metrics_column=None, local=False, mysqld_pid=None)
    plan = StatementPlan(caps, 5, mdl_plugin=True)
    status = [["Innodb_row_lock_current_waits", "0"]]
    idle = Poll(values={"global_status": status, "innodb_status": [["InnoDB", "", "---TRANSACTION 1, ACTIVE 1 sec"]],
                        "sessions": [[7, "app", "h", "db", "Query", "Sending data", 1, "SELECT 1"]]})
    assert [k for k, _ in plan.second_trip(idle)] == []
    mdl = Poll(values={**idle.values, "sessions": [[7, "app", "h", "db", "Query", MDL, 9, "SELECT 1"]]})
    assert [k for k, _ in plan.second_trip(mdl)] == ["transactions", K_LOCK_SESSIONS, K_METADATA_LOCKS]


# ---- MySQL 8: performance_schema names every holder ----------------------------------------------
def test_mysql8_metadata_lock_root_is_the_idle_transaction_not_the_alter() -> None:
    sessions = [sess(58, "Query", MDL, 40, sql="ALTER TABLE accounts ADD COLUMN c INT"),
                sess(59, "Query", MDL, 38, sql="SELECT * FROM accounts WHERE id = 1"),
                sess(60, "Query", MDL, 37, sql="SELECT * FROM accounts WHERE id = 2"),
                sess(57, "Sleep", "", 45, trx_age=46, user="batch"),
                sess(61, "Query", "Sending data", 50, trx_age=50, sql="SELECT SUM(x) FROM orders")]
    locks = [mdl(57, "TABLE", "shop", "accounts", "SHARED_READ"),
             mdl(58, "TABLE", "shop", "accounts", "SHARED_UPGRADABLE"),
             mdl(58, "TABLE", "shop", "accounts", "EXCLUSIVE", "PENDING"),
             mdl(59, "TABLE", "shop", "accounts", "SHARED_READ", "PENDING"),
             mdl(60, "TABLE", "shop", "accounts", "SHARED_READ", "PENDING"),
             mdl(61, "TABLE", "shop", "orders", "SHARED_READ"),
             mdl(58, "GLOBAL", None, None, "INTENTION_EXCLUSIVE", duration="STATEMENT")]
    f = frame_of(sessions, locks)
    st0 = f.stalls[0]
    assert (st0.kind, st0.root.thread_id, st0.source, st0.waiting) == ("metadata_lock", 57, "performance_schema", 3)
    assert st0.on == "the metadata lock on `shop`.`accounts`" and st0.root.lock_mode == "SHARED_READ"
    a = first(f)
    assert a.id == "stall_metadata_lock" and a.severity == "critical"
    assert "thread 57 batch@10.0.0.5" in a.message and "KILL 57" in a.message and "idle 45 s" in a.message
    assert "KILL 58" not in a.message and "thread 61" not in a.message
    assert kill_line(f) == "KILL 57;"
    # the tree is the wait-for graph reversed: the readers queue behind the ALTER's pending EXCLUSIVE
    tree = f.metadata_blocking[0]
    assert tree.thread_id == 57 and [w.thread_id for w in tree.waiters] == [58]
    assert [w.thread_id for w in tree.waiters[0].waiters] == [59, 60] and tree.depth == 2
    assert f.locks.waiting_sessions == 3 and f.locks.longest_wait_s == 40 and f.locks.waiting_ms_per_s == 3000.0


def test_mysql8_global_read_lock_root_is_the_flush_not_a_running_writer() -> None:
    sessions = [sess(71, "Query", "Waiting for global read lock", 12, sql="UPDATE t SET v = 1"),
                sess(72, "Query", "Waiting for global read lock", 11, sql="UPDATE t SET v = 2"),
                sess(73, "Query", "updating", 1, trx_age=1, sql="UPDATE u SET v = 3"),
                sess(70, "Sleep", "", 13, user="backup")]
    locks = [mdl(70, "GLOBAL", None, None, "SHARED", duration="EXPLICIT"),
             mdl(70, "COMMIT", None, None, "SHARED", duration="EXPLICIT"),
             mdl(73, "GLOBAL", None, None, "INTENTION_EXCLUSIVE", duration="STATEMENT"),
             mdl(71, "GLOBAL", None, None, "INTENTION_EXCLUSIVE", "PENDING", "STATEMENT"),
             mdl(72, "GLOBAL", None, None, "INTENTION_EXCLUSIVE", "PENDING", "STATEMENT")]
    a = first(frame_of(sessions, locks))
    assert a.id == "stall_global_read_lock" and "thread 70 backup@" in a.message and "KILL 70" in a.message
    assert "KILL 73" not in a.message


def test_mysql8_user_lock_root_holds_the_very_lock_waited_for() -> None:
    sessions = [sess(81, "Query", "User lock", 30, sql="SELECT GET_LOCK('job', 100)"),
                sess(82, "Query", "User lock", 29, sql="SELECT GET_LOCK('job', 100)"),
                sess(83, "Sleep", "", 100), sess(80, "Sleep", "", 31)]
    locks = [mdl(83, "USER LEVEL LOCK", None, "other", "SHARED_NO_WRITE", duration="EXPLICIT"),
             mdl(80, "USER LEVEL LOCK", None, "job", "SHARED_NO_WRITE", duration="EXPLICIT"),
             mdl(81, "USER LEVEL LOCK", None, "job", "SHARED_NO_WRITE", "PENDING", "EXPLICIT"),
             mdl(82, "USER LEVEL LOCK", None, "job", "SHARED_NO_WRITE", "PENDING", "EXPLICIT")]
    f = frame_of(sessions, locks)
    a = first(f)
    assert a.id == "stall_user_lock" and "KILL 80" in a.message and "'job'" in a.message and "KILL 83" not in a.message


def test_mysql8_lock_tables_is_its_own_class() -> None:
    sessions = [sess(91, "Query", MDL, 9), sess(92, "Query", MDL, 8), sess(90, "Sleep", "", 10)]
    locks = [mdl(90, "TABLE", "shop", "t", "SHARED_NO_READ_WRITE"),
             mdl(91, "TABLE", "shop", "t", "SHARED_READ", "PENDING"), mdl(92, "TABLE", "shop", "t", "SHARED_READ", "PENDING")]
    a = first(frame_of(sessions, locks))
    assert a.id == "stall_table_lock" and "KILL 90" in a.message and "UNLOCK TABLES" in a.message


def test_running_alter_that_blocks_is_let_finish() -> None:
    sessions = [sess(101, "Query", MDL, 20, sql="INSERT INTO t VALUES (1)"),
                sess(102, "Query", MDL, 19, sql="INSERT INTO t VALUES (2)"),
                sess(100, "Query", "copy to tmp table", 25, sql="ALTER TABLE t FORCE")]
    locks = [mdl(100, "TABLE", "shop", "t", "SHARED_NO_WRITE"),
             mdl(101, "TABLE", "shop", "t", "SHARED_WRITE", "PENDING"), mdl(102, "TABLE", "shop", "t", "SHARED_WRITE", "PENDING")]
    a = first(frame_of(sessions, locks))
    assert a.id == "stall_running_ddl" and "let it finish" in a.message and "thread 100 " in a.message
    assert "ALTER TABLE t FORCE" in a.evidence


def test_mysql8_row_lock_stall_from_data_lock_waits_rows() -> None:
    raw = RawSample(wall=1_790_000_000.0, mono=100.0, server=MYSQL8, innodb_status=MYSQL8_STATUS.read_text(),
                    lock_waits=plain_rows(mysql8_rows()), lock_sessions=[sess(57, "Sleep", "", 40, trx_age=42)])
    prev = RawSample(wall=1_789_999_999.0, mono=99.0, server=MYSQL8, innodb_status=MYSQL8_STATUS.read_text())
    f = derive(parse_sample(prev), parse_sample(raw))
    a = first(f)
    assert a.id == "stall_row_lock" and "thread 57 batch@10.0.0.9" in a.message and "idle 40 s" in a.message
    assert "`shop`.`accounts` (PRIMARY)" in a.message and "KILL 58" not in a.message
    # in progress: 12 s and 4 s waits each waited the whole second; the counters said nothing
    assert f.locks.row_lock_wait_ms_per_s == 3000.0 and f.locks.waiting_sessions == 3


# ---- nothing listed: inferred, and said so -------------------------------------------------------
def test_inferred_metadata_holder_is_candidates_oldest_first_with_no_kill() -> None:
    sessions = [sess(7, "Query", MDL, 30), sess(8, "Query", MDL, 29),
                sess(5, "Sleep", "", 500),                    # a pool's idle connection, no transaction
                sess(6, "Sleep", "", 31, trx_age=33),         # the idle transaction
                sess(9, "Sleep", "", 2, trx_age=3)]           # a transaction younger than the first wait
    f = frame_of(sessions, [["instrument_off", None, None, None, None, None, None, None]],
                 ServerIdentity("10.11.6-MariaDB", "mariadb", "db1:3306"))
    a = first(f)
    st0 = f.stalls[0]
    assert st0.certainty is stalls.Certainty.INFERRED and st0.root is None
    assert [c.thread_id for c in st0.candidates] == [6, 5, 9]     # the transaction first, then the rest
    assert all(c.kill is None for c in st0.candidates) and kill_line(f) is None
    assert a.id == "stall_metadata_lock" and "inferred" in a.message and not re.search(r"KILL \d", a.message)
    assert a.message.index("thread 6 ") < a.message.index("thread 5 ") < a.message.index("thread 9 ")
    assert "INSTALL SONAME 'metadata_lock_info'" in a.evidence
    d = json.loads(json.dumps(f.to_dict()))
    assert d["stalls"][0]["certainty"] == "inferred" and d["stalls"][0]["root"] is None
    assert [c["thread_id"] for c in d["stalls"][0]["candidates"]] == [6, 5, 9]
    text = text_frame(f)
    assert not re.search(r"KILL \d", text) and "holder inferred" in text and "threads 6, 5, 9" in text
    f2 = frame_of(sessions, None, MYSQL8)
    assert "wait/lock/metadata/sql/mdl" in (f2.stalls[0].hint or "")


def test_inferred_global_holder_lists_every_idle_session_no_kill() -> None:
    sessions = [sess(21, "Query", "Waiting for backup lock", 20), sess(22, "Query", "Waiting for backup lock", 19),
                sess(5, "Sleep", "", 900), sess(20, "Sleep", "", 21), sess(23, "Sleep", "", 3)]
    f = frame_of(sessions, None, ServerIdentity("10.11.6-MariaDB", "mariadb", "db1:3306"))
    a = first(f)
    assert a.id == "stall_global_read_lock" and not re.search(r"KILL \d", a.message)
    assert [c.thread_id for c in f.stalls[0].candidates] == [5, 20, 23]


def test_no_candidate_says_the_holder_is_not_visible() -> None:
    a = first(frame_of([sess(7, "Query", MDL, 30), sess(8, "Query", MDL, 29)], None))
    assert a.id == "stall_metadata_lock" and "the holder is not visible" in a.message
    assert "wait/lock/metadata/sql/mdl" in a.message and "nothing stands out" not in a.message


def test_innodb_queue_names_the_setting_not_a_session() -> None:
    sessions = [sess(i, "Query", "waiting in InnoDB queue", 8) for i in range(30, 40)]
    f = frame_of(sessions, None)
    a = first(f)
    assert a.id == "stall_innodb_queue" and "innodb_thread_concurrency = 0" in a.message and "KILL" not in a.message


# ---- thresholds, hostile text, recording -----------------------------------------------------------
def test_short_waits_are_no_stall() -> None:
    f = frame_of([sess(7, "Query", MDL, 3), sess(6, "Sleep", "", 4, trx_age=5)], None)
    assert f.stalls and not f.stalls[0].is_stall and not advise([f], {})
    f1 = frame_of([sess(7, "Query", MDL, 25), sess(6, "Sleep", "", 26, trx_age=26)], None)
    assert first(f1).id == "stall_metadata_lock"             # one session for 25 s is one


def test_hostile_names_and_statements_stay_data() -> None:
    evil = "x\x1b[2J\x1b]0;owned\x07[bold]y[/]"
    sessions = [sess(7, "Query", MDL, 30, sql=evil), sess(8, "Query", MDL, 29),
                sess(6, "Sleep", "", 31, trx_age=33, user=evil, host=evil + ":1", sql=evil)]
    f = frame_of(sessions, [mdl(6, "TABLE", evil, evil, "SHARED_NO_READ_WRITE"),
                            mdl(7, "TABLE", evil, evil, "SHARED_READ", "PENDING")])
    a = first(f)
    for text in (a.message, a.evidence, text_frame(f)):
        assert "\x1b" not in text and "\x07" not in text and "\\x1b[2J" in text
    assert "KILL 6" in a.message


def test_rows_survive_the_recording() -> None:
    sessions = [sess(7, "Query", MDL, 30), sess(6, "Sleep", "", 31, trx_age=33)]
    locks = [mdl(6, "TABLE", "shop", "t", "SHARED_READ")]
    raw = RawSample(wall=1.0, mono=1.0, lock_sessions=sessions, metadata_locks=locks)
    back = parse_sample_text(sample_text(raw), raw.wall, raw.mono, raw.server, raw.variables)
    assert back.lock_sessions == sessions and back.metadata_locks == locks


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 40), st.sampled_from(["Sleep", "Query"]),
                          st.sampled_from(["", MDL, "Waiting for backup lock", "User lock", "Sending data"]),
                          st.integers(0, 100), st.one_of(st.none(), st.integers(0, 100))), max_size=30),
       st.lists(st.tuples(st.integers(1, 40), st.sampled_from(["TABLE", "BACKUP", "USER LEVEL LOCK", "GLOBAL"]),
                          st.sampled_from(["SHARED_READ", "SHARED", "BACKUP_FTWRL1", "SHARED_NO_WRITE", "EXCLUSIVE"]),
                          st.booleans()), max_size=30))
def test_a_waiter_is_never_the_root(rows, locks) -> None:
    sessions = [sess(t, c, s, n, trx_age=a) for t, c, s, n, a in rows]
    md = [mdl(t, o, "d", "n", m, "GRANTED" if g else "PENDING") for t, o, m, g in locks]
    found = stalls.find([], sessions, md or None, "mysql", 1000.0)
    waiting = {r.thread_id for r in stall_rows.lock_sessions(sessions) if r.kind is not None}
    for s in found:
        assert s.root is None or s.root.thread_id not in waiting


def judged(frames: list[Frame]) -> list[Frame]:
    """Each frame with the findings over the frames up to it, as a timeline shows them."""
    from mysqltop.core.advice import advise
    from mysqltop.timeline.judge import Judgement, compose

    return [compose(f, Judgement(tuple(advise(frames[:i + 1], {})))) for i, f in enumerate(frames)]


# ---- report: the story first, also when the window starts inside the stall -----------------------
def test_report_headline_dates_a_stall_that_began_before_the_window() -> None:
    frames = []
    for i in range(12):
        t = 1_790_000_100.0 + i
        stalled = i < 8
        sessions = ([sess(7, "Query", MDL, 60 + i), sess(8, "Query", MDL, 59 + i),
                     sess(6, "Sleep", "", 61 + i, trx_age=62 + i)] if stalled else [])
        f = frame_of(sessions, [mdl(6, "TABLE", "shop", "t", "SHARED_READ"),
                                mdl(7, "TABLE", "shop", "t", "EXCLUSIVE", "PENDING")] if stalled else None, wall=t)
        frames.append(replace(f, throughput=Throughput(tps=0.0, committed_per_s=0.0 if stalled else 900.0)))
    frames = judged(frames)
    r = build_report(frames)
    assert r.headline is not None and r.headline.startswith("STALL ")
    assert "(before this window)" in r.headline and "root thread 6" in r.headline and "KILL 6" in r.headline
    assert "during 0 → after 900" in r.headline
    ep = r.stalls[0]
    assert ep.start == pytest.approx(1_790_000_100.0 - 60) and not ep.open and ep.root_thread_id == 6
    assert r.advice[0].id == "stall_metadata_lock"
    d = json.loads(json.dumps(r.to_dict()))
    assert d["stalls"][0]["root_thread_id"] == 6 and d["headline"] == r.headline


def test_one_waiter_is_a_stall_when_committed_throughput_collapsed() -> None:
    frames = []
    for i in range(10):
        t = 1_790_000_100.0 + i
        waits = i >= 4
        sessions = [sess(7, "Query", MDL, i - 3), sess(6, "Sleep", "", i - 2, trx_age=i)] if waits else []
        f = frame_of(sessions, None, wall=t)
        frames.append(replace(f, throughput=Throughput(tps=0.0, committed_per_s=0.0 if waits else 5000.0)))
    assert frames[-1].stalls and not frames[-1].stalls[0].is_stall          # one waiter, 6 s: no pile
    out = advise(frames, {})
    assert out and out[0].id == "stall_metadata_lock" and "5,000 before → 0 during" in out[0].evidence
    assert not [a for a in advise(frames[:8], {}) if a.id.startswith("stall_")]     # 4 s: not yet


def test_report_text_opens_with_the_stall_and_says_the_window_started_inside_it() -> None:
    from mysqltop.views.report_text import render

    frames = []
    for i in range(8):
        sessions = [sess(7, "Query", MDL, 60 + i), sess(8, "Query", MDL, 59 + i), sess(6, "Sleep", "", 61 + i, trx_age=62 + i)]
        f = frame_of(sessions, [mdl(6, "TABLE", "shop", "t", "SHARED_READ"),
                                mdl(7, "TABLE", "shop", "t", "EXCLUSIVE", "PENDING")], wall=1_790_000_100.0 + i)
        frames.append(replace(f, throughput=Throughput(tps=0.0, committed_per_s=0.0)))
    frames = judged(frames)
    text = render(build_report(frames), "text")
    head = text[:600]
    assert "STALL " in head and "root thread 6" in head and "KILL 6;" in head and "still stalled" in head
    assert "the window starts inside a stall" in text


# ---- the KILL line only for a root the server's rows confirm ---------------------------------------
_STATES = ["", MDL, "Waiting for backup lock", "User lock", "Waiting for table level lock", "Sending data",
           "copy to tmp table"]
_OBJECTS = ["TABLE", "BACKUP", "USER LEVEL LOCK", "GLOBAL"]
_MODES = ["SHARED_READ", "SHARED", "BACKUP_FTWRL2", "SHARED_NO_WRITE", "EXCLUSIVE", "SHARED_NO_READ_WRITE"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 30), st.sampled_from(["Sleep", "Query"]), st.sampled_from(_STATES),
                          st.integers(0, 100), st.one_of(st.none(), st.integers(0, 100))), max_size=25),
       st.lists(st.tuples(st.integers(1, 30), st.sampled_from(_OBJECTS), st.sampled_from(["t1", "t2", "job"]),
                          st.sampled_from(_MODES), st.booleans()), max_size=25),
       st.sampled_from(["performance_schema", "metadata_lock_info", "instrument_off", None]))
def test_the_named_root_is_a_listed_holder_or_the_answer_is_inferred_with_every_candidate(rows, locks, source) -> None:
    sessions = [sess(t, c, s, n, trx_age=a) for t, c, s, n, a in rows]
    if source is None:
        md = None
    elif source == "instrument_off":
        md = [["instrument_off", None, None, None, None, None, None, None]]
    else:
        md = [[source, t, o, "d", name, m, "GRANTED" if g or source == "metadata_lock_info" else "PENDING", "TRANSACTION"]
              for t, o, name, m, g in locks]
    found = stalls.find([], sessions, md, "mariadb", 1000.0)
    parsed = stall_rows.lock_sessions(sessions)
    waiting = {r.thread_id for r in parsed if r.kind is not None}
    free = {r.thread_id for r in parsed if r.kind is None}
    granted = {(t, o) for t, o, _, _, g in locks if g or source == "metadata_lock_info"} if md and source != "instrument_off" else set()
    for s in found:
        if s.root is not None:
            # confirmed: a session the server lists as holding a lock of that class, never a waiter
            assert s.certainty is stalls.Certainty.CONFIRMED and s.root.kill == f"KILL {s.root.thread_id}"
            assert s.root.thread_id not in waiting
            assert any(t == s.root.thread_id for t, _ in granted)
            assert not s.candidates
        elif s.certainty is stalls.Certainty.INFERRED:
            ids = [c.thread_id for c in s.candidates]
            assert set(ids) == free and len(ids) == len(set(ids))       # every session that could, once
            assert all(c.kill is None for c in s.candidates)
        else:
            assert not s.candidates and not free or s.kind == "innodb_queue"


def test_a_decoy_older_transaction_on_another_table_is_not_the_root() -> None:
    """Thread 226 opened its transaction first and read t2; 227 holds t1, which the ALTER wants:
    listed by the server, 227 is the root; not listed, both are candidates and none is killed."""
    sessions = [sess(230, "Query", MDL, 20, sql="ALTER TABLE t1 ADD COLUMN c INT"), sess(231, "Query", MDL, 19),
                sess(226, "Sleep", "", 60, trx_age=62, user="dba"), sess(227, "Sleep", "", 25, trx_age=30)]
    locks = [mdl(226, "TABLE", "shop", "t2", "SHARED_READ"), mdl(227, "TABLE", "shop", "t1", "SHARED_READ"),
             mdl(230, "TABLE", "shop", "t1", "EXCLUSIVE", "PENDING"), mdl(231, "TABLE", "shop", "t1", "SHARED_READ", "PENDING")]
    a = first(frame_of(sessions, locks))
    assert "KILL 227" in a.message and "KILL 226" not in a.message
    # the plugin lists granted locks only: the ALTER's own granted lock says which table
    plugin = [["metadata_lock_info", 226, "Table metadata lock", "shop", "t2", "MDL_SHARED_READ", "GRANTED", None],
              ["metadata_lock_info", 227, "Table metadata lock", "shop", "t1", "MDL_SHARED_READ", "GRANTED", None],
              ["metadata_lock_info", 230, "Table metadata lock", "shop", "t1", "MDL_SHARED_UPGRADABLE", "GRANTED", None]]
    f = frame_of(sessions, plugin, ServerIdentity("10.11.6-MariaDB", "mariadb", "db1:3306"))
    assert f.stalls[0].root is not None and f.stalls[0].root.kill == "KILL 227"
    # nothing listed: both are candidates, the older first, and no KILL anywhere
    f = frame_of(sessions, None, ServerIdentity("10.11.6-MariaDB", "mariadb", "db1:3306"))
    st0 = f.stalls[0]
    assert st0.root is None and [c.thread_id for c in st0.candidates] == [226, 227] and kill_line(f) is None
    assert not re.search(r"KILL \d", first(f).message + text_frame(f))


def test_without_the_waited_object_a_lock_list_names_candidates_not_a_guess() -> None:
    """SELECTs queue behind LOCK TABLES … WRITE; the plugin lists granted locks only, and a DBA's
    transaction holds another table: two sessions hold table locks, so neither is named."""
    sessions = [sess(41, "Query", MDL, 20), sess(42, "Query", MDL, 19),
                sess(40, "Sleep", "", 90, trx_age=95, user="dba"), sess(50, "Sleep", "", 30)]
    plugin = [["metadata_lock_info", 40, "Table metadata lock", "shop", "other", "MDL_SHARED_READ", "GRANTED", None],
              ["metadata_lock_info", 50, "Table metadata lock", "shop", "t", "MDL_SHARED_NO_READ_WRITE", "GRANTED", None]]
    f = frame_of(sessions, plugin, ServerIdentity("10.11.6-MariaDB", "mariadb", "db1:3306"))
    st0 = f.stalls[0]
    assert st0.root is None and st0.certainty is stalls.Certainty.INFERRED
    assert {c.thread_id for c in st0.candidates[:2]} == {40, 50} and kill_line(f) is None
    # the one holder of a table lock in a complete list: that is the server's word
    f = frame_of([s for s in sessions if s[0] != 40], plugin[1:], ServerIdentity("10.11.6-MariaDB", "mariadb", "db1:3306"))
    assert f.stalls[0].root is not None and f.stalls[0].root.kill == "KILL 50"


def test_copying_alter_root_is_let_finish_or_killed_never_committed() -> None:
    sessions = [sess(101, "Query", MDL, 20, sql="UPDATE t SET v = 1"), sess(102, "Query", MDL, 19),
                sess(19, "Query", "copy to tmp table", 25, trx_age=25, sql="ALTER TABLE t ENGINE=InnoDB, ALGORITHM=COPY")]
    locks = [mdl(19, "TABLE", "shop", "t", "SHARED_NO_WRITE"), mdl(101, "TABLE", "shop", "t", "SHARED_WRITE", "PENDING"),
             mdl(102, "TABLE", "shop", "t", "SHARED_WRITE", "PENDING")]
    a = first(frame_of(sessions, locks))
    assert a.id == "stall_running_ddl" and "let it finish, or KILL 19 (its work is rolled back)" in a.message
    assert "commit" not in a.message.lower().replace("committing", "")
    assert "ALGORITHM=INPLACE" in a.message and "LOCK=NONE" in a.message and "gh-ost" in a.message
    # a SELECT's GROUP BY says "Copying to tmp table": not a DDL
    busy = [sess(101, "Query", MDL, 20), sess(102, "Query", MDL, 19),
            sess(19, "Query", "Copying to tmp table", 25, trx_age=25)]
    assert first(frame_of(busy, [mdl(19, "TABLE", "shop", "t", "SHARED_READ"), *locks[1:]])).id == "stall_metadata_lock"


def _row_lock_frame(t: float, waits: list[int], holder_age: int) -> Frame:
    """16 sessions behind idle thread 6's row lock; each waiter's wait as given (a retry starts anew)."""
    rows = [[f"w{i}", 100 + i, "app", "h", w, "UPDATE c SET v = v + 1 WHERE id = 1", "T6", 6, "app", "h", holder_age,
             "RUNNING", "Sleep", None, "`shop`.`c`", "PRIMARY", "X", "RECORD"] for i, w in enumerate(waits)]
    return frame_of([], None, lock_waits=rows, wall=t)


def test_a_row_lock_stall_lasts_across_lock_wait_timeouts() -> None:
    """innodb_lock_wait_timeout = 4 s: every waiter gives up and waits anew, each wait younger than
    the 5 s threshold; the root and its 16 waiters stay, so the stall does, dated from the first wait."""
    frames = []
    t0 = 1_790_000_100.0
    for i in range(40):
        t = t0 + i
        frames.append(_row_lock_frame(t, [((i + k) % 4) for k in range(16)], holder_age=30 + i))
    frames = judged(frames)
    assert not any(s.is_stall for f in frames for s in f.stalls)        # no single frame is a pile by its waits
    led = [bool(f.advice) and f.advice[0].id == "stall_row_lock" for f in frames]
    assert all(led[6:]), led                                             # from 5 s on, every frame
    last = frames[-1].advice[0]
    assert "KILL 6" in last.message and "blocked since" in last.message
    # its length is the root's, never the latest retry's ("for up to 0 s")
    assert "waiting on" in last.message and last.message.index("blocked since") < last.message.index("for up to")
    r = build_report(frames)
    assert len(r.stalls) == 1 and r.stalls[0].start <= t0 and r.stalls[0].end == frames[-1].time
    # released: gone at once
    done = frame_of([], None, lock_waits=[], wall=t0 + 41)
    done = judged([*frames, done])[-1]
    assert not [a for a in done.advice if a.id.startswith("stall_")]


def test_fleet_row_and_prometheus_say_inferred_where_no_row_names_the_holder() -> None:
    import time as _time

    from mysqltop.fleet import ServerState
    from mysqltop.views.fleet_rows import fleet_row
    from mysqltop.views.headless import openmetrics_frame

    server = ServerIdentity("10.11.6-MariaDB", "mariadb", "db1:3306")
    sessions = [sess(7, "Query", MDL, 30), sess(8, "Query", MDL, 29), sess(6, "Sleep", "", 31, trx_age=33)]
    for metadata, root, finding in (
            (None, "inferred", "stall_metadata_lock: holder inferred"),
            ([["metadata_lock_info", 6, "Table metadata lock", "shop", "t", "MDL_SHARED_READ", "GRANTED", None]],
             "6", "stall_metadata_lock: KILL 6")):
        f = frame_of(sessions, metadata, server)
        f = replace(f, advice=advise([f], {}))
        text = openmetrics_frame(f)
        stall_lines = [line for line in text.splitlines() if line.startswith("mysqltop_stall_waiting_sessions{")]
        assert stall_lines == [f'mysqltop_stall_waiting_sessions{{server="db1:3306",kind="metadata_lock",root="{root}"}} 2']
        now = _time.monotonic()
        row = fleet_row(ServerState(name="db1:3306", frame=f, good=f, arrived=now, good_at=now, started=now,
                                    trend=(f,)), now, 1.0)
        assert row.finding == finding


@settings(max_examples=120, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 12), st.integers(1, 12), st.integers(0, 60)), min_size=1, max_size=40))
def test_a_row_lock_root_is_a_blocker_the_lock_wait_rows_name(edges) -> None:
    """Over generated wait graphs (trx N is thread N): every row-lock stall's root is a blocking
    transaction of the rows, never one that waits itself unless the graph is a cycle, with its KILL."""
    rows = [[f"T{w}", w, "app", "h", s, "UPDATE t SET v = 1", f"T{b}", b, "app", "h", 100, "RUNNING", "Sleep", None,
             "`d`.`t`", "PRIMARY", "X", "RECORD"] for w, b, s in edges if w != b]
    if not rows:
        return
    from mysqltop.core.blocking import blocking_tree
    found = stalls.find(blocking_tree(rows), [], None, "mariadb", 1000.0)
    blockers = {r[7] for r in rows}
    waiters = {r[1] for r in rows}
    below: dict[int, set[int]] = {}
    for r in rows:
        below.setdefault(r[7], set()).add(r[1])
    reached, todo = set(blockers - waiters), list(blockers - waiters)
    while todo:
        for n in below.get(todo.pop(), ()):
            if n not in reached:
                reached.add(n)
                todo.append(n)
    for s in found:
        assert s.kind == "row_lock" and s.certainty is stalls.Certainty.CONFIRMED and s.root is not None
        assert s.root.thread_id in blockers and s.root.kill == f"KILL {s.root.thread_id}"
        # a root that waits itself only heads a cycle no free holder reaches (InnoDB breaks those)
        assert s.root.thread_id not in waiters or s.root.thread_id not in reached


def test_report_of_an_inferred_stall_lists_candidates_and_no_kill() -> None:
    from mysqltop.views.report_text import render

    frames = []
    for i in range(8):
        sessions = [sess(7, "Query", MDL, 60 + i), sess(8, "Query", MDL, 59 + i),
                    sess(6, "Sleep", "", 61 + i, trx_age=62 + i), sess(30, "Sleep", "", 90 + i, user="dba")]
        f = frame_of(sessions, None, ServerIdentity("10.11.6-MariaDB", "mariadb", "db1:3306"), wall=1_790_000_100.0 + i)
        frames.append(replace(f, throughput=Throughput(tps=0.0, committed_per_s=0.0)))
    frames = judged(frames)
    r = build_report(frames)
    ep = r.stalls[0]
    assert ep.certainty == "inferred" and ep.kill is None and ep.root_thread_id is None
    assert ep.candidate_ids == [6, 30]
    assert r.headline is not None and "inferred" in r.headline and "threads 6, 30" in r.headline
    text = render(r, "text")
    assert not re.search(r"KILL \d", text) and "candidates, oldest first: threads 6, 30" in text
    d = json.loads(json.dumps(r.to_dict()))
    assert d["stalls"][0]["certainty"] == "inferred" and d["stalls"][0]["candidate_ids"] == [6, 30]


def test_the_statement_offered_per_server_and_its_cost() -> None:
    from mysqltop.core.instrumentation import MDL_COST, lock_holders_statement

    sql, note = lock_holders_statement("mariadb")
    assert sql == "INSTALL SONAME 'metadata_lock_info'" and "held now" in note
    sql, note = lock_holders_statement("mysql")
    assert sql.startswith("UPDATE performance_schema.setup_instruments SET ENABLED='YES', TIMED='YES'")
    assert "wait/lock/metadata/sql/mdl" in sql and MDL_COST in note and "from now on" in note
