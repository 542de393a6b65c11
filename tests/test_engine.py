"""Engine loop rules with in-memory sources: pacing without drift, no overlap, recorder failures."""

from __future__ import annotations

import threading
import time

import pytest

from mysqltop.core.frame import Frame
from mysqltop.core.sample import RawSample
from mysqltop.engine import Engine, run_paced


class ListSource:
    """Yields samples built on demand; optional per-read delay; counts concurrent reads."""

    def __init__(self, n: int, delays: list[float] | None = None, replay: bool = False, gap: float = 1.0):
        self.n, self.delays, self.replay, self.gap = n, delays or [], replay, gap
        self.reads: list[float] = []
        self.active = 0
        self.max_active = 0
        self.closed = False

    def read(self) -> RawSample | None:
        i = len(self.reads)
        if i >= self.n:
            return None
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        self.reads.append(time.monotonic())
        if i < len(self.delays):
            time.sleep(self.delays[i])
        self.active -= 1
        return RawSample(wall=1000.0 + i * self.gap, mono=i * self.gap)

    def close(self) -> None:
        self.closed = True


class CountingTimeline:
    def __init__(self) -> None:
        self.pushed: list[RawSample] = []
        self.intervals: list[float] = []

    def push(self, raw: RawSample) -> Frame:
        self.pushed.append(raw)
        return Frame(time=raw.wall, elapsed=None if len(self.pushed) == 1 else 1.0)

    def set_interval(self, seconds: float) -> None:
        self.intervals.append(seconds)


def test_step_reads_records_and_derives_until_exhausted() -> None:
    rec: list[RawSample] = []

    frames: list[Frame] = []

    class Rec:
        def append(self, raw: RawSample, frame: Frame) -> None:
            rec.append(raw)
            frames.append(frame)
        def close(self) -> None: pass

    src, pipe = ListSource(2), CountingTimeline()
    eng = Engine(src, pipe, Rec())
    assert eng.step().time == 1000.0
    assert eng.step().time == 1001.0
    assert eng.step() is None
    assert [r.wall for r in rec] == [r.wall for r in pipe.pushed] == [1000.0, 1001.0]
    # derived first, then recorded: the recorder is handed the frame of its own sample
    assert [f.time for f in frames] == [1000.0, 1001.0]
    assert eng.stats.polls == 2


def test_recorder_failure_disables_recording_and_keeps_going() -> None:
    messages: list[str] = []
    closed: list[bool] = []

    class Broken:
        calls = 0
        def append(self, raw: RawSample, frame: Frame) -> None:
            Broken.calls += 1
            raise OSError(28, "No space left on device")
        def close(self) -> None: closed.append(True)

    eng = Engine(ListSource(3), CountingTimeline(), Broken(), on_message=messages.append)
    frames: list[Frame] = []
    assert eng.run(0.01, on_frame=frames.append) == 3
    assert Broken.calls == 1 and closed == [True] and eng.recorder is None
    assert "No space left on device" in frames[0].notes[0] and frames[1].notes == []
    assert messages == [eng.recording_error]
    assert eng.recording_stopped is not None and eng.recording_stopped.reason == "disk full"


def test_a_recording_error_ends_the_run_when_asked() -> None:
    class Full:
        def append(self, raw: RawSample, frame: Frame) -> None:
            import sqlite3
            err = sqlite3.OperationalError("database or disk is full")
            err.sqlite_errorcode = 13          # as sqlite3 sets it
            raise err
        def close(self) -> None: pass

    eng = Engine(ListSource(5), CountingTimeline(), Full(), stop_on_recording_error=True)
    assert eng.run(0.01) == 1
    assert eng.recording_stopped.reason == "disk full" and "disk full" in eng.recording_error


def test_start_and_stop_recording() -> None:
    got: list[float] = []
    closed: list[bool] = []

    class Rec:
        def append(self, raw: RawSample, frame: Frame) -> None: got.append(raw.wall)
        def close(self) -> None: closed.append(True)

    eng = Engine(ListSource(4), CountingTimeline())
    eng.step()
    eng.start_recording(Rec())
    eng.step()
    eng.step()
    eng.stop_recording()
    eng.step()
    assert got == [1001.0, 1002.0] and closed == [True] and eng.recorder is None


def test_the_wait_hook_serves_commands_and_the_deadline_follows_the_interval() -> None:
    t = FakeTime()
    src = TimedSource(t, [0.0] * 4)
    eng = Engine(src, CountingTimeline(), clock=t.clock)
    calls: list[float] = []

    def wait(seconds: float) -> bool:
        calls.append(round(seconds, 6))
        if len(calls) == 1:            # a command while waiting: the interval becomes 0.5 s
            t.now += 0.1
            eng.set_interval(0.5)
            return True
        t.now += seconds
        return False

    eng.run(1.0, count=3, stop_event=t, wait=wait)   # type: ignore[arg-type]
    assert src.starts == [0.0, 0.5, 1.0]
    assert calls[:2] == [1.0, 0.4]


