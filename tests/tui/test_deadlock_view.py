"""The `d` key: the latest deadlock told as a story and the timeline's deadlocks up to the moment
shown, by pattern (live: the session's; replaying: the recording's from its first sample); the
locks pane's one line about it. Statement text stays inert."""

from __future__ import annotations

import dataclasses
import time
from datetime import datetime, timezone
from pathlib import Path

from mysqltop.core.deadlocks import DeadlockBook
from mysqltop.core.frame import Frame
from mysqltop.recording.writer import RecordingWriter
from mysqltop.timeline.deadlock_history import DeadlocksAt
from mysqltop.timeline.polled import live_timeline
from mysqltop.core.sample import RawSample
from mysqltop.core.when import parse_when
from mysqltop.engine import Engine
from mysqltop.views.deadlocks_text import clock
from mysqltop.views.tui import replay_app as replay_file
from mysqltop.views.tui.app import MysqltopApp
from mysqltop.timeline.navigator import TREND
from mysqltop.views.tui.feed_events import DeadlocksRead
from mysqltop.views.tui.feeds import LiveFeed
from mysqltop.views.tui.position import Position, ViewMode
from mysqltop.views.tui.deadlock_screen import deadlock_text
from mysqltop.views.tui.widgets.locks_pane import LocksPane
from tests.support.deadlock_frames import folded, frames, with_status

from .conftest import pilot, replay_app, screen_text, wait_for
from .samples import T0, sample

MADE = Path(__file__).resolve().parents[1] / "fixtures" / "deadlocks"
TWO_ROW = (MADE / "mariadb-10.11__two-row.txt").read_text()
GAP = (MADE / "mariadb-10.11__gap-insert.txt").read_text()
THREE = (MADE / "mariadb-10.11__three-way.txt").read_text()
EVIL = "INSERT INTO shop.orders (customer) VALUES (26) /* \x1b]0;owned\x07 [bold red]x[/] \x1b[2J */"
REPLAY = Position(mode=ViewMode.REPLAY, index=0)


def upto(fs: list[Frame], i: int | None = None) -> DeadlocksAt:
    at = folded(fs).at(i)
    assert at is not None
    return at


def test_story_names_holders_waiters_and_the_victim() -> None:
    fs = frames(with_status([TWO_ROW, TWO_ROW, GAP.replace("INSERT INTO shop.orders (customer) VALUES (26)", EVIL)]))
    text = deadlock_text(fs[-1], 160, REPLAY, upto(fs)).plain
    assert "LATEST DEADLOCK" in text and "deadlock at 2026-11-28 01:35:49 (server time): 2 transactions" in text
    assert "(1) thread 7 root@127.0.0.1, trx 36, active 20 s, 2 row lock(s)  ✗ ROLLED BACK" in text
    assert "holds  X gap lock on shop.orders index idx_customer [key 0x8000001e …]" in text
    assert "waits  X insert-intention lock on shop.orders index idx_customer [key 0x8000001e …]  ← held by (2)" in text
    assert "the server rolled back (1), thread 7" in text
    assert "1 captured (the server's counter moved by 0)" in text      # the samples' counter stands still
    assert "\x1b" not in text and "\x07" not in text and "[bold red]x[/]" in text
    assert "before  2 trx on shop.accounts (PRIMARY)" in text       # there at the first sample


def test_locks_pane_has_the_one_line_summary() -> None:
    f = frames(with_status([GAP]))[0]
    text = LocksPane(7).body(f, [], 200).plain
    assert ("latest deadlock 2026-11-28 01:35:49: 2 trx on shop.orders (idx_customer): X insert-intention ⇄ "
            "X insert-intention, victim (1) thread 7: INSERT INTO shop.orders (customer) VALUES (?)") in text


