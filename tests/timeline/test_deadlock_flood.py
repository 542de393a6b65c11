"""A flood of deadlocks of distinct shapes: the history grows linearly and stays capped, and the
`d` list shows the newest and says how many older ones it does not show."""

from __future__ import annotations

import dataclasses
import tracemalloc
from pathlib import Path

from mysqltop.core.deadlocks import MAX_KEPT, MAX_PATTERNS, DeadlockBook
from mysqltop.core.frame import Frame
from mysqltop.timeline.deadlock_history import DeadlockHistory
from mysqltop.views.tui.deadlock_screen import LISTED, deadlock_text
from mysqltop.views.tui.position import Position, ViewMode
from tests.support.deadlock_frames import frames, with_status

MADE = Path(__file__).resolve().parents[1] / "fixtures" / "deadlocks"
TWO_ROW = (MADE / "mariadb-10.11__two-row.txt").read_text()


def _flood(n: int) -> list[Frame]:
    """n frames, each with a new deadlock on tables of its own (a shape of its own)."""
    base = frames(with_status([TWO_ROW]))[0]
    d = base.deadlock
    assert d is not None
    out = []
    for i in range(n):
        trx = [dataclasses.replace(t, holds=[dataclasses.replace(lk, table=f"shop.t{i}") for lk in t.holds],
                                   waits_for=[dataclasses.replace(lk, table=f"shop.t{i}") for lk in t.waits_for])
               for t in d.transactions]
        out.append(dataclasses.replace(base, time=base.time + i, deadlock=dataclasses.replace(
            d, time=f"2026-11-28 {i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}", thread=str(i),
            transactions=trx)))
    return out


def _fold(fs: list[Frame]) -> tuple[DeadlockHistory, int]:
    tracemalloc.start()
    try:
        history = DeadlockHistory()
        for i, f in enumerate(fs):
            history.add(i, f)
            history.at()                          # the live feed looks it up after every frame
        return history, tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()


def test_two_thousand_shapes_grow_the_history_linearly_and_the_list_says_what_it_hides() -> None:
    fs = _flood(2000)
    half, half_bytes = _fold(fs[:1000])
    whole, whole_bytes = _fold(fs)
    # Copying the whole patterns dict per deadlock grew as the square: 69 MB at 2,000.
    assert whole_bytes < 12 * 2**20, whole_bytes
    assert whole_bytes < 2.6 * half_bytes, (half_bytes, whole_bytes)
    at = whole.at()
    assert at is not None
    book = at.book
    assert book.captured == 1999 and len(book.seen) == MAX_KEPT and book.dropped == 2000 - MAX_KEPT
    assert len(book.patterns) == MAX_PATTERNS and book.unpatterned == 1999 - MAX_PATTERNS
    assert book.seen[-1].deadlock is fs[-1].deadlock                 # the newest, not the 200th
    assert book.counts_line().startswith(f"1999 captured ({1999 - MAX_PATTERNS} in shapes past the first")
    text = deadlock_text(fs[-1], 160, Position(mode=ViewMode.LIVE), at).plain
    assert f"the newest {LISTED}, {2000 - LISTED:,} older not shown" in text
    assert "shop.t1999" in text.split("each one, newest first")[1]
    # a moment back in time has the book it had then
    recent = whole.at(1900)
    assert recent is not None and recent.book.captured == 1900 and recent.book.seen[-1].deadlock is fs[1900].deadlock
    assert recent.book.dropped == 1901 - len(recent.book.seen) and len(recent.book.seen) > 100
    then = whole.at(500)                 # further back than the list's log: counted, not listed
    assert then is not None and then.book.captured == 500 and then.book.dropped == 501 and not then.book.seen
    assert [(p.signature, p.count) for p in then.book.ranked()] == \
        [(p.signature, p.count) for p in DeadlockBook.of(fs[:501]).ranked()]
    text = deadlock_text(fs[500], 160, Position(mode=ViewMode.LIVE), then).plain
    assert "each one: 501 not listed at this moment" in text