class FakeTime:
    """A monotonic clock that moves only when the source works or the engine waits: pacing
    tests are exact and cannot flake on a busy machine."""

    def __init__(self) -> None:
        self.now = 0.0
        self.waits: list[float] = []

    def clock(self) -> float:
        return self.now

    # the stop_event interface the engine uses
    def is_set(self) -> bool:
        return False

    def wait(self, timeout: float) -> bool:
        self.waits.append(timeout)
        self.now += timeout
        return False


class TimedSource(ListSource):
    def __init__(self, t: FakeTime, work: list[float]) -> None:
        super().__init__(len(work))
        self.t, self.work, self.starts = t, work, []

    def read(self) -> RawSample | None:
        if len(self.starts) >= self.n:
            return None
        self.starts.append(self.t.now)
        self.t.now += self.work[len(self.starts) - 1]
        return RawSample(wall=1000.0 + self.t.now, mono=self.t.now)


def test_run_paces_on_a_grid_without_drift() -> None:
    # Polls take 0..40 ms; on a 100 ms grid they still start at exactly k·100 ms.
    t = FakeTime()
    src = TimedSource(t, [0.04, 0.0, 0.03, 0.01, 0.04, 0.0, 0.02, 0.0])
    assert Engine(src, CountingTimeline(), clock=t.clock).run(0.1, count=8, stop_event=t) == 8
    assert src.starts == pytest.approx([0.1 * k for k in range(8)])


def test_overrun_starts_next_poll_at_once_then_re_anchors() -> None:
    t = FakeTime()
    src = TimedSource(t, [0.0, 0.25, 0.0, 0.0])
    Engine(src, CountingTimeline(), clock=t.clock).run(0.1, count=4, stop_event=t)
    # right after the 250 ms poll (not at 0.2 or 0.4), then 100 ms later (no catch-up burst)
    assert src.starts == pytest.approx([0.0, 0.1, 0.35, 0.45])


def test_run_in_real_time_never_overlaps_polls() -> None:
    src = ListSource(5, delays=[0.02] * 5)
    t0 = time.monotonic()
    Engine(src, CountingTimeline()).run(0.05, count=5)
    assert src.max_active == 1 and time.monotonic() - t0 >= 0.2


def test_stop_event_interrupts_the_wait() -> None:
    stop = threading.Event()
    src = ListSource(100)
    eng = Engine(src, CountingTimeline())
    threading.Timer(0.15, stop.set).start()
    t0 = time.monotonic()
    made = eng.run(10.0, stop_event=stop)
    assert made == 1 and time.monotonic() - t0 < 5.0   # not the 10 s interval


def test_unpaced_only_when_asked() -> None:
    src = ListSource(50, replay=True)             # a source saying it replays is paced all the same
    eng = Engine(src, CountingTimeline())
    assert eng.run(5.0, count=1) == 1
    t0 = time.monotonic()
    assert eng.run(5.0, pace=False) == 49
    assert time.monotonic() - t0 < 2.0           # paced at 5 s it would take minutes


def test_close_closes_source() -> None:
    src = ListSource(1)
    Engine(src, CountingTimeline()).close()
    assert src.closed


def test_the_pacing_loop_waits_each_ticks_own_due_time_and_for_commands() -> None:
    # A replay recorded at 0, 1, 6 (a 5 s gap: the server stalled), 7 s, played at speed 2: each
    # sample is due half its own gap after the one before it — not the previous pair's gap.
    # Between the 2nd and 3rd it is paused (nothing due) until a command plays it again.
    t = FakeTime()
    monos = [0.0, 1.0, 6.0, 7.0]
    shown: list[float] = []
    state = {"i": 0, "paused_once": False, "playing": True}

    def tick() -> bool:
        shown.append(t.now)
        state["i"] += 1
        return state["i"] < len(monos)

    def due(anchor: float) -> float | None:
        if state["i"] == 2 and not state["paused_once"]:
            state["paused_once"], state["playing"] = True, False
        if not state["playing"]:
            return None
        i = state["i"]
        return anchor + (monos[i] - monos[i - 1]) / 2.0

    waits: list[float | None] = []

    def wait(seconds: float | None) -> bool:
        waits.append(seconds)
        if seconds is None:          # paused: a "play" command arrives 10 s later
            t.now += 10.0
            state["playing"] = True
            return True
        t.now += seconds
        return False

    run_paced(tick, due, t, wait, t.clock)  # type: ignore[arg-type]
    # the play command came after the 3rd sample was due: it goes at once, the grid re-anchors there
    assert shown == pytest.approx([0.0, 0.5, 10.5, 11.0])
    assert waits.count(None) == 1


def test_tick_first_false_waits_for_the_first_due_time() -> None:
    t = FakeTime()
    shown: list[float] = []

    def tick() -> bool:
        shown.append(t.now)
        return len(shown) < 2

    run_paced(tick, lambda anchor: anchor + 1.0, t, None, t.clock, tick_first=False)  # type: ignore[arg-type]
    assert shown == pytest.approx([1.0, 2.0])
