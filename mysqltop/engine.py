"""The sampler: source.read() → timeline.push(raw) → Frame → recorder.append(raw, frame).

One engine drives every consumer (TUI worker thread, `record`, `snapshot`, bench/poll), so the
pacing rules live in one place:

- polls never overlap: the loop is sequential, the next poll starts only after the previous
  one (and its `on_frame` callback) returned;
- pacing is on a fixed monotonic grid (start + k·interval), so sleeping and poll time never
  accumulate drift; a poll that overruns its slot is followed at once and the grid re-anchors
  there (no burst of catch-up polls);
- the wait between polls goes through a hook (`wait`), so a caller serves its commands (a new
  interval, start/stop recording) while waiting instead of writing a second loop;
- `run_paced` is the one pacing loop: live polls run in it at the interval, and the TUI
  timeline's playback (each sample its recorded gap ÷ speed after the one before, nothing due
  while paused) with its own `due`. Recorded samples are never read through the engine: they
  are moved through by the timeline cursor (timeline/cursor.py).

Every sample read is appended to the session's timeline (timeline/polled.PolledTimeline), whose
one cursor gives its frame: live is the newest index of the store the live TUI steps back through.
The frame is derived before the sample is recorded, so a recorder that decides what to keep
(trigger capture) is handed the frame instead of deriving it again; recordings stay raw-only.

A recorder that pauses on a full disk (recording/pausing.py) is asked `paused`, and its pause
and resume lines join the frame's notes. Other recorder errors (disk full without one, file
removed) follow one policy: recording stops, the engine keeps
`recording_stopped` (a typed reason), says it through `on_message` and in the notes of the frame
it hands out (a new value: the timeline's frame stays as derived), and — with
`stop_on_recording_error` (the `record` command) — ends the run. No UI imports here.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
import time
from dataclasses import dataclass
from typing import Callable, Protocol, runtime_checkable

from mysqltop.core.frame import Frame
from mysqltop.core.sample import RawSample
from mysqltop.recording.stopped import RecordingStopped, recording_stopped
from mysqltop.sources.sample_source import PacedSource, SampleSource


class Timeline(Protocol):
    """Where each sample goes and its frame comes from (timeline/polled.PolledTimeline)."""

    def push(self, raw: RawSample) -> Frame: ...
    def set_interval(self, seconds: float) -> None: ...


class Recorder(Protocol):
    def append(self, raw: RawSample, frame: Frame) -> None: ...
    def close(self) -> None: ...


@runtime_checkable
class PausingRecorder(Recorder, Protocol):
    """A recorder that waits out a full disk (recording/pausing.py, or one writing through it):
    why it is paused (a RecordingStopped) or None, how many times it paused or resumed, and the
    line that said the last of them."""

    @property
    def paused(self) -> object | None: ...
    @property
    def changes(self) -> int: ...
    @property
    def last_change(self) -> str | None: ...


@dataclass
class EngineStats:
    """Running totals a status line or bench can show (all client-side)."""

    polls: int = 0
    read_s: float = 0.0          # wall seconds inside source.read() (server + wire + host)
    derive_s: float = 0.0        # wall seconds inside timeline.push() (parse + derive + findings)
    cpu_s: float = 0.0           # this thread's CPU seconds in step() (wire decode, parse, derive)
    last_cpu_ms: float = 0.0     # CPU of the last step: read (wire decode, host) + derive
    last_derive_cpu_ms: float = 0.0   # of which parse + derive + findings
    last_read_ms: float = 0.0    # wall time of the last source.read()
    stale: int = 0



class Engine:
    def __init__(
        self,
        source: SampleSource,
        timeline: Timeline,
        recorder: Recorder | None = None,
        *,
        on_message: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        stop_on_recording_error: bool = False,
    ) -> None:
        self.source = source
        self.timeline = timeline
        self.recorder = recorder
        self.on_message = on_message
        self.stop_on_recording_error = stop_on_recording_error
        self.recording_stopped: RecordingStopped | None = None
        self.interval: float | None = None     # the paced loop's spacing (the one place it is held)
        self.last_raw: RawSample | None = None
        self.stats = EngineStats()
        self._clock = clock
        self._halt = False

    @property
    def recording_error(self) -> str | None:
        return self.recording_stopped.detail if self.recording_stopped else None

    # -- recording --------------------------------------------------------------------------
    def start_recording(self, recorder: Recorder) -> None:
        """Record every following sample (a recorder already running is closed first)."""
        self.stop_recording()
        self.recorder, self.recording_stopped = recorder, None

    def stop_recording(self) -> None:
        recorder, self.recorder = self.recorder, None
        if recorder is not None:
            recorder.close()

    def set_interval(self, interval: float) -> None:
        """New poll spacing for the paced loop, the source's timeouts and the timeline's cache."""
        self.interval = interval
        if isinstance(self.source, PacedSource):
            self.source.set_interval(interval)
        self.timeline.set_interval(interval)

    # -- one poll -------------------------------------------------------------------------
    def step(self) -> Frame | None:
        """Read one sample, derive its frame, record it. None when the source is exhausted."""
        cpu0, t0 = time.thread_time(), time.perf_counter()
        raw = self.source.read()
        t1 = time.perf_counter()
        if raw is None:
            return None
        cpu1 = time.thread_time()
        frame = self.timeline.push(raw)
        t2, cpu2 = time.perf_counter(), time.thread_time()
        note = self._record(raw, frame)
        if note:
            frame = dataclasses.replace(frame, notes=[*frame.notes, note])
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

    @property
    def recording_paused(self) -> RecordingStopped | None:
        """Why recording is paused (a recorder that waits out a full disk), else None."""
        recorder = self.recorder
        paused = recorder.paused if isinstance(recorder, PausingRecorder) else None
        return paused if isinstance(paused, RecordingStopped) else None

    def _record(self, raw: RawSample, frame: Frame) -> str | None:
        if self.recorder is None:
            return None
        try:
            recorder = self.recorder
            if not isinstance(recorder, PausingRecorder):
                recorder.append(raw, frame)
                return None
            changes = recorder.changes
            recorder.append(raw, frame)
            if recorder.changes == changes:
                return None
            line = recorder.last_change                       # paused, or resumed
            if line and self.on_message:
                self.on_message(line)
            return line
        except Exception as exc:  # the policy: keep monitoring, stop recording, say why (typed)
            recorder, self.recorder = self.recorder, None
            try:
                recorder.close()
            except Exception:
                pass
            self.recording_stopped = stopped = recording_stopped(exc)
            self._halt = self.stop_on_recording_error
            if self.on_message:
                self.on_message(stopped.detail)
            return stopped.detail

    # -- the paced loop -------------------------------------------------------------------
    def run(
        self,
        interval: float,
        count: int | None = None,
        on_frame: Callable[[Frame], None] | None = None,
        stop_event: threading.Event | None = None,
        *,
        pace: bool = True,
        wait: Callable[[float | None], bool] | None = None,
        first_gap: float | None = None,
    ) -> int:
        """Poll until `count` frames, the end of the source, `stop_event`, or a recording error
        under stop_on_recording_error; return the frames made.

        pace=False polls back to back (a caller that wants every sample as fast as it comes).
        `wait(seconds)` replaces the sleep between polls (see run_paced). `first_gap` spaces
        the second poll (the first frame has no rates yet).
        """
        if count is not None and count < 0:
            raise ValueError("count must be >= 0")
        paced = pace
        if paced and interval <= 0:
            raise ValueError("interval must be > 0")
        if interval != self.interval:
            self.interval = interval               # the source was made for it already
            if interval > 0:
                self.timeline.set_interval(interval)
        made = 0

        def more() -> bool:
            return (count is None or made < count) and not self._halt

        def tick() -> bool:
            nonlocal made
            if not more():
                return False
            frame = self.step()
            if frame is None:
                return False
            made += 1
            if on_frame is not None:
                on_frame(frame)
            return more()

        def due(anchor: float) -> float | None:
            if not paced:
                return anchor
            first = first_gap if made == 1 else None
            return anchor + self._gap(interval, first)

        run_paced(tick, due, stop_event or threading.Event(), wait, self._clock)
        return made

    def _gap(self, interval: float, first: float | None) -> float:
        spacing = self.interval or interval
        return min(first, spacing) if first is not None else spacing

    def close(self) -> None:
        """Close the recorder (if still recording) and the source."""
        try:
            self.stop_recording()
        finally:
            self.source.close()


def run_paced(tick: Callable[[], bool], due: Callable[[float], float | None], stop: threading.Event,
              wait: Callable[[float | None], bool] | None = None,
              clock: Callable[[], float] = time.monotonic, *, tick_first: bool = True) -> None:
    """The one pacing loop (live polls, TUI replay): `tick()` (False: done), then wait until
    `due(anchor)` — the clock time of the next tick, worked out from `anchor`, the time the
    previous one was due; None: nothing is due (a paused or ended replay) until a command.

    `wait(seconds)` (None: until something happens) replaces the sleep, so a caller serves its
    commands while waiting instead of writing a second loop; it may return early, True when it
    did something: `due` is then asked again. A tick that overran its slot is followed at once
    and the grid re-anchors there (no burst of catch-up ticks); sleeping never accumulates drift.
    tick_first=False waits for the first tick too (what is on show at the start is already due).
    """
    anchor = clock()
    if not tick_first:
        anchor = _wait_until(functools.partial(due, anchor), stop, wait, clock)
    while not stop.is_set():
        if not tick():
            return
        anchor = _wait_until(functools.partial(due, anchor), stop, wait, clock)


def _wait_until(at: Callable[[], float | None], stop: threading.Event,
                wait: Callable[[float | None], bool] | None, clock: Callable[[], float]) -> float:
    """Wait for the time `at()` (or `stop`); the anchor the grid continues from."""
    while not stop.is_set():
        target = at()
        if target is None:
            if wait is None:
                stop.wait()
            else:
                wait(None)
            continue
        delay = target - clock()
        if delay <= 0:
            return clock()
        if wait is None:
            stop.wait(delay)
            return target
        if not wait(delay):
            return target
    return clock()
