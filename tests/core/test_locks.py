"""core/blocking.py: the blocking tree, transactions (INNODB_TRX and the TRANSACTIONS text), sessions;
their way through derive, the recording and --redact."""

from __future__ import annotations

from pathlib import Path

from mysqltop.core import blocking as locks
from mysqltop.core.derive import derive
from mysqltop.core.parsed import parse_sample
from mysqltop.core.sample import RawSample
from mysqltop.recording.format import parse_sample_text, sample_text
from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.redaction import SQL_MARK
from mysqltop.recording.writer import RecordingWriter


def wait(w_trx, w_thr, wait_s, b_trx, b_thr, *, b_age=30, b_cmd="Sleep", sql="UPDATE t SET v=1 WHERE id=1"):
    return [w_trx, w_thr, "app", "10.0.0.5:4711", wait_s, sql, b_trx, b_thr, "batch", "10.0.0.9:1234", b_age,
            "RUNNING", b_cmd, None, "`db`.`t`", "PRIMARY", "X", "RECORD"]


def test_each_waiter_once_under_the_blocker_nearest_the_root() -> None:
    # 300 holds the row; 301 waits for 300; 302 waits for 300 and (queued) for 301; 400 → 401 apart
    rows = [wait(301, 11, 5, 300, 10), wait(302, 12, 3, 300, 10), wait(302, 12, 3, 301, 11, b_cmd="Query"),
            wait(401, 21, 9, 400, 20)]
    tree = locks.blocking_tree(rows)
    assert [b.thread_id for b in tree] == [10, 20]        # two behind 10, one behind 20
    top = tree[0]
    assert top.blocked == 2 and top.depth == 1 and top.kill == "KILL 10" and top.longest_wait_s == 5
    assert [w.thread_id for w in top.waiters] == [11, 12]   # longest wait first, each once
    assert top.user == "batch" and top.command == "Sleep" and top.trx_age_s == 30
    w = top.waiters[0]
    assert (w.lock_table, w.lock_index, w.lock_mode, w.waiting_s) == ("`db`.`t`", "PRIMARY", "X", 5)


def test_a_real_chain_keeps_its_depth() -> None:
    # 501 waits for 500's row; 502 wants a row 501 holds
    tree = locks.blocking_tree([wait(501, 31, 8, 500, 30), wait(502, 32, 2, 501, 31, b_cmd="Query")])
    assert len(tree) == 1 and tree[0].thread_id == 30 and tree[0].depth == 2 and tree[0].blocked == 2
    assert tree[0].waiters[0].waiters[0].thread_id == 32


def test_a_long_queue_stays_flat_and_cheap() -> None:
    # InnoDB lists every queued request as blocked by each one queued before it: 100 waiters, 5050 edges
    rows = [wait(1000 + i, 100 + i, 100 - i, b, 99 if b == 999 else 100 + (b - 1000)) for i in range(100)
            for b in [999, *range(1000, 1000 + i)]]
    tree = locks.blocking_tree(rows)
    assert len(tree) == 1 and tree[0].blocked == 100 and tree[0].depth == 1 and tree[0].kill == "KILL 99"


def test_a_cycle_still_gives_a_tree_and_bad_rows_are_skipped() -> None:
    rows = [wait(1, 11, 2, 2, 12), wait(2, 12, 1, 1, 11), ["short"], "junk", [None] * 18]
    tree = locks.blocking_tree(rows)       # type: ignore[arg-type]
    assert len(tree) == 1 and tree[0].blocked == 1 and tree[0].thread_id == 11
    assert locks.blocking_tree(None) == [] and locks.blocking_tree([]) == []


STATUS = """
=====================================
2026-11-23 10:00:10 0x7fb1 INNODB MONITOR OUTPUT
=====================================
Per second averages calculated from the last 5 seconds
------------
TRANSACTIONS
------------
Trx id counter 25
Purge done for trx's n:o < 23 undo n:o < 0 state: running but idle
History list length 0
LIST OF TRANSACTIONS FOR EACH SESSION:
---TRANSACTION 24, ACTIVE 7 sec starting index read
mysql tables in use 1, locked 1
LOCK WAIT 2 lock struct(s), heap size 1128, 1 row lock(s)
MariaDB thread id 11, OS thread handle 140401723254464, query id 26 localhost root Updating
update t set v=v+1 where id=1
---TRANSACTION 23, ACTIVE 1 sec
2 lock struct(s), heap size 1128, 1 row lock(s), undo log entries 1
MariaDB thread id 10, OS thread handle 140401723561664, query id 24 localhost root
---TRANSACTION (0x7fb1e83bcb80), ACTIVE 95 sec
0 lock struct(s), heap size 1128, 0 row lock(s)
MariaDB thread id 9, OS thread handle 140402078787264, query id 22 localhost root
Trx read view will not see trx with id >= 23, sees < 23
---TRANSACTION 26, ACTIVE 3 sec
0 lock struct(s), heap size 1128, 0 row lock(s)
MariaDB thread id 12, OS thread handle 140402078787264, query id 22 localhost root
select 1 /*
---TRANSACTION 999, ACTIVE 99999 sec
1 lock struct(s), heap size 1128, 0 row lock(s), undo log entries 123456
MariaDB thread id 10, OS thread handle 1, query id 1 localhost root
*/
---TRANSACTION 421, not started
0 lock struct(s), heap size 1128, 0 row lock(s)
--------
FILE I/O
--------
----------------------------
END OF INNODB MONITOR OUTPUT
============================
"""