@pilot
async def test_d_opens_and_closes_the_deadlock_view() -> None:
    app = replay_app(with_status([TWO_ROW, TWO_ROW, GAP, GAP]), start=3)
    async with app.run_test(size=(160, 48)) as p:
        await wait_for(p, lambda: app.frame is not None and app.frame.deadlock is not None)
        await p.press("d")
        await wait_for(p, lambda: "1. 1× " in screen_text(app))
        shown = screen_text(app)
        assert "✗ ROLLED BACK" in shown
        assert (f"1. 1× {clock(T0 + 2)} UTC (server time 2026-11-28 01:35:49): 2 trx on shop.orders (idx_customer)"
                in shown)
        assert "fix: gap / next-key locks are involved" in shown
        await p.press("d")
        await wait_for(p, lambda: "LATEST DEADLOCK" not in screen_text(app))


def test_live_list_is_the_whole_session_not_the_trend() -> None:
    # Two deadlocks 400 samples apart: the trend (300) has lost the first, the session has not.
    again = TWO_ROW.replace("2026-11-28 01:35:", "2026-11-28 01:36:")     # the same pattern, a new one
    texts = [TWO_ROW] + [again] * 5 + [GAP] * 401
    fs = frames(with_status(texts))
    session = upto(fs)
    assert session.samples == len(fs) and session.since == fs[0].time
    whole = DeadlockBook.of(fs)
    assert session.book.captured == whole.captured == 2
    assert [p.count for p in session.book.ranked()] == [p.count for p in whole.ranked()] == [1, 1]
    trend = fs[-300:]
    assert DeadlockBook.of(trend).captured == 0              # what the trend alone would list
    text = deadlock_text(fs[-1], 160, Position(mode=ViewMode.LIVE), session).plain
    assert f"DEADLOCKS THIS SESSION ({len(fs)} SAMPLES SINCE {clock(fs[0].time)} UTC)" in text
    assert "2 captured" in text and "1. 1× " in text and "2. 1× " in text
    assert "shop.accounts" in text and "shop.orders" in text


def test_a_replay_says_it_is_still_reading_in_one_line() -> None:
    fs = frames(with_status([TWO_ROW]))
    text = deadlock_text(fs[0], 160, Position(mode=ViewMode.REPLAY, index=700), None, DeadlocksRead(250, 800)).plain
    assert text.endswith("DEADLOCKS OF THE RECORDING UP TO THE MOMENT SHOWN: reading the recording from its first "
                         "sample (250 of 800 samples read); the list follows\n")
    assert "LATEST DEADLOCK" in text                     # the moment's own story does not wait


class DeadlockSource:
    """Synthetic live samples stamped with the real clock, each with the next status text (the
    last one repeated)."""

    replay = False

    def __init__(self, texts: list[str]) -> None:
        self.texts, self.reads = texts, 0

    def read(self) -> RawSample:
        i = self.reads
        self.reads += 1
        s = dataclasses.replace(sample(i), wall=time.time(), mono=time.monotonic())
        return dataclasses.replace(s, innodb_status=self.texts[min(i, len(self.texts) - 1)])

    def close(self) -> None:
        pass


@pilot
async def test_live_d_lists_the_sessions_deadlocks() -> None:
    again = TWO_ROW.replace("2026-11-28 01:35:", "2026-11-28 01:36:")
    source = DeadlockSource([TWO_ROW, again, GAP])
    app = MysqltopApp(LiveFeed(Engine(source, live_timeline(0.2)), 0.2), ViewMode.LIVE, address="db1:3306",
                      parse_when=parse_when)
    async with app.run_test(size=(160, 48)) as p:
        await wait_for(p, lambda: app.deadlocks is not None and app.deadlocks.book.captured == 2)
        await p.press("d")
        await wait_for(p, lambda: "DEADLOCKS THIS SESSION" in screen_text(app))
        shown = screen_text(app)
        assert "2 captured" in shown and "1. 1× " in shown and "2. 1× " in shown


