"""Stalls from the wait-for graph over time: one incident is one stall whatever it learned about its
root; a root the server named stays named through one poll that missed it; a hot row passed from
holder to holder is never a KILL (finding, `k`, report). Pure."""

from __future__ import annotations

import re

from mysqltop.core.report_builder import build_report
from mysqltop.core.sample import ServerIdentity
from mysqltop.views.locks_text import kill_line, report_blocks
from mysqltop.views.report_text import Block
from tests.core.test_stalls import MDL, frame_of, judged, sess

T0 = 1_790_000_100.0
MARIADB = ServerIdentity("10.11.6-MariaDB", "mariadb", "db1:3306")


def _chain_sessions(t: int) -> list:
    return [sess(9, "Query", MDL, 10 + t, sql="ALTER TABLE t ADD COLUMN c INT"),
            sess(10, "Query", MDL, 9 + t, sql="UPDATE t SET v = 1 WHERE id = 1"),
            sess(11, "Query", MDL, 9 + t, sql="UPDATE t SET v = 2 WHERE id = 2"),
            sess(8, "Query", "User lock", 12 + t, sql="SELECT GET_LOCK('x', 100)", trx_age=13 + t),
            sess(6, "Sleep", "", 40 + t), sess(7, "Sleep", "", 90 + t, trx_age=91 + t, user="dba")]


def _plugin_rows(listed: bool) -> list:
    rows = [["metadata_lock_info", 7, "Table metadata lock", "shop", "decoy", "MDL_SHARED_READ", "GRANTED", None],
            ["metadata_lock_info", 8, "Table metadata lock", "shop", "t", "MDL_SHARED_READ", "GRANTED", None],
            ["metadata_lock_info", 9, "Table metadata lock", "shop", "t", "MDL_SHARED_UPGRADABLE", "GRANTED", None]]
    if listed:
        rows.append(["metadata_lock_info", 6, "User lock", "x", "", "MDL_SHARED_NO_WRITE", "GRANTED", None])
    return rows


def test_the_chain_is_said_and_only_its_end_is_killed() -> None:
    f = judged([frame_of(_chain_sessions(0), _plugin_rows(True), MARIADB)])[0]
    st = f.stalls[0]
    assert st.root is not None and st.root.thread_id == 6 and st.waiting == 4
    assert [(c.holder, c.kind) for c in st.chain] == [(9, "mdl"), (8, "mdl"), (6, "user")]
    msg = f.advice[0].message
    assert "held by 8, which waits on user lock 'x' held by 6" in msg and "KILL 6" in msg, msg
    assert set(re.findall(r"KILL (\d+)", msg)) == {"6"} and kill_line(f) == "KILL 6;"
    assert f.locks.blocked_sessions == 4


def test_a_poll_that_misses_the_user_lock_row_does_not_demote_the_root_nor_split_the_stall() -> None:
    frames = [frame_of(_chain_sessions(i), _plugin_rows(i != 3), MARIADB, wall=T0 + i) for i in range(6)]
    frames = judged(frames)
    assert frames[3].stalls[0].root is None                        # that poll alone: not joined
    for f in frames:
        msg = f.advice[0].message
        assert "KILL 6" in msg and set(re.findall(r"KILL (\d+)", msg)) == {"6"}, msg
    assert "did not list it" in frames[3].advice[0].message
    r = build_report(frames)
    assert len(r.stalls) == 1 and r.stalls[0].root_thread_id == 6 and r.stalls[0].kill == "KILL 6"


def test_a_root_learned_later_is_the_same_stall() -> None:
    frames = [frame_of(_chain_sessions(i), _plugin_rows(i >= 8), MARIADB, wall=T0 + i) for i in range(12)]
    r = build_report(judged(frames))
    assert len(r.stalls) == 1, [(e.kind, e.root_thread_id) for e in r.stalls]
    assert r.stalls[0].root_thread_id == 6 and r.stalls[0].kill == "KILL 6"


def _hot_row_frame(t: float, holder: int) -> object:
    """Five sessions queued on one row; the holder changes every poll, each one working (not
    idle) in a transaction a moment old while the queue has waited for seconds."""
    rows = [[f"w{i}", 100 + i, "app", "h", 8 + i, "UPDATE c SET v = v + 1 WHERE id = 1", f"T{holder}", holder, "app",
             "h", 0, "RUNNING", "Query", "UPDATE c SET v = v + 1 WHERE id = 1", "`shop`.`c`", "PRIMARY", "X", "RECORD",
             "1"] for i in range(5)]
    return frame_of([], None, lock_waits=rows, wall=t)


def test_a_rotating_holder_is_never_a_kill() -> None:
    frames = judged([_hot_row_frame(T0 + i, 50 + i) for i in range(10)])
    for f in frames:
        assert kill_line(f) is None
        assert not any(re.search(r"KILL \d", a.message) for a in f.advice)
    r = build_report(frames)
    lines = [line for b in report_blocks(r, Block) for line in b.lines]
    assert not any(re.search(r"KILL \d", line) for line in lines), lines
    assert r.headline is not None and "None" not in r.headline and "no single KILL" in r.headline