def test_transactions_from_the_status_text_alone() -> None:
    trx = locks.status_transactions(STATUS)
    # thread 10 is listed twice (the second one inside a statement): neither is trusted
    assert [(t.thread_id, t.age_s) for t in trx] == [(11, 7), (9, 95), (12, 3)]
    assert trx[0].state == "LOCK WAIT" and trx[0].rows_locked == 1
    # without the server's rows nothing fences the statements off: no read view is believed
    assert trx[1].read_view is None and trx[1].rows_modified == 0 and not trx[1].confirmed
    assert locks.status_transactions(None) == [] and locks.status_transactions("garbage") == []


def test_innodb_trx_rows_win_and_take_the_read_view_from_the_text() -> None:
    rows = [[24, 11, "root", "localhost", "LOCK WAIT", 7, 1, 0, 2, "REPEATABLE READ", "Query",
             "update t set v=v+1 where id=1", 7],
            [0, 9, "root", "localhost", "RUNNING", 95, 0, 0, 0, "REPEATABLE READ", "Sleep", None, None],
            [23, 10, "root", "localhost", "RUNNING", 1, 1, 1, 2, "REPEATABLE READ", "Sleep", None, None],
            [26, 12, "root", "localhost", "RUNNING", 3, 0, 0, 0, "REPEATABLE READ", "Query",
             STATUS.split("query id 22 localhost root\n")[2].split("\n---TRANSACTION 421")[0], None]]
    trx = locks.transactions(rows, STATUS)
    assert [t.thread_id for t in trx] == [9, 11, 12, 10]          # oldest first
    assert trx[0].read_view is True and trx[0].command == "Sleep" and trx[0].age_s == 95 and trx[0].confirmed
    assert trx[1].read_view is False and trx[1].waiting_s == 7
    # thread 12's statement prints an entry for thread 10: fenced off by its row, it changes nothing
    assert trx[2].read_view is False and trx[3].read_view is False
    # a row whose statement the text does not show: its entry and what it may cover are unknown
    rows[0][11] = "update …"
    assert [t.read_view for t in locks.transactions(rows, STATUS)] == [None, None, None, None]
    assert locks.transactions(rows, None)[0].read_view is None      # unknown, not "no"


def test_sessions_and_states() -> None:
    rows = [[5, "u", "h", "db", "Query", "Commit", 3, "COMMIT"], [5, "u", "h", "db", "Query", "Commit", 3, "x"],
            [6, "u", "h", None, "Query", "Updating", 9, "UPDATE `t` SET `v` = ?"]]
    s = locks.sessions(rows)
    assert [x.thread_id for x in s] == [6, 5]
    states = locks.session_states([["Sleep", "", 40, 900], ["Query", "Commit", 16, 2], ["Query", "Updating", 3, 9]])
    assert [(g.label, g.sessions) for g in states] == [("Commit", 16), ("Updating", 3), ("Sleep", 40)]


def _raw(**kw) -> RawSample:
    return RawSample(wall=1_795_000_000.0, mono=10.0, global_status={"Uptime": "100"}, **kw)


def test_derive_fills_the_frame_and_json_keys() -> None:
    raw = _raw(lock_waits=[wait(301, 11, 5, 300, 10)], transactions=[[300, 10, "batch", "h", "RUNNING", 30,
                                                                     1, 1, 2, "REPEATABLE READ", "Sleep", None, None]],
               sessions=[[11, "app", "h", "db", "Query", "Updating", 5, "UPDATE t"]],
               session_states=[["Query", "Updating", 1, 5]])
    f = derive(None, parse_sample(raw))
    assert f.blocking[0].kill == "KILL 10" and f.locks.blocked_sessions == 1 and f.locks.longest_transaction_s == 30
    d = f.to_dict()
    assert d["blocking"][0]["waiters"][0]["thread_id"] == 11
    assert {"blocking", "transactions", "sessions", "session_states"} <= set(d)
    old = derive(None, parse_sample(_raw()))              # an old recording: nothing read, nothing claimed
    assert old.blocking == [] and old.locks.blocked_sessions is None and old.locks.longest_transaction_s is None