def deadlock_recording(path: Path) -> None:
    """420 samples a second apart: one deadlock there before the first sample, then three new
    ones by sample 80 (two of one pattern) while the server counts four, and a fourth at 410.
    Only the status the frames here need is kept: writing stays quick on a busy box."""
    again, later = (TWO_ROW.replace("2026-11-28 01:35:", f"2026-11-28 01:{m}:") for m in (36, 37))
    marks = [(0, TWO_ROW, 0), (1, again, 1), (40, GAP, 2), (80, later, 4), (410, THREE, 5)]
    with RecordingWriter(path, interval=1.0) as w:
        for i in range(420):
            _, text, counted = max((m for m in marks if m[0] <= i), key=lambda m: m[0])
            s = sample(i)
            status = {k: v for k, v in s.global_status.items() if k.startswith(("Com_", "Questions", "Uptime"))}
            w.append(dataclasses.replace(s, innodb_status=text, global_status={**status, "Innodb_deadlocks": str(counted)},
                                         ps_waits=[]))


@pilot
async def test_replay_d_lists_the_recordings_deadlocks_up_to_the_moment(tmp_path: Path) -> None:
    """Opened at sample 400 of a recording whose deadlocks are all 320+ samples before it (the
    trend holds the last 300): `d` lists every one from its first sample, and none after the
    moment until the moment moves past it."""
    path = tmp_path / "deadlocks.mtrec"
    deadlock_recording(path)
    at = datetime.fromtimestamp(T0 + 400, timezone.utc).isoformat()
    app = replay_file.replay_app(str(path), start=at, playing=False)
    async with app.run_test(size=(180, 60)) as p:
        await wait_for(p, lambda: app.position.index == 400)
        assert len(app.trend) <= TREND and DeadlockBook.of(app.trend).captured == 0
        await p.press("d")
        await wait_for(p, lambda: "SAMPLES SINCE" in screen_text(app))
        shown = " ".join(screen_text(app).split())
        assert (f"DEADLOCKS THE RECORDING UP TO THE MOMENT SHOWN (401 SAMPLES SINCE {clock(T0)} UTC): 3 captured "
                "of 4 the server counted (1 happened between polls: the server shows only the latest)") in shown
        assert (f"1. 2× {clock(T0 + 1)}–{clock(T0 + 80)} UTC (server time 2026-11-28 01:36:29 – "
                "2026-11-28 01:37:29): 2 trx on shop.accounts (PRIMARY)") in shown
        assert f"2. 1× {clock(T0 + 40)} UTC (server time 2026-11-28 01:35:49): 2 trx on shop.orders" in shown
        assert f"{clock(T0 + 80)} 2 trx on shop.accounts" in shown and "before 2 trx on shop.accounts" in shown
        assert "3 trx on" not in shown and "3. " not in shown                 # sample 410 is after the moment
        await p.press("end")
        await wait_for(p, lambda: "420 SAMPLES SINCE" in screen_text(app))
        shown = " ".join(screen_text(app).split())
        assert "4 captured of 5 the server counted" in shown
        assert f"2. 1× {clock(T0 + 410)} UTC (server time 2026-11-28 01:36:29): 3 trx on shop.accounts" in shown


@pilot
async def test_paused_live_d_lists_the_session_up_to_the_moment_shown() -> None:
    again = TWO_ROW.replace("2026-11-28 01:35:", "2026-11-28 01:36:")
    source = DeadlockSource([TWO_ROW, again, again, again, GAP])
    app = MysqltopApp(LiveFeed(Engine(source, live_timeline(0.2)), 0.2), ViewMode.LIVE, address="db1:3306",
                      parse_when=parse_when)
    async with app.run_test(size=(160, 48)) as p:
        await wait_for(p, lambda: app.deadlocks is not None and app.deadlocks.book.captured == 2)
        await p.press("p")
        await wait_for(p, lambda: app.position.index is not None)
        while app.position.index != 2:          # back to the third sample: one deadlock new by then
            index = app.position.index
            await p.press("left")
            await wait_for(p, lambda: app.position.index != index)
        await p.press("d")
        await wait_for(p, lambda: "UP TO THE MOMENT SHOWN" in screen_text(app))
        shown = " ".join(screen_text(app).split())
        assert "DEADLOCKS THIS SESSION UP TO THE MOMENT SHOWN (3 SAMPLES SINCE" in shown
        assert "1 captured" in shown and "2 trx on shop.orders" not in shown
