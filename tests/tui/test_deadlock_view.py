"""The `d` key: the latest deadlock told as a story and the stretch's deadlocks by pattern; the
locks pane's one line about it. Statement text stays inert."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from mysqltop.core.deadlocks import DeadlockBook
from mysqltop.core.frame import Frame
from mysqltop.timeline.pipeline import FramePipeline
from mysqltop.core.sample import RawSample
from mysqltop.core.when import parse_when
from mysqltop.engine import Engine
from mysqltop.views.tui.app import MysqltopApp
from mysqltop.views.tui.feeds import LiveFeed
from mysqltop.views.tui.position import ViewMode
from mysqltop.views.tui.deadlock_screen import deadlock_text
from mysqltop.views.tui.session_deadlocks import SessionFold
from mysqltop.views.tui.widgets.locks import LocksPane

from .conftest import pilot, replay_app, screen_text, wait_for
from .samples import sample, samples

MADE = Path(__file__).resolve().parents[1] / "fixtures" / "deadlocks"
TWO_ROW = (MADE / "mariadb-10.11__two-row.txt").read_text()
GAP = (MADE / "mariadb-10.11__gap-insert.txt").read_text()
EVIL = "INSERT INTO shop.orders (customer) VALUES (26) /* \x1b]0;owned\x07 [bold red]x[/] \x1b[2J */"


def with_status(texts: list[str]) -> list[RawSample]:
    return [dataclasses.replace(s, innodb_status=t) for s, t in zip(samples(len(texts)), texts)]


def frames(raws: list[RawSample]) -> list[Frame]:
    pipe = FramePipeline()
    return [pipe.push(r, advise=False) for r in raws]


def test_story_names_holders_waiters_and_the_victim() -> None:
    fs = frames(with_status([TWO_ROW, TWO_ROW, GAP.replace("INSERT INTO shop.orders (customer) VALUES (26)", EVIL)]))
    text = deadlock_text(fs[-1], fs, 160).plain
    assert "LATEST DEADLOCK" in text and "deadlock at 2026-11-28 01:35:49 (server time): 2 transactions" in text
    assert "(1) thread 7 root@127.0.0.1, trx 36, active 20 s, 2 row lock(s)  ✗ ROLLED BACK" in text
    assert "holds  X gap lock on shop.orders index idx_customer [key 0x8000001e …]" in text
    assert "waits  X insert-intention lock on shop.orders index idx_customer [key 0x8000001e …]  ← held by (2)" in text
    assert "the server rolled back (1), thread 7" in text
    assert "1 captured (the server's counter moved by 0)" in text      # the samples' counter stands still
    assert "\x1b" not in text and "\x07" not in text and "[bold red]x[/]" in text
    assert "before  2 trx on shop.accounts (PRIMARY)" in text       # there at the stretch's start


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
        await wait_for(p, lambda: "LATEST DEADLOCK" in screen_text(app))
        shown = screen_text(app)
        assert "✗ ROLLED BACK" in shown and "1. 1× 2 trx on shop.orders (idx_customer)" in shown
        assert "fix: gap / next-key locks are involved" in shown
        await p.press("d")
        await wait_for(p, lambda: "LATEST DEADLOCK" not in screen_text(app))


def test_live_list_is_the_whole_session_not_the_trend() -> None:
    # Two deadlocks 400 samples apart: the trend (300) has lost the first, the session has not.
    again = TWO_ROW.replace("2026-11-28 01:35:", "2026-11-28 01:36:")     # the same pattern, a new one
    texts = [TWO_ROW] + [again] * 5 + [GAP] * 401
    fs = frames(with_status(texts))
    fold = SessionFold()
    seen = [fold.add(f) for f in fs]
    session = seen[-1]
    assert session.samples == len(fs) and session.since == fs[0].time
    whole = DeadlockBook.of(fs)
    assert session.book.captured == whole.captured == 2
    assert [p.count for p in session.book.ranked()] == [p.count for p in whole.ranked()] == [1, 1]
    trend = fs[-300:]
    assert DeadlockBook.of(trend).captured == 0              # what the trend alone would list
    text = deadlock_text(fs[-1], trend, 160, session).plain
    assert f"DEADLOCKS THIS SESSION ({len(fs)} SAMPLES SINCE" in text
    assert "2 captured" in text and "1. 1× " in text and "2. 1× " in text
    assert "shop.accounts" in text and "shop.orders" in text


def test_the_view_reads_a_copy_the_fold_does_not_touch() -> None:
    fs = frames(with_status([TWO_ROW, GAP, TWO_ROW.replace("01:35:", "01:33:")]))
    fold = SessionFold()
    first = fold.add(fs[0])
    second = fold.add(fs[1])
    assert second.book is not first.book and second.book.captured == 1
    kept = [p.count for p in second.book.ranked()]
    same = fold.add(dataclasses.replace(fs[1], time=fs[1].time + 1))     # nothing new: the same copy
    assert same.book is second.book
    third = fold.add(fs[2])
    assert third.book.captured == 2 and [p.count for p in second.book.ranked()] == kept
    assert second.book.captured == 1 and len(second.book.seen) == 2


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
    app = MysqltopApp(LiveFeed(Engine(source, FramePipeline()), 0.2), ViewMode.LIVE, address="db1:3306",
                      parse_when=parse_when)
    async with app.run_test(size=(160, 48)) as p:
        await wait_for(p, lambda: app.session_deadlocks is not None and app.session_deadlocks.book.captured == 2)
        await p.press("d")
        await wait_for(p, lambda: "DEADLOCKS THIS SESSION" in screen_text(app))
        shown = screen_text(app)
        assert "2 captured" in shown and "1. 1× " in shown and "2. 1× " in shown
