"""The `d` key: the latest deadlock told as a story and the stretch's deadlocks by pattern; the
locks pane's one line about it. Statement text stays inert."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from mysqltop.core.frame import Frame
from mysqltop.core.pipeline import FramePipeline
from mysqltop.core.sample import RawSample
from mysqltop.views.tui.deadlock_screen import deadlock_text
from mysqltop.views.tui.widgets.locks import LocksPane

from .conftest import pilot, replay_app, screen_text, wait_for
from .samples import samples

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
