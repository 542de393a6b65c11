"""The sampler: source.read() → pipeline.push(raw) → Frame → recorder.append(raw, frame).

One engine drives every consumer (TUI worker thread, `record`, `snapshot`, bench/poll), so the
pacing rules live in one place:

- polls never overlap: the loop is sequential, the next poll starts only after the previous
  one (and its `on_frame` callback) returned;
- pacing is on a fixed monotonic grid (start + k·interval), so sleeping and poll time never
  accumulate drift; a poll that overruns its slot is followed at once and the grid re-anchors
  there (no burst of catch-up polls);
- the wait between polls goes through a hook (`wait`), so a caller serves its commands (a new
  interval, start/stop recording) while waiting instead of writing a second loop;
- a replay source is read as fast as possible unless the caller asks for pacing (or a speed).

The frame is derived before the sample is recorded, so a recorder that decides what to keep
(trigger capture) is handed the frame instead of deriving it again; recordings stay raw-only.

Recorder errors (disk full, file removed) follow one policy: recording stops, the engine keeps
`recording_stopped` (a typed reason), says it through `on_message` and in that frame's notes,
and — with `stop_on_recording_error` (the `record` command) — ends the run. No UI imports here.
"""

from __future__ import annotations

import errno
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
    def append(self, raw: RawSample, frame: Frame) -> None: ...
    def close(self) -> None: ...


@dataclass(frozen=True)
class RecordingStopped:
    """Why recording stopped: `reason` is short, for a badge ("disk full"); `detail` the line."""

    reason: str
    detail: str


_SQLITE_REASONS = {13: "disk full", 8: "read-only", 5: "file locked", 6: "file locked", 10: "I/O error",
                   14: "cannot open file", 11: "file damaged", 26: "file damaged"}
_ERRNO_REASONS = {errno.ENOSPC: "disk full", errno.EDQUOT: "disk quota exceeded", errno.EROFS: "read-only",
                  errno.EACCES: "permission denied", errno.EPERM: "permission denied",
                  errno.ENOENT: "file removed", errno.EIO: "I/O error"}


def recording_stopped(exc: BaseException) -> RecordingStopped:
    """Classify a recorder error by SQLite result code or errno along the exception chain."""
    reason = "write error"
    cur: BaseException | None = exc
    for _ in range(8):
        if cur is None:
            break
        code = getattr(cur, "sqlite_errorcode", None)
        if isinstance(code, int):
            reason = _SQLITE_REASONS.get(code & 0xFF, reason)
            break
        if isinstance(cur, OSError) and cur.errno is not None:
            reason = _ERRNO_REASONS.get(cur.errno, reason)
            break
        cur = cur.__cause__ or cur.__context__
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return RecordingStopped(reason, f"recording stopped ({reason}): {message}")


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
        stop_on_recording_error: bool = False,
    ) -> None:
        self.source = source
        self.pipeline = pipeline
        self.recorder = recorder
        self.on_message = on_message
        self.stop_on_recording_error = stop_on_recording_error
        self.recording_stopped: RecordingStopped | None = None
        self.interval: float | None = None     # the paced loop's spacing; set_interval changes it
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
        """New poll spacing for the paced loop, and for the source's timeouts."""
        self.interval = interval
        set_source = getattr(self.source, "set_interval", None)
        if set_source is not None:
            set_source(interval)

    # -- one poll -------------------------------------------------------------------------
    def step(self) -> Frame | None:
        """Read one sample, derive its frame, record it. None when the source is exhausted."""
        cpu0, t0 = time.thread_time(), time.perf_counter()
        raw = self.source.read()
        t1 = time.perf_counter()
        if raw is None:
            return None
        cpu1 = time.thread_time()
        frame = self.pipeline.push(raw)
        t2, cpu2 = time.perf_counter(), time.thread_time()
        note = self._record(raw, frame)
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

    def _record(self, raw: RawSample, frame: Frame) -> str | None:
        if self.recorder is None:
            return None
        try:
            self.recorder.append(raw, frame)
            return None
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
        pace: bool | None = None,
        speed: float | None = None,
        wait: Callable[[float], bool] | None = None,
        first_gap: float | None = None,
    ) -> int:
        """Poll until `count` frames, the end of the source, `stop_event`, or a recording error
        under stop_on_recording_error; return the frames made.

        pace=None paces live sources at `interval` and reads replay sources unpaced. With
        `speed`, a replay is paced by the recorded gaps between samples divided by speed.
        `wait(seconds)` replaces the sleep between polls; it may return early, True when it did
        something (set_interval, say): the deadline is then worked out again. `first_gap`
        spaces the second poll (the first frame has no rates yet).
        """
        if count is not None and count < 0:
            raise ValueError("count must be >= 0")
        replay = is_replay(self.source)
        if speed is not None and speed <= 0:
            raise ValueError("speed must be > 0")
        paced = (not replay or speed is not None) if pace is None else pace
        if paced and speed is None and interval <= 0:
            raise ValueError("interval must be > 0")
        self.interval = interval
        stop = stop_event or threading.Event()
        by_recorded_gaps = paced and replay and speed is not None
        made = 0
        next_at = self._clock()
        prev_mono: float | None = None
        while (count is None or made < count) and not stop.is_set() and not self._halt:
            frame = self.step()
            if frame is None:
                break
            if by_recorded_gaps and speed is not None:
                # Each recorded sample is shown its own recorded gap (÷ speed) after the previous one.
                mono = self.last_raw.mono if self.last_raw else None
                if prev_mono is not None and mono is not None:
                    at = next_at + max(0.0, mono - prev_mono) / speed
                    next_at = self._wait_until(lambda: at, stop, wait)
                    if stop.is_set():
                        break
                prev_mono = mono
            made += 1
            if on_frame is not None:
                on_frame(frame)
            if (count is not None and made >= count) or not paced or by_recorded_gaps or self._halt:
                continue
            base, first = next_at, first_gap if made == 1 else None
            next_at = self._wait_until(lambda: base + self._gap(interval, first), stop, wait)
        return made

    def _gap(self, interval: float, first: float | None) -> float:
        spacing = self.interval or interval
        return min(first, spacing) if first is not None else spacing

    def _wait_until(self, at: Callable[[], float], stop: threading.Event,
                    wait: Callable[[float], bool] | None) -> float:
        """Wait for grid point `at()` (or `stop`); the point the grid continues from. A poll that
        overran its slot goes at once and the grid re-anchors there."""
        while True:
            target = at()
            delay = target - self._clock()
            if delay <= 0:
                return self._clock()
            if wait is None:
                stop.wait(delay)
                return target
            if not wait(delay) or stop.is_set():
                return target

    def close(self) -> None:
        """Close the recorder (if still recording) and the source."""
        try:
            self.stop_recording()
        finally:
            self.source.close()
