"""Where the recorder's wall clock stepped (NTP stepping it, an operator setting it): within a
segment, consecutive samples whose wall-time gap differs from their monotonic gap by more than
STEP_MIN seconds.

Rates never see such a step (derive works from the monotonic clock), but wall times do: after a
step back an hour, the next hour's times repeat the last hour's; after a step forward, an hour of
times holds no sample. Replay, `g TIME`, `--start/--end` and report windows go by the wall times
recorded, so they say where the clock jumped (`describe`) instead of hiding it.
"""

from __future__ import annotations

import bisect
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from mysqltop.core.units import duration
from mysqltop.core.when import format_clock

STEP_MIN = 2.0     # seconds; NTP slews smaller errors, and a late poll moves both clocks alike


@dataclass(frozen=True)
class ClockStep:
    index: int          # the first sample after the step
    before: float       # wall time of the sample before it
    after: float        # wall time of the sample itself
    step: float         # seconds the wall clock moved past the monotonic one (+ forward, - back)

    def describe(self, path: str | Path) -> str:
        way = "forward" if self.step > 0 else "back"
        then = ("times after it repeat earlier ones" if self.step < 0 else "no sample holds the times it skipped")
        return (f"{path}: the recorder's clock stepped {way} {duration(abs(self.step))} between "
                f"{format_clock(self.before)} and {format_clock(self.after)} (sample {self.index}): {then}; "
                "rates are unaffected (monotonic clock), times are as the clock said")


def find_steps(conn: sqlite3.Connection, segment_starts: list[int], lo: int,
               prev: tuple[int, float, float] | None,
               valid: Callable[[object, object], bool]) -> tuple[list[ClockStep], tuple[int, float, float] | None]:
    """Steps among the samples numbered from `lo` on, given the last sample looked at before
    (`prev`: seq, wall, mono); and the last sample looked at now. A row whose times are not
    `valid` (a damaged or edited one, read as a damaged sample) is passed over: the samples
    either side of it are not consecutive, so no step is found across it."""
    out: list[ClockStep] = []
    try:
        rows = conn.execute("SELECT seq, t, mono FROM samples WHERE seq >= ? ORDER BY seq", (lo,))
        for seq, t, mono in rows:
            if not valid(t, mono):
                continue
            if prev is not None and prev[0] == seq - 1 and not _starts_segment(segment_starts, seq):
                dm = mono - prev[2]
                step = (t - prev[1]) - dm
                if dm >= 0 and abs(step) > STEP_MIN:
                    out.append(ClockStep(seq, prev[1], t, step))
            prev = (seq, float(t), float(mono))
    except sqlite3.DatabaseError:
        pass
    return out, prev


def _starts_segment(starts: list[int], seq: int) -> bool:
    k = bisect.bisect_left(starts, seq)
    return k < len(starts) and starts[k] == seq
