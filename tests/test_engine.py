"""Engine loop rules with in-memory sources: pacing without drift, no overlap, recorder failures."""

from __future__ import annotations

import threading
import time

from mysqltop.core.frame import Frame
from mysqltop.core.sample import RawSample
from mysqltop.engine import Engine


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


class CountingPipeline:
    def __init__(self) -> None:
        self.pushed: list[RawSample] = []

    def push(self, raw: RawSample) -> Frame:
        self.pushed.append(raw)
        return Frame(time=raw.wall, elapsed=None if len(self.pushed) == 1 else 1.0)


def test_step_reads_records_and_derives_until_exhausted() -> None:
    rec: list[RawSample] = []

    class Rec:
        def append(self, raw: RawSample) -> None: rec.append(raw)
        def close(self) -> None: pass

    src, pipe = ListSource(2), CountingPipeline()
    eng = Engine(src, pipe, Rec())
    assert eng.step().time == 1000.0
    assert eng.step().time == 1001.0
    assert eng.step() is None
    assert [r.wall for r in rec] == [r.wall for r in pipe.pushed] == [1000.0, 1001.0]
    assert eng.stats.polls == 2


def test_recorder_failure_disables_recording_and_keeps_going() -> None:
    messages: list[str] = []
    closed: list[bool] = []

    class Broken:
        calls = 0
        def append(self, raw: RawSample) -> None:
            Broken.calls += 1
            raise OSError(28, "No space left on device")
        def close(self) -> None: closed.append(True)

    eng = Engine(ListSource(3), CountingPipeline(), Broken(), on_message=messages.append)
    frames: list[Frame] = []
    assert eng.run(0.01, on_frame=frames.append) == 3
    assert Broken.calls == 1 and closed == [True] and eng.recorder is None
    assert "No space left on device" in frames[0].notes[0] and frames[1].notes == []
    assert messages == [eng.recording_error]


def test_run_paces_on_a_grid_without_drift() -> None:
    # Reads take 0..40 ms; on a 100 ms grid the starts stay at k·100 ms (no accumulation).
    src = ListSource(8, delays=[0.04, 0.0, 0.03, 0.01, 0.04, 0.0, 0.02, 0.0])
    eng = Engine(src, CountingPipeline())
    assert eng.run(0.1, count=8) == 8
    starts = [t - src.reads[0] for t in src.reads]
    for k, t in enumerate(starts):
        assert abs(t - 0.1 * k) < 0.05, starts  # drift would reach 0.14 s
    assert src.max_active == 1


def test_overrun_starts_next_poll_at_once_then_re_anchors() -> None:
    src = ListSource(4, delays=[0.0, 0.25, 0.0, 0.0])
    Engine(src, CountingPipeline()).run(0.1, count=4)
    s = [t - src.reads[0] for t in src.reads]
    assert abs(s[1] - 0.1) < 0.04
    assert abs(s[2] - 0.35) < 0.04          # right after the 250 ms poll, not at 0.2 or 0.4
    assert abs(s[3] - 0.45) < 0.04          # grid re-anchored at 0.35 (no catch-up burst at 0.35)


def test_stop_event_interrupts_the_wait() -> None:
    stop = threading.Event()
    src = ListSource(100)
    eng = Engine(src, CountingPipeline())
    threading.Timer(0.15, stop.set).start()
    t0 = time.monotonic()
    made = eng.run(10.0, stop_event=stop)
    assert made == 1 and time.monotonic() - t0 < 1.0


def test_replay_sources_are_unpaced_unless_asked() -> None:
    src = ListSource(50, replay=True)
    t0 = time.monotonic()
    assert Engine(src, CountingPipeline()).run(5.0) == 50
    assert time.monotonic() - t0 < 0.5
    # with a speed, the recorded 1 s gaps are replayed at 20x: 3 gaps ≈ 150 ms
    src = ListSource(4, replay=True)
    t0 = time.monotonic()
    Engine(src, CountingPipeline()).run(5.0, speed=20.0)
    assert 0.12 < time.monotonic() - t0 < 0.4


def test_close_closes_source() -> None:
    src = ListSource(1)
    Engine(src, CountingPipeline()).close()
    assert src.closed