def test_recording_keeps_the_rows_and_old_samples_read_as_none(tmp_path: Path) -> None:
    raw = _raw(lock_waits=[wait(301, 11, 5, 300, 10, sql="UPDATE t SET secret='x'")],
               sessions=[[11, "app", "h", "db", "Query", "Updating", 5, "UPDATE t SET secret='x'"]])
    back = parse_sample_text(sample_text(raw), raw.wall, raw.mono, raw.server, {})
    assert back.lock_waits == raw.lock_waits and back.sessions == raw.sessions and back.transactions is None
    old_text = "\n".join(line for line in sample_text(_raw()).split("\n")
                         if not line.startswith(("@lock_waits", "@transactions", "@sessions", "@session_states")))
    old = parse_sample_text(old_text, 1.0, 1.0, raw.server, {})
    assert old.lock_waits is None and old.session_states is None
    path = tmp_path / "r.mtrec"
    w = RecordingWriter(path, redact=True)
    w.append(raw)
    w.close()
    reader = RecordingReader(path)
    got = reader.sample(0)
    reader.close()
    assert got.lock_waits is not None and got.lock_waits[0][5] == SQL_MARK and got.sessions[0][7] == SQL_MARK
    assert "secret" not in str(got)


def test_report_keeps_the_longest_chains_and_transactions_of_the_window() -> None:
    import json

    from mysqltop.core.report_builder import build_report
    from mysqltop.views.report_text import render

    frames = []
    for i, (blocked_rows, age) in enumerate([([], 10), ([wait(301, 11, 5, 300, 10)], 11),
                                             ([wait(301, 11, 6, 300, 10), wait(302, 12, 1, 300, 10)], 12),
                                             ([wait(501, 31, 2, 500, 30)], 13)]):
        raw = RawSample(wall=1000.0 + i, mono=10.0 + i, global_status={"Uptime": str(100 + i), "Com_commit": str(i)},
                        lock_waits=blocked_rows,
                        transactions=[[300, 10, "batch", "h", "RUNNING", age, 1, 4, 2, "RR", "Sleep", None, None],
                                      [777, 77, "app", "h", "RUNNING", 2, 0, 0, 0, "RR", "Query", "SELECT \x1b[2J",
                                       None]])
        prev = parse_sample(frames[-1][0]) if frames else None
        frames.append((raw, derive(prev, parse_sample(raw))))
    rep = build_report([f for _, f in frames])
    assert [(c.thread_id, c.max_blocked, c.frames, c.longest_wait_s) for c in rep.blocking_chains] == \
        [(10, 2, 2, 6), (30, 1, 1, 2)]
    assert rep.long_transactions[0].thread_id == 10 and rep.long_transactions[0].max_age_s == 13
    assert rep.long_transactions[0].rows_modified == 4
    text = render(rep, "text")
    assert "thread 10 batch@10.0.0.9: blocked 2 at once" in text and "KILL 10;" in text and "\x1b" not in text
    assert "\x1b" not in render(rep, "md")
    assert json.loads(render(rep, "json"))["blocking_chains"][0]["kill"] == "KILL 10"


def test_longest_transactions_name_the_account_a_later_sample_read() -> None:
    """The first sample of a transaction may lack its account (the session list not read yet, a
    capped read): the report's LONGEST TRANSACTIONS line takes it from a later sample."""
    from mysqltop.core.report_builder import build_report
    from mysqltop.views.report_text import render

    frames = []
    for i, (user, host) in enumerate([(None, None), ("batch", "10.0.0.7"), ("batch", "10.0.0.7")]):
        raw = RawSample(wall=1000.0 + i, mono=10.0 + i, global_status={"Uptime": str(100 + i), "Com_commit": str(i)},
                        transactions=[[300, 10, user, host, "RUNNING", 30 + i, 1, 4, 2, "RR", "Sleep", None, None]])
        prev = parse_sample(frames[-1][0]) if frames else None
        frames.append((raw, derive(prev, parse_sample(raw))))
    rep = build_report([f for _, f in frames])
    assert (rep.long_transactions[0].user, rep.long_transactions[0].host) == ("batch", "10.0.0.7")
    assert "thread 10  batch@10.0.0.7" in render(rep, "text")
