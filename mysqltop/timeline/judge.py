"""Judge: findings as a series of their own, beside the frames.

A frame is derived from two samples and never changed; the findings at a position are judged
from the frames whose time lies within each rule's span in seconds before it (core/advice.py),
so they depend on time, not on how many samples a span holds. The judge reads frames by
position from a `FrameSeries` (a timeline cursor's frames)
and caches its findings by position: stepping back, or a second view of the same moment, judges
nothing again.

Settings: `every_s` judges at most once per that many seconds of sample time, the positions in
between carrying the last judgement (a fleet of many servers: a finding needs tens of seconds of
evidence anyway); `floor`, the first position judged from (a range opened at --start is not
judged on the storm before it); `min_span_s` widens every rule's span (a report over every k-th
sample, so the rules still see enough points; None: every frame from the floor).
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from dataclasses import dataclass
from typing import Iterable, Mapping, Protocol

from mysqltop.core.advice import HORIZON_S, advise
from mysqltop.core.frame import Advice, Frame

# Judgements kept (a few hundred bytes each): two hours at 1 s, what `]` and `[` look through on
# either side of a moment (finding_scan.py) with the judgements near it.
CACHE = 8192


@dataclass(frozen=True)
class Judgement:
    """The findings at one position, most severe first; `error`: a rule failed there."""

    advice: tuple[Advice, ...] = ()
    error: str | None = None


NOTHING = Judgement()


def compose(frame: Frame, judgement: Judgement) -> Frame:
    """What the views show for a moment: the frame with its findings (JSON `advice`). A new
    value: the derived frame, which every later judgement reads too, is left as it was."""
    errors = frame.errors if judgement.error is None else {**frame.errors, "advice": judgement.error}
    return dataclasses.replace(frame, advice=list(judgement.advice), errors=errors)


class FrameSeries(Protocol):
    """Frames by absolute position: `lo` (the oldest held) to the newest."""

    @property
    def lo(self) -> int: ...
    def frame_at_position(self, i: int) -> Frame | None: ...


class Judgements:
    """The findings series of one store by position, the most recently used kept. Two judges of
    the same store with the same settings give the same findings at a position, so they may share
    one (a replay's cursor and its finding scan: what the scan judged, the view shows at once)."""

    def __init__(self, size: int = CACHE) -> None:
        self.size = max(1, size)
        self._by_position: OrderedDict[int, Judgement] = OrderedDict()

    def get(self, i: int) -> Judgement | None:
        return self._by_position.get(i)

    def use(self, i: int) -> Judgement | None:
        """The judgement at i, kept as recently used."""
        hit = self._by_position.get(i)
        if hit is not None:
            self._by_position.move_to_end(i)
        return hit

    def put(self, i: int, judgement: Judgement) -> None:
        self._by_position[i] = judgement
        if len(self._by_position) > self.size:
            self._by_position.popitem(last=False)

    def drop(self, positions: Iterable[int]) -> None:
        for k in positions:
            self._by_position.pop(k, None)

    def drop_from(self, i: int) -> None:
        self.drop([k for k in self._by_position if k >= i])


class Judge:
    def __init__(self, series: FrameSeries, *, every_s: float = 0.0, floor: int = 0,
                 min_span_s: float | None = 0.0, judgements: Judgements | None = None) -> None:
        """`judgements`: the series to fill and read (a new one by default)."""
        self.series = series
        self.every_s = every_s
        self.floor = floor
        self.min_span_s = min_span_s
        self.judgements = Judgements() if judgements is None else judgements
        self._last: tuple[int, float, Judgement] | None = None   # the last judgement made: position, time, findings
        self.judged = 0                 # judgements made (not cached ones): for benches and tests

    @property
    def horizon_s(self) -> float | None:
        """How far back from a position the frames it is judged on reach (None: to the floor)."""
        return None if self.min_span_s is None else max(HORIZON_S, self.min_span_s)

    def cached(self, i: int) -> Judgement | None:
        return self.judgements.get(i)

    def forget_before(self, lo: int, since: int) -> None:
        """Drop the judgements at positions since..lo-1 (their frames are gone)."""
        self.judgements.drop(range(since, lo))

    def forget_from(self, i: int) -> None:
        """Drop the judgements at and after position i (their frames changed)."""
        self.judgements.drop_from(i)
        if self._last is not None and self._last[0] >= i:
            self._last = None

    def at(self, i: int, variables: Mapping[str, str]) -> Judgement:
        """The findings at position i."""
        hit = self.judgements.use(i)
        if hit is not None:
            return hit
        frame = self.series.frame_at_position(i)
        if frame is None or i < self.floor:
            return NOTHING
        last = self._last
        if last is not None and last[0] < i and 0.0 <= frame.time - last[1] < self.every_s:
            findings = last[2]
        else:
            findings = self._judge(i, frame, variables)
            self._last = (i, frame.time, findings)
        self.judgements.put(i, findings)
        return findings

    def frames_before(self, i: int, frame: Frame) -> list[Frame]:
        """The frames a judgement at i reads, oldest first, ending with i's own."""
        horizon = self.horizon_s
        since = None if horizon is None else frame.time - horizon
        out = [frame]
        j, stop = i - 1, max(self.series.lo, self.floor)
        while j >= stop:
            f = self.series.frame_at_position(j)
            if f is not None:
                if (since is not None and f.time <= since) or not f.server.same_server(frame.server):
                    break                     # a different server answered before: judged afresh
                out.append(f)
            j -= 1
        out.reverse()
        return out

    def _judge(self, i: int, frame: Frame, variables: Mapping[str, str]) -> Judgement:
        self.judged += 1
        try:
            return Judgement(tuple(advise(self.frames_before(i, frame), variables, self.min_span_s)))
        except Exception as exc:  # noqa: BLE001 — a broken rule must not cost the frame
            return Judgement((), f"{type(exc).__name__}: {exc}"[:300])
