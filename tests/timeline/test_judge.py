"""The timeline's judge: findings as a series beside frames that stay as derived, cached by
position, so showing a moment, stepping back and looking for the next finding derive little."""

from __future__ import annotations

from pathlib import Path

from mysqltop.core.advice import HORIZON_S
from mysqltop.timeline.range import Range
from mysqltop.views.tui.feeds import navigate
from mysqltop.views.tui.feed_events import FrameShown, Notice
from mysqltop.views.tui.position import ViewMode

GALLERY = Path(__file__).resolve().parents[2] / "recordings"
PURGE = GALLERY / "purge-read-view.mtrec"


def open_cursor(start: str | None = None):  # type: ignore[no-untyped-def]
    rng = Range(PURGE, start=start, on_damage=None)
    return rng, rng.cursor


def test_a_frame_costs_two_samples_and_its_findings_one_span() -> None:
    rng, c = open_cursor()
    try:
        i = c.go(140)
        frame = c.derived(i)
        assert c.derives == 1 and frame.elapsed is not None and frame.throughput.qps is not None
        shown = c.frame_at(i)
        span = shown.time - HORIZON_S
        assert c.derives <= HORIZON_S / 0.5 and c.judge.judged == 1
        assert all(c.derived(j).time > span - 2 for j in list(c._derived))   # only the longest span was derived
        assert "purge_lag" in {a.id for a in shown.advice}
        assert frame.advice == [] and "advice" not in frame.errors        # the derived frame stays as it was
        assert c.frame_at(i) is shown and c.judge.judged == 1           # the same moment: judged once
    finally:
        rng.close()


def test_stepping_back_derives_one_frame_a_step() -> None:
    rng, c = open_cursor()
    try:
        c.frame_at(c.go(150))
        before = c.derives
        for _ in range(20):
            c.frame_at(c.step(-1))
        assert c.derives - before <= 20
        judged = c.judge.judged
        for _ in range(20):
            c.frame_at(c.step(1))                                       # forward again: all cached
        assert c.judge.judged == judged
    finally:
        rng.close()


def test_next_finding_reads_the_findings_series_once() -> None:
    rng, c = open_cursor()
    try:
        events: list = []
        b = navigate(c, events.append, ViewMode.REPLAY)
        c.go(c.lo)
        b.finding(1)
        first = c.index
        notices = [e.text for e in events if isinstance(e, Notice)]
        assert first > c.lo and notices and notices[0].startswith("finding: ")
        derived, judged = c.derives, c.judge.judged
        assert derived <= first - c.lo + 2 and judged <= first - c.lo + 2   # each sample passed once
        b.finding(-1)                                                       # back over the same samples
        assert c.derives == derived and c.judge.judged <= judged + 1
    finally:
        rng.close()


def test_scanned_ahead_the_next_finding_is_a_lookup_shown_with_its_findings() -> None:
    """A replay's feed scans the findings around the moment shown in its idle time: `]` and `[`
    then land where judging sample by sample lands, judge nothing more, and the frame landed on
    comes with its findings at once."""
    rng, c = open_cursor()
    ref_rng, ref = open_cursor()
    try:
        ref_b = navigate(ref, lambda _e: None, ViewMode.REPLAY)
        ref.go(ref.lo)
        ref_b.finding(1)
        first = ref.index
        ref_b.finding(1)
        second = ref.index
        ref_b.finding(-1)
        back = ref.index

        events: list = []
        b = navigate(c, events.append, ViewMode.REPLAY)
        c.go(c.lo)
        assert b.scan is not None
        slices = 0
        while b.scan_work(0.02):
            slices += 1
        assert slices > 1 and b.scan.readable(first) and b.scan.ids(first)
        assert b.scan.cursor.derives <= len(c) - c.lo + 2         # each sample derived once
        judged = c.judge.judged
        landed = []
        for direction in (1, 1, -1):
            events.clear()
            b.finding(direction)
            shown = [e for e in events if isinstance(e, FrameShown) and e.position.index == c.index]
            assert shown and not shown[0].position.judging and shown[0].frame.advice
            landed.append(c.index)
        assert landed == [first, second, back] and first > c.lo
        assert c.judge.judged == judged                 # every finding came from the scan's judgements
    finally:
        rng.close()
        ref_rng.close()


def test_a_range_is_judged_from_its_floor() -> None:
    rng, c = open_cursor(start="+150s")
    try:
        i = c.go(rng.first)
        frame = c.frame_at(i)
        assert frame.elapsed is not None                                # rates from the sample before
        assert frame.advice == [] and c.derives == 1                    # no evidence before the range
    finally:
        rng.close()


def test_every_s_carries_a_judgement_over_the_positions_after_it() -> None:
    rng, c = open_cursor()
    try:
        c.judge.every_s = 10.0
        for i in range(130, 150):
            c.frame_at(i)
        assert 2 <= c.judge.judged <= 3                                  # 20 s of samples, once per 10 s
    finally:
        rng.close()


def test_the_frames_a_range_hands_out_leave_the_derived_ones_as_they_were() -> None:
    rng, c = open_cursor()
    try:
        shown = [frame for frame, _raw in rng.frames()]
        assert any(f.advice for f in shown)
        held = [c.derived(i) for i in range(rng.first, rng.last + 1)]
        assert all(f.advice == [] and "advice" not in f.errors for f in held)
        assert [f.time for f in shown] == [f.time for f in held if not f.stale or "recording" not in f.errors]
    finally:
        rng.close()
