"""Range: a recording opened between two moments, as the timeline moves through it.

    rng = Range("incident.mtrec", start="-10m", end=None)
    for frame, raw in rng.frames(): ...         # each sample in range with the cursor's frame
    rng.strided_frames(k)                       # every k-th sample (a report over hours)

`replay`, `demo`, `snapshot --replay` and `report` open a recording through this, so --start
lands on the same sample in all of them (sources/replay.ReplaySource reads a range as a source).

`start`/`end` are WHEN strings (core/when.py; naive times in the local time zone) or epoch
seconds. The first frame of a range that starts mid-recording has its rates from the sample
before it (`primer`), and charts from the samples before that; the judge starts at the range
(its floor). Damaged samples are skipped; each damaged range is reported once through
`on_damage` (default: one line on stderr) and kept in `damaged`.
"""

from __future__ import annotations

import os
import sys
from datetime import tzinfo
from typing import Callable, Iterator

from mysqltop.core.frame import Frame
from mysqltop.core.sample import RawSample
from mysqltop.core.when import WhenError, format_clock, parse_when
from mysqltop.errors import UserError
from mysqltop.recording.reader import DamagedRange, RecordingReader
from mysqltop.timeline.cursor import Cursor
from mysqltop.timeline.strided import strided


# A report over every k-th sample has each rule judge at least this many points.
ADVICE_POINTS = 10


def _stderr(message: str) -> None:
    print(f"mysqltop: warning: {message}", file=sys.stderr)


class Range:
    def __init__(self, path: str | os.PathLike[str], start: str | float | None = None,
                 end: str | float | None = None, *, on_damage: Callable[[str], None] | None = _stderr,
                 tz: tzinfo | None = None) -> None:
        self.reader = RecordingReader(path)
        self.cursor = Cursor(self.reader)
        self.on_damage = on_damage
        self.damaged: list[DamagedRange] = []
        try:
            self._resolve(start, end, tz)
        except BaseException:
            self.reader.close()
            raise
        self._pending: int | None = None     # first index of a damaged run not yet reported
        if self.reader.notice and on_damage is not None:
            on_damage(self.reader.notice)
        if on_damage is not None:        # times in range go by the recorder's clock: where it jumped
            for step in self.reader.clock_steps():
                asked = any(t is not None and min(step.before, step.after) <= t <= max(step.before, step.after)
                            for t in self._asked)
                if self.first < step.index <= self.last or asked:
                    on_damage(step.describe(self.reader.path))

    def _resolve(self, start: str | float | None, end: str | float | None, tz: tzinfo | None) -> None:
        r = self.reader
        n = len(r)
        if n == 0:
            raise UserError(f"{r.path} holds no samples yet", 1)
        meta = r.meta
        first, last = meta.start, meta.end
        if first is None or last is None:      # the reader refuses such files; never a traceback
            raise UserError(f"{r.path} holds no sample times it can read", 1)
        t0 = self._when("--start", start, first, last, tz)
        t1 = self._when("--end", end, first, last, tz)
        self._asked = (t0, t1)           # a time the clock stepped over matches by the times recorded
        lo = 0 if t0 is None else r.first_at_or_after(t0)
        hi = n - 1 if t1 is None else (r.index_at(t1) if t1 >= first else None)
        if (t0 is not None or t1 is not None) and r.clock_steps():
            # times repeat where the clock stepped back: the window's first run, in recorded order
            run = r.first_run(t0, t1)
            lo, hi = run if run is not None else (None, None)
            if t1 is None and lo is not None:
                hi = n - 1                # no end asked: to the end, whatever the clock did
        if lo is None or hi is None or lo > hi:
            span = f"{format_clock(first, tz)} – {format_clock(last, tz)}"
            want = " – ".join(format_clock(t, tz) if t is not None else "…" for t in (t0, t1))
            raise UserError(f"no samples in {want}; {r.path} spans {span}", 2)
        self.first, self.last = lo, hi
        self.cursor.floor = lo
        self.primer: RawSample | None = r.pair(lo)[0] if self.cursor.readable(lo) else None

    @staticmethod
    def _when(flag: str, value: str | float | None, first: float, last: float,
              tz: tzinfo | None) -> float | None:
        if value is None or isinstance(value, (int, float)):
            return value
        try:
            return parse_when(value, first, last, tz)
        except WhenError as exc:
            raise UserError(f"{flag}: {exc}", 2) from None

    def frames(self) -> Iterator[tuple[Frame, RawSample]]:
        """(frame, sample) for each readable sample in range, derived by the timeline cursor (so
        each frame is the one replay shows for that moment); damaged ranges are reported."""
        for i, raw in self._readable():
            yield self.cursor.frame_at(i), raw

    def _readable(self) -> Iterator[tuple[int, RawSample]]:
        """(index, sample) for each readable sample in range; each damaged run is reported once,
        when the next readable sample (or the end of the range) is reached."""
        for i in range(self.first, self.last + 1):
            raw = self.cursor.sample(i)
            if raw is None:
                if self._pending is None:
                    self._pending = i
                continue
            self._report(i - 1)
            yield i, raw
        self._report(self.last)

    def points(self, stride: int) -> list[int]:
        """Indexes for a report over every `stride`-th sample: the range's first and last samples,
        every segment's first and last, and keyframes at least `stride` apart in between (a keyframe decodes
        alone, so the samples between points are never decoded)."""
        out = [self.first]
        starts = {s for s in self.reader.segment_starts if self.first < s <= self.last}
        ends = {s - 1 for s in starts}            # a segment's last sample closes its last span
        for k in sorted(set(self.reader.keyframes(self.first + 1, self.last)) | starts | ends):
            if k > out[-1] and (k - out[-1] >= stride or k in starts or k in ends):
                out.append(k)
        if out[-1] != self.last:
            out.append(self.last)
        return out

    def strided_frames(self, stride: int) -> Iterator[tuple[Frame, RawSample]]:
        """(frame, sample) at the indexes of `points(stride)`, derived by the cursor each from the
        point before (timeline/strided.py); damaged points are reported and left out."""
        interval = (self.reader.meta.interval or 1.0)
        span = ADVICE_POINTS * stride * interval
        for i, frame, raw in strided(self.reader, self.points(stride), span, self.primer_index(),
                                     self.reader.is_segment_start):
            if raw is None:
                self._pending = i
                self._report(i)
                continue
            yield frame, raw

    def primer_index(self) -> int | None:
        return self.first - 1 if self.primer is not None else None

    def unreadable(self) -> UserError:
        """The one line for a range none of whose samples could be read: how many, and why the
        first one could not (a command that reads nothing must fail, and say so)."""
        why = ""
        try:
            self.reader.sample(self.first)
        except UserError as exc:
            why = f": {getattr(exc, 'reason', None) or exc.message}"
        except IndexError:
            pass
        n = len(self)
        return UserError(f"{self.reader.path}: none of the {n} sample{'s' if n != 1 else ''} in range "
                         f"could be read (damaged{why}); nothing to show", 1)

    def close(self) -> None:
        self.reader.close()

    def __len__(self) -> int:
        """Samples in range (damaged ones included)."""
        return self.last - self.first + 1

    def _report(self, last_bad: int) -> None:
        if self._pending is None:
            return
        r = self.reader
        rng = DamagedRange(self._pending, last_bad, r.time_or_none(self._pending), r.time_or_none(last_bad))
        self.damaged.append(rng)
        self._pending = None
        if self.on_damage is not None:
            self.on_damage(rng.describe(str(self.reader.path)))
