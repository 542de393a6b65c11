"""Incident capture: keep the last `before` seconds of raw samples in memory and write only the
windows around moments when a trigger fires.

A window starts with the ring (up to `before` seconds of history, the firing sample included),
gets a bookmark (trigger, value, time) on every rising edge, and ends `after` seconds after the
trigger was last true. A trigger that fires again inside a window, or whose history reaches back
into the previous window, extends/merges it: no sample is written twice, and a new segment (no
rates across the gap) starts only when samples were really skipped.

Fits the engine's recorder interface (append(raw, frame)/close): the trigger is tested on the
frame the engine derived for the sample; only raw samples are written.
"""

from __future__ import annotations

from collections import deque
from typing import Callable, Protocol

from mysqltop.core.frame import Frame
from mysqltop.core.sample import RawSample
from mysqltop.core.trigger import Trigger


class WindowWriter(Protocol):
    def append(self, raw: RawSample) -> None: ...
    def bookmark(self, t: float, trigger: str | None, value: float | None, note: str | None = None) -> None: ...
    def break_segment(self) -> None: ...
    def close(self) -> None: ...


class IncidentRecorder:
    def __init__(self, writer: WindowWriter, trigger: Trigger, before: float, after: float,
                 on_fire: Callable[[float, float | None], None] | None = None) -> None:
        self.writer = writer
        self.trigger = trigger
        self.before = before
        self.after = after
        self.on_fire = on_fire
        self._ring: deque[tuple[int, RawSample]] = deque()
        self._n = 0                       # samples seen
        self._last_written = -2           # index (in samples seen) of the last sample written
        self._until: float | None = None  # end of the open window (wall time); None: idle
        self._was_fired = False
        self.windows = 0
        self.bookmarks = 0

    def append(self, raw: RawSample, frame: Frame) -> None:
        n = self._n
        self._n += 1
        self._ring.append((n, raw))
        while self._ring and self._ring[0][1].wall < raw.wall - self.before:
            self._ring.popleft()
        result = self.trigger.evaluate(frame.to_dict())
        if result.fired:
            if self._until is None:
                self._open_window()
            self._until = max(self._until or raw.wall, raw.wall + self.after)
        if self._until is not None:
            if raw.wall > self._until:
                self._until = None          # window over; this sample stays in the ring only
            else:
                self._write(n, raw)
        if result.fired and not self._was_fired:
            self.writer.bookmark(raw.wall, self.trigger.text, result.value)
            self.bookmarks += 1
            if self.on_fire:
                self.on_fire(raw.wall, result.value)
        self._was_fired = result.fired

    def _open_window(self) -> None:
        self.windows += 1
        pending = [(k, s) for k, s in self._ring if k > self._last_written]
        if pending and pending[0][0] != self._last_written + 1:
            self.writer.break_segment()
        for k, s in pending[:-1]:          # the newest (current) one is written by append()
            self._write(k, s)

    def _write(self, n: int, raw: RawSample) -> None:
        if n <= self._last_written:
            return
        self.writer.append(raw)
        self._last_written = n

    # A PausingWriter below says whether recording is paused (a full disk): the ring and the
    # trigger go on meanwhile, so a window that opens during the pause is written once it ends.
    @property
    def paused(self) -> object | None:
        return getattr(self.writer, "paused", None)

    @property
    def changes(self) -> int:
        return int(getattr(self.writer, "changes", 0))

    @property
    def last_change(self) -> str | None:
        return getattr(self.writer, "last_change", None)

    def close(self) -> None:
        self.writer.close()
