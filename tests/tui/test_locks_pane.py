"""The locks & transactions pane: blocking tree, KILL line one key away, hostile text inert."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone
from pathlib import Path

from mysqltop.core.frame import Frame, Locks
from mysqltop.core.blocking import blocking_tree, session_states, sessions, transactions
from mysqltop.recording.reader import RecordingReader
from mysqltop.timeline.cursor import Cursor
from mysqltop.views import locks_text as lt
from mysqltop.views.tui import replay_app as replay_file
from mysqltop.views.tui.keymap import holders_key
from mysqltop.views.tui.position import ViewMode
from mysqltop.views.tui.widgets.locks_pane import LocksPane

from .conftest import Toasts, pilot, replay_app, screen_text, wait_for
from .samples import samples

EVIL = "UPDATE t SET v=1 /* \x1b]0;owned\x07 [bold red]x[/] \x1b[2J */"


def wait_row(w_trx, w_thr, b_trx, b_thr, wait_s=4):
    return [w_trx, w_thr, "app\x1b[31m", "10.0.0.5:1", wait_s, EVIL, b_trx, b_thr, "batch", "10.0.0.9:2", 40,
            "RUNNING", "Sleep", None, "`db`.`t`", "PRIMARY", "X", "RECORD"]


ROWS = [wait_row(301, 11, 300, 42), wait_row(302, 12, 300, 42, 2)]


def locks_frame() -> Frame:
    return Frame(time=0.0, elapsed=1.0, locks=Locks(row_lock_waits_per_s=46.0, row_lock_wait_ms_per_s=236.0,
                                                    blocked_sessions=2, longest_transaction_s=40),
                 blocking=blocking_tree(ROWS),
                 transactions=transactions([[300, 42, "batch", "h", "RUNNING", 40, 1, 1, 2, "RR", "Sleep", None, None]],
                                           None),
                 sessions=sessions([[11, "app", "h", "db", "Query", "Updating", 4, EVIL]]),
                 session_states=session_states([["Query", "Commit", 16, 2], ["Sleep", "", 40, 100]]))


def test_pane_shows_tree_kill_line_states_and_inert_text() -> None:
    body = LocksPane(7).body(locks_frame(), [], 120)
    text = body.plain
    assert "hottest blocker: KILL 42;" in text
    assert "thread 42 batch@10.0.0.9" in text and "blocks 2" in text and "idle in transaction" in text
    assert "└ thread 11 app\\x1b[31m@10.0.0.5 waits 4.0s for X PRIMARY `db`.`t`" in text
    assert "sessions: 16 in Commit, 40 idle" in text
    assert "\x1b" not in text and "\x07" not in text and "[bold red]x[/]" in text   # shown, not interpreted
    assert "40s" in text and "row lock waits/s 46" in text


def test_pane_says_why_lock_waits_were_not_read() -> None:
    f = dataclasses.replace(locks_frame(), blocking=[], errors={
        "lock_waits": "Access denied; you need the PROCESS privilege: run GRANT PROCESS ON *.* TO 'm'@'%';"})
    f.locks.blocked_sessions = None
    text = LocksPane(7).body(f, [], 200).plain
    assert "lock waits not read: Access denied" in text and "GRANT PROCESS ON *.* TO 'm'@'%'" in text
    assert "sessions: 16 in Commit" in text           # the rest of the pane still works


@pilot
async def test_k_shows_the_kill_line_of_the_hottest_blocker() -> None:
    raws = [dataclasses.replace(s, lock_waits=ROWS) for s in samples(3)]
    app = replay_app(raws, start=1)
    toasts = Toasts()
    async with app.run_test(size=(160, 48), message_hook=toasts) as p:
        await wait_for(p, lambda: app.frame is not None and bool(app.frame.blocking))
        await p.press("k")
        await wait_for(p, lambda: any("KILL 42;" in t for t in toasts.texts))
        assert app.clipboard == "KILL 42;"
        await p.press("7")
        await wait_for(p, lambda: "hottest blocker: KILL 42;" in screen_text(app))


def test_pane_counts_metadata_lock_waiters_and_names_the_root() -> None:
    """Nine sessions in "Waiting for table metadata lock" are nine blocked, with the server's
    seconds — never "blocked 0 / no session waits"; with no lock list the idle transaction is a
    candidate, with no KILL line; listed by the server, it is the root with its KILL line."""
    from mysqltop.core.derive import derive
    from mysqltop.core.parsed import parse_sample
    from mysqltop.core.sample import RawSample, ServerIdentity

    mdl = "Waiting for table metadata lock"
    rows = [[10 + i, "app", "h:1", "db", "Query", mdl, 49 - i, f"SELECT {i}", None, None, None, None]
            for i in range(9)] + [[6, "batch", "h:2", "db", "Sleep", "", 50, None, 51, "RUNNING", None, None]]
    sessions_rows = [[10 + i, "app", "h:1", "db", "Query", mdl, 0, f"SELECT {i}"] for i in range(9)]
    server = ServerIdentity("10.11.6-MariaDB", "mariadb", "db1:3306")
    prev = RawSample(wall=99.0, mono=9.0, server=server, lock_waits=[], session_states=[])
    raw = RawSample(wall=100.0, mono=10.0, server=server, lock_waits=[], lock_sessions=rows, sessions=sessions_rows,
                    session_states=[["Query", mdl, 9, 49], ["Sleep", "", 1, 50]])
    f = derive(parse_sample(prev), parse_sample(raw))
    text = LocksPane(7).body(f, [], 200).plain
    assert "blocked 9" in text and "no session waits" not in text and "blocked 0" not in text
    assert "release first: holder inferred" in text and "thread 6 batch@h" in text and "KILL 6" not in text
    assert max(s.time_s or 0 for s in f.sessions) == 49        # the server's seconds, not 0
    listed = [["metadata_lock_info", 6, "Table metadata lock", "db", "t", "MDL_SHARED_READ", "GRANTED", None]]
    from dataclasses import replace
    f = derive(parse_sample(prev), parse_sample(replace(raw, metadata_locks=listed)))
    text = LocksPane(7).body(f, [], 200).plain
    assert "release first: KILL 6;" in text and "root thread 6 batch@h" in text


METADATA_LOCK = Path(__file__).resolve().parents[2] / "recordings" / "metadata-lock.mtrec"
INFERRED_AT = 50            # the first sample whose pile's holder is only inferred


def test_the_holders_key_is_offered_only_where_there_is_one() -> None:
    with RecordingReader(METADATA_LOCK) as reader:
        frame = Cursor(reader).frame_at(INFERRED_AT)
    assert lt.kill_line(frame) is None and (lt.release_first(frame) or "").startswith("holder inferred")
    pane = LocksPane(7)
    assert "(m: make the server list holders)" not in pane.body(frame, [], 200).plain      # no key: no offer
    pane.holders_key = holders_key(ViewMode.LIVE)
    assert "(m: make the server list holders)" in pane.body(frame, [], 200).plain
    assert holders_key(ViewMode.REPLAY) is None


@pilot
async def test_a_replay_does_not_offer_m_on_an_inferred_holder() -> None:
    """`m` changes the live server: replaying a stall whose holder is only inferred, the pane
    and `k` name the candidates and offer no key."""
    with RecordingReader(METADATA_LOCK) as reader:
        at = datetime.fromtimestamp(reader.time_at(INFERRED_AT), timezone.utc).isoformat()
    app = replay_file.replay_app(str(METADATA_LOCK), start=at, playing=False)
    toasts = Toasts()
    async with app.run_test(size=(200, 60), message_hook=toasts) as p:
        await wait_for(p, lambda: "release first: holder inferred" in screen_text(app))
        assert "(m:" not in screen_text(app)
        await p.press("k")
        await wait_for(p, lambda: any("nothing copied" in t for t in toasts.texts))
        told = next(t for t in toasts.texts if "nothing copied" in t)
        assert told.endswith("nothing copied.") and "shows the statement" not in told
