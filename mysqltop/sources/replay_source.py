"""ReplaySource: the samples of a recording range (timeline/range.py), in order, as a SampleSource.

    src = ReplaySource("incident.mtrec", start="-10m", end=None)
    while (raw := src.read()) is not None: ...  # the samples in range, in order
"""

from __future__ import annotations

from typing import Any

from mysqltop.core.sample import RawSample
from mysqltop.timeline.range import Range


class ReplaySource(Range):
    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._reading = self._readable()      # read()'s place in the range

    def read(self) -> RawSample | None:
        step = next(self._reading, None)
        return None if step is None else step[1]
