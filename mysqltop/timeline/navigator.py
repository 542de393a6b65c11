"""Navigator: play, step, jump, seek, next finding and bookmarks over the timeline cursor — the one
way the live TUI paused in its history and a replay move — calling its view back with what to show.

The cursor (timeline/cursor.py) does the moving and deriving over a store (the live session's or
a recording), so a moment shows the same frame and findings here as in `report` and `snapshot
--replay`. The view (`NavigatorView`: the TUI's feeds) is told what to show (`shown`) and what to
say (`notice`), and reads where the navigator stands (`place`). Playback runs in the engine's
pacing loop (`run_paced`): `due` says when the next sample is due (its recorded gap after the one
shown, divided by the speed; nothing while paused) and `advance` moves to it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from mysqltop.core.frame import Frame
from mysqltop.core.pacing import SPEEDS, step_choice
from mysqltop.recording.clock_steps import ClockStep
from mysqltop.timeline.cursor import Cursor
from mysqltop.timeline.finding_scan import FindingScan
from mysqltop.timeline.finding_search import FindingSearch
from mysqltop.timeline.judging import AT_ONCE, Judging

TREND = 300                   # frames kept for charts and sparklines
CHART_FILL = 120              # samples before a moment derived for its charts when none are cached
DAMAGE_CHECK = 120            # a move up to this far says which damaged samples it stepped over


class NavigatorView(Protocol):
    """What the navigator calls back."""

    def shown(self, frame: Frame, trend: tuple[Frame, ...], index: int) -> None:
        """Show `frame` (sample `index`) with the frames before it for charts (oldest first)."""

    def notice(self, text: str, severity: str = "information") -> None:
        """Say `text` briefly."""


@runtime_checkable
class SteppedClock(Protocol):
    """A store that knows where its recorder's wall clock stepped (a recording)."""

    def clock_steps(self) -> list[ClockStep]: ...


@dataclass(frozen=True)
class Place:
    """Where the navigator stands on its timeline."""

    index: int
    count: int                         # one past the newest index
    first: int                         # the oldest index held
    sample_time: float
    span: tuple[float, float]          # epochs of the oldest and newest samples held
    playing: bool
    speed: float
    ended: bool                        # no readable sample after the one shown
    gap_s: float | None                # recorded seconds since the sample before
    judging: bool                      # the findings of the sample shown are still being judged


