"""The sampler: source.read() → (optional recorder) → pipeline.push(raw) → Frame.

One engine drives every consumer (TUI worker thread, `record`, `snapshot`, bench/poll), so the
pacing rules live in one place:

- polls never overlap: the loop is sequential, the next poll starts only after the previous
  one (and its `on_frame` callback) returned;
- pacing is on a fixed monotonic grid (start + k·interval), so sleeping and poll time never
  accumulate drift; a poll that overruns its slot is followed at once and the grid re-anchors
  there (no burst of catch-up polls);
- a replay source is read as fast as possible unless the caller asks for pacing (or a speed).

A recorder failure (disk full, file removed) disables recording with a message in the frame's
notes and through `on_message`; it never stops the engine. No UI imports here.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable, Protocol

from mysqltop.core.frame import Frame
from mysqltop.core.sample import RawSample
from mysqltop.sources.base import SampleSource


class Pipeline(Protocol):
    def push(self, raw: RawSample) -> Frame: ...


class Recorder(Protocol):
    def append(self, raw: RawSample) -> None: ...
    def close(self) -> None: ...


@dataclass
class EngineStats:
    """Running totals a status line or bench can show (all client-side)."""

    polls: int = 0
    read_s: float = 0.0          # wall seconds inside source.read() (server + wire + host)
    derive_s: float = 0.0        # wall seconds inside pipeline.push() (parse + derive + advice)
    cpu_s: float = 0.0           # this thread's CPU seconds in step() (wire decode, parse, derive)
    last_cpu_ms: float = 0.0     # CPU of the last step: read (wire decode, host) + derive
    last_derive_cpu_ms: float = 0.0   # of which parse + derive + advice
    last_read_ms: float = 0.0    # wall time of the last source.read()
    stale: int = 0


def is_replay(source: object) -> bool:
    """True for sources that replay recorded samples (they are not paced by default).

    A source may say so with a `replay` attribute; otherwise ReplaySource is recognised by type.
    """
    flag = getattr(source, "replay", None)
    if isinstance(flag, bool):
        return flag
    try:
        from mysqltop.sources.replay import ReplaySource
    except ImportError:
        return False
    return isinstance(source, ReplaySource)


class Engine:
    def __init__(
        self,
        source: SampleSource,
        pipeline: Pipeline,
        recorder: Recorder | None = None,
        *,
        on_message: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.source = source
        self.pipeline = pipeline
        self.recorder = recorder
        self.on_message = on_message
        self.recording_error: str | None = None
        self.last_raw: RawSample | None = None
        self.stats = EngineStats()
        self._clock = clock

    # -- one poll -------------------------------------------------------------------------
    def step(self) -> Frame | None:
        """Read one sample, record it, derive its frame. None when the source is exhausted."""
        cpu0, t0 = time.thread_time(), time.perf_counter()
        raw = self.source.read()
        t1 = time.perf_counter()
        if raw is None:
            return None
        note = self._record(raw)
        cpu1 = time.thread_time()
        frame = self.pipeline.push(raw)
        t2, cpu2 = time.perf_counter(), time.thread_time()
        if note:
            frame.notes.append(note)
        self.last_raw = raw
        s = self.stats
        s.polls += 1
        s.read_s += t1 - t0
        s.derive_s += t2 - t1
        s.last_read_ms = (t1 - t0) * 1000
        s.last_cpu_ms = (cpu2 - cpu0) * 1000
        s.last_derive_cpu_ms = (cpu2 - cpu1) * 1000
        s.cpu_s += s.last_cpu_ms / 1000
        s.stale += bool(frame.stale)
        return frame

    def _record(self, raw: RawSample) -> str | None:
        if self.recorder is None:
            return None
        try:
            self.recorder.append(raw)
            return None
        except Exception as exc:  # any recorder failure: keep monitoring, stop recording
            recorder, self.recorder = self.recorder, None
            try:
                recorder.close()
            except Exception:
                pass
            self.recording_error = f"recording stopped: {type(exc).__name__}: {exc}"
            if self.on_message:
                self.on_message(self.recording_error)
            return self.recording_error

    # -- the paced loop -------------------------------------------------------------------
    def run(
        self,
        interval: float,
        count: int | None = None,
        on_frame: Callable[[Frame], None] | None = None,
        stop_event: threading.Event | None = None,
        *,
        pace: bool | None = None,
        speed: float | None = None,
    ) -> int:
        """Poll until `count` frames, the end of the source, or `stop_event`; return frames made.

        pace=None paces live sources at `interval` and reads replay sources unpaced. With
        `speed`, a replay is paced by the recorded gaps between samples divided by speed.
        """
        if count is not None and count < 0:
            raise ValueError("count must be >= 0")
        replay = is_replay(self.source)
        if speed is not None and speed <= 0:
            raise ValueError("speed must be > 0")
        paced = (not replay or speed is not None) if pace is None else pace
        if paced and speed is None and interval <= 0:
            raise ValueError("interval must be > 0")
        stop = stop_event or threading.Event()
        by_recorded_gaps = paced and replay and speed is not None
        made = 0
        next_at = self._clock()
        prev_mono: float | None = None
        while (count is None or made < count) and not stop.is_set():
            frame = self.step()
            if frame is None:
                break
            if by_recorded_gaps and speed is not None:
                # Each recorded sample is shown its own recorded gap (÷ speed) after the previous one.
                mono = self.last_raw.mono if self.last_raw else None
                if prev_mono is not None and mono is not None:
                    next_at = self._wait_until(next_at + max(0.0, mono - prev_mono) / speed, stop)
                    if stop.is_set():
                        break
                prev_mono = mono
            made += 1
            if on_frame is not None:
                on_frame(frame)
            if (count is not None and made >= count) or not paced or by_recorded_gaps:
                continue
            next_at = self._wait_until(next_at + interval, stop)
        return made

    def _wait_until(self, at: float, stop: threading.Event) -> float:
        """Wait for grid point `at` (or `stop`); the point the grid continues from. A poll that
        overran its slot goes at once and the grid re-anchors there."""
        delay = at - self._clock()
        if delay <= 0:
            return self._clock()
        stop.wait(delay)
        return at

    def close(self) -> None:
        """Close the recorder (if still recording) and the source."""
        if self.recorder is not None:
            try:
                self.recorder.close()
            finally:
                self.recorder = None
        self.source.close()
