"""Judging in slices: the findings at a far position worked out a slice at a time, the same as
judging them at once, and a navigator that shows the frame first and its findings after."""

from __future__ import annotations

from pathlib import Path

from mysqltop.timeline.judging import AT_ONCE, Judging
from mysqltop.timeline.range import Range
from mysqltop.views.tui.feeds import navigate
from mysqltop.views.tui.feed_events import FeedEvent, FrameShown
from mysqltop.views.tui.position import ViewMode

PURGE = Path(__file__).resolve().parents[2] / "recordings" / "purge-read-view.mtrec"


class Ticks:
    """A clock that moves one second a reading: every slice is one frame."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 1.0
        return self.t


def ids_at(i: int) -> list[str]:
    rng = Range(PURGE, on_damage=None)
    try:
        return [a.id for a in rng.cursor.frame_at(i).advice]
    finally:
        rng.close()


def test_slices_derive_the_span_back_then_judge_as_at_once() -> None:
    rng = Range(PURGE, on_damage=None)
    try:
        c = rng.cursor
        start = c.span_start(140)
        assert start == max(c.lo, c.floor)         # a short recording: the span reaches its start
        assert c.missing_for_findings(140, 1000) == 141 - start
        work = Judging(c, 140, clock=Ticks())
        slices = 0
        while work.pending:
            work.step(0.5)
            slices += 1
        assert slices == 140 - start + 1           # one frame a slice, then the judgement
        assert c.missing_for_findings(140, 1000) == 0
        assert work.judgement is not None and [a.id for a in work.judgement.advice] == ids_at(140) == ["purge_lag"]
        assert c.judge.judged == 1
    finally:
        rng.close()


def test_a_far_seek_shows_the_frame_first_and_its_findings_after() -> None:
    rng = Range(PURGE, on_damage=None)
    try:
        c = rng.cursor
        shown: list[FrameShown] = []

        def post(e: FeedEvent) -> None:
            if isinstance(e, FrameShown):
                shown.append(e)

        b = navigate(c, post, ViewMode.REPLAY)
        b.seek_index(140)
        first = shown[-1]
        assert first.position.index == 140 and first.position.judging and first.frame.advice == []
        assert c.judge.judged == 0 and first.frame.throughput.qps is not None
        while b.work(0.01):
            pass
        last = shown[-1]
        assert last.position.index == 140 and not last.position.judging
        assert [a.id for a in last.frame.advice] == ids_at(140)
        # the next sample lacks one frame of its span: judged at once, nothing left to work on
        b.step(-1)
        assert not shown[-1].position.judging and c.missing_for_findings(139, AT_ONCE) <= 1
        assert [a.id for a in shown[-1].frame.advice] == ids_at(139)
        assert not b.work(0.01)
    finally:
        rng.close()


def test_a_move_while_judging_leaves_the_old_position_unshown() -> None:
    rng = Range(PURGE, on_damage=None)
    try:
        c = rng.cursor
        shown: list[FrameShown] = []
        b = navigate(c, lambda e: shown.append(e) if isinstance(e, FrameShown) else None, ViewMode.REPLAY)
        b.seek_index(140)
        b.work(0.0)                                 # one frame derived
        b.seek_index(100)                           # the span of 100 is judged now, not 140's
        assert shown[-1].position.index == 100 and shown[-1].position.judging
        while b.work(0.01):
            pass
        assert {e.position.index for e in shown} == {140, 100}
        assert [e.position.index for e in shown if not e.position.judging] == [100]
        assert [a.id for a in shown[-1].frame.advice] == ids_at(100)
    finally:
        rng.close()