class Navigator:
    def __init__(self, cursor: Cursor, view: NavigatorView, *, speed: float = 1.0, playing: bool = False,
                 bookmarks: tuple[tuple[float, str], ...] = (), scan: bool = False) -> None:
        """`scan`: judge the findings around the moment shown ahead in idle time (`scan_work`),
        so `]` and `[` are a lookup: a recording's whole series, not the live session's, which
        is judged as it comes."""
        self.cursor = cursor
        self.view = view
        self.speed = speed
        self.playing = playing
        self.bookmarks = bookmarks
        self.moved_at = 0.0                           # monotonic time a sample was last shown
        self.judging: Judging | None = None           # the findings of the sample shown, worked out in slices
        self.scan = FindingScan(cursor) if scan else None
        self.search = FindingSearch(cursor, self.scan)

    # -- what is shown ----------------------------------------------------------------------
    def place(self) -> Place:
        cur = self.cursor
        i, lo, n = cur.index, cur.lo, len(cur)
        before, at = (cur.time_at(i - 1), cur.time_at(i)) if i > lo else (None, None)
        return Place(index=i, count=n, first=lo, sample_time=cur.clock_at(i),
                     span=(cur.clock_at(lo), cur.clock_at(n - 1)), playing=self.playing, speed=self.speed,
                     ended=cur.at_end(i), gap_s=at - before if at is not None and before is not None else None,
                     judging=self.judging is not None)

    def show(self) -> None:
        """The cursor's frame with the trend cached before it; then, when the charts lack the
        samples just before (a range's first frame), those derived and the frame shown again:
        the moment is on screen before its charts are. Far from anything derived, its findings
        would read minutes of frames first: the frame is shown without them, saying they are
        being judged, and `work` judges them in slices and shows them."""
        self.moved_at = time.monotonic()
        cur, i = self.cursor, self.cursor.index
        self.judging = None
        if cur.missing_for_findings(i, AT_ONCE) >= AT_ONCE and not cur.derived(i).stale:
            self.judging = Judging(cur, i)
            trend = tuple(cur.history(i, TREND, last=cur.derived(i)))
            self.view.shown(trend[-1], trend, i)
            return      # the span's frames, the charts' among them, are derived by `work`
        trend = tuple(cur.history(i, TREND))
        self.view.shown(trend[-1], trend, i)
        if cur.missing(i, CHART_FILL):
            trend = tuple(cur.history(i, TREND, fill=CHART_FILL))
            self.view.shown(trend[-1], trend, i)

    def work(self, budget_s: float) -> bool:
        """Judge the findings of the sample shown for about `budget_s` (the feed thread's idle
        time); once judged, show them. False when there is nothing to judge."""
        judging = self.judging
        if judging is None:
            return False
        judging.step(budget_s)
        if not judging.pending:
            self.judging = None
            if self.cursor.index == judging.position:
                moved_at = self.moved_at
                self.show()
                self.moved_at = moved_at        # playback's pacing counts from the move, not this
        return True

    def scan_work(self, budget_s: float) -> bool:
        """Judge the findings around the moment shown for about `budget_s`, for `]` and `[`
        (after `work` and anything else the view waits for); False when there is nothing to do."""
        if self.scan is None:
            return False
        self.scan.follow(self.cursor.index)
        return self.scan.step(budget_s)

    def move(self, came_from: int) -> None:
        """Show the cursor's sample; say so when the move stepped over damaged samples."""
        i = self.cursor.index
        lo, hi = sorted((came_from, i))
        if 1 < hi - lo <= DAMAGE_CHECK:
            bad = [j for j in range(lo + 1, hi) if not self.cursor.readable(j)]
            if bad:
                self.view.notice(f"{len(bad)} damaged sample{'s' if len(bad) > 1 else ''} "
                                 f"{bad[0]}–{bad[-1]} stepped over", "warning")
        self.show()

    # -- playback (the pacing loop's due / tick) --------------------------------------------
    def due(self, anchor: float) -> float | None:
        """When the next sample is due: its recorded gap after the one shown, divided by the
        speed (counted from the later of the last tick and the last move a command made); at
        once when the end is reached (to say so); None while paused."""
        cur = self.cursor
        if not self.playing:
            return None
        nxt = cur.next_readable(cur.index, 1)
        if nxt is None:
            return anchor
        return max(anchor, self.moved_at) + cur.gap(cur.index, nxt) / self.speed

    def advance(self) -> bool:
        if not self.playing:
            return True
        i = self.cursor.index
        if self.cursor.step(1) == i:
            self.playing = False            # reached the end: stay on the last sample
            self.show()
        else:
            self.move(i)
        return True

    # -- moves ------------------------------------------------------------------------------
    def play(self, playing: bool | None = None) -> None:
        self.playing = (not self.playing) if playing is None else playing
        if self.playing and self.cursor.at_end():
            self.move(self.cursor.go(self.cursor.lo))     # play at the end starts over
        else:
            self.show()

    def step(self, n: int) -> None:
        self.playing = False
        i = self.cursor.index
        self.cursor.step(n)
        self.move(i)

    def seek_index(self, i: int) -> None:
        was = self.cursor.index
        self.cursor.go(i)
        self.move(was)

    def to_end(self) -> None:
        self.playing = False
        self.seek_index(len(self.cursor) - 1)

    def seek_time(self, t: float) -> None:
        was = self.cursor.index
        self.cursor.seek(t)
        self.move(was)
        self._clock_stepped_at(t)

    def _clock_stepped_at(self, t: float) -> None:
        """`g TIME` goes by the wall times recorded: where the recorder's clock stepped over TIME
        (the times there repeat, or no sample holds them), say so."""
        store = self.cursor.store
        steps = store.clock_steps() if isinstance(store, SteppedClock) else []
        for n, step in enumerate(steps):
            lo, hi = sorted((step.before, step.after))
            if step.step < 0:         # repeated: up to where the samples after the step reach
                last = steps[n + 1].index - 1 if n + 1 < len(steps) else len(store) - 1
                hi = min(hi, store.time_or_none(last) or hi)
            else:                     # skipped: unless a sample from elsewhere holds the time
                near = store.time_or_none(self.cursor.index)
                if near is not None and abs(near - t) <= abs(step.step) / 2:
                    continue
            if lo <= t <= hi:
                self.view.notice(step.describe("the recording"), "warning")
                return

    def jump(self, seconds: float) -> None:
        cur = self.cursor
        target = cur.nearest(cur.clock_at(cur.index) + seconds)
        if target == cur.index:
            was = cur.index
            cur.step(1 if seconds > 0 else -1)
            self.move(was)
            return
        self.seek_index(target)

    def change_speed(self, direction: int) -> None:
        self.speed = step_choice(SPEEDS, self.speed, direction)
        self.show()

    def finding(self, direction: int) -> None:
        """Go to the next sample (or the previous) where a finding starts: one the sample before
        did not have. Frames come from the cursor, so the findings are those report lists."""
        found = self.search.next(self.cursor.index, direction)
        if found is None:
            where = "after" if direction > 0 else "before"
            self.view.notice(f"no finding starts {where} this moment", "warning")
            return
        j, started = found
        self.playing = False
        self.view.notice(f"finding: {started[0]}")
        self.seek_index(j)

    def bookmark(self) -> None:
        now = self.cursor.clock_at(self.cursor.index)
        nxt = next(((t, label) for t, label in self.bookmarks if t > now + 1e-6), None)
        if nxt is None and self.bookmarks:
            nxt = self.bookmarks[0]             # wrap around to the first
        if nxt is None:
            self.view.notice("this recording has no bookmarks", "warning")
            return
        self.view.notice(f"bookmark: {nxt[1] or 'unnamed'}")
        self.seek_time(nxt[0])
