"""The feeds layer under the widgets runs without Textual: commands in, plain events out."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

from mysqltop.timeline.cursor import Cursor
from mysqltop.timeline.ring import SampleRing
from mysqltop.views.tui.feed_commands import Play, SeekTime, Step, ToEnd
from mysqltop.views.tui.feed_events import FrameShown, Notice, Opened
from mysqltop.views.tui.position import ViewMode
from mysqltop.views.tui.feeds import navigate
from mysqltop.views.tui.replay_feed import ReplayFeed

from .conftest import ListReader
from .samples import samples

ROOT = Path(__file__).resolve().parents[2]


def test_the_feeds_import_no_textual() -> None:
    code = ("import sys; import mysqltop.views.tui.feeds, mysqltop.views.tui.replay_feed, "
            "mysqltop.timeline.navigator; print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('textual', 'rich')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


class Posted:
    """What a feed posts, from its thread; `until(pred)` waits until pred(events) holds."""

    def __init__(self) -> None:
        self.events: list[object] = []
        self.got = threading.Condition()

    def __call__(self, event: object) -> None:
        with self.got:
            self.events.append(event)
            self.got.notify_all()

    def until(self, pred, timeout: float = 30) -> None:  # type: ignore[no-untyped-def]
        with self.got:
            assert self.got.wait_for(lambda: pred(self.events), timeout=timeout)


def test_a_replay_feed_driven_headless() -> None:
    posted = Posted()
    events = posted.events

    def shown() -> list[FrameShown]:
        return [e for e in events if isinstance(e, FrameShown)]

    def until(pred) -> None:  # type: ignore[no-untyped-def]
        posted.until(lambda _events: pred())

    reader = ListReader(samples(40))
    feed = ReplayFeed(lambda: reader, start=10, playing=False)
    feed.start(posted)
    try:
        until(lambda: any(e.position.index == 10 for e in shown()))
        assert isinstance(events[0], Opened)
        feed.send(Step(-3))
        until(lambda: shown()[-1].position.index == 7)
        feed.send(SeekTime(reader.sample(30).wall))
        until(lambda: shown()[-1].position.index == 30)
        feed.send(ToEnd())
        until(lambda: shown()[-1].position.index == 39 and shown()[-1].position.ended)
    finally:
        feed.stop()
    last = shown()[-1]
    assert last.frame.time == reader.sample(39).wall and last.trend[-1] is last.frame


def test_a_replay_feed_scans_the_findings_in_its_idle_time() -> None:
    """Left alone, a replay's feed judges the findings around the moment shown; `]` then lands
    on a finding and posts its frame with the findings, never a frame still being judged."""
    from mysqltop.recording.reader import RecordingReader
    from mysqltop.views.tui.feed_commands import NextFinding

    posted = Posted()
    reader = RecordingReader(ROOT / "recordings" / "purge-read-view.mtrec")
    feed = ReplayFeed(lambda: reader, start=0, playing=False)
    feed.start(posted)
    try:
        deadline = time.monotonic() + 300          # nothing is posted while it scans: look
        while feed.navigator is None or feed.navigator.scan is None or not feed.navigator.scan.done_around(0):
            assert time.monotonic() < deadline, "the scan did not finish"
            time.sleep(0.1)
        nav = feed.navigator
        assert nav.scan is not None
        assert nav.scan.cursor.judge.judged > 100         # the recording's samples, judged ahead
        judged = nav.cursor.judge.judged
        with posted.got:
            posted.events.clear()
        feed.send(NextFinding(1))
        posted.until(lambda events: any(isinstance(e, FrameShown) and e.position.index != 0 for e in events))
        landed = [e for e in posted.events if isinstance(e, FrameShown) and e.position.index != 0]
        assert not landed[0].position.judging and {a.id for a in landed[0].frame.advice}
        assert nav.cursor.judge.judged == judged           # the findings came from the scan
    finally:
        feed.stop()
        reader.close()


def test_a_navigator_over_the_live_ring_finds_where_findings_start() -> None:
    """[ and ]: the samples where a finding the sample before did not have appears."""
    from mysqltop.recording.reader import RecordingReader

    ring = SampleRing(capacity=400)
    with RecordingReader(ROOT / "mysqltop" / "data" / "incident.mtrec") as r:
        for i in range(len(r)):
            ring.append(r.sample(i))
    events: list[object] = []
    b = navigate(Cursor(ring), events.append, ViewMode.LIVE)
    b.cursor.go(len(ring) - 1)
    starts = [j for j in range(ring.first + 1, len(ring)) if b.search.started(j)]
    assert len(starts) >= 2                      # the incident's storm brings findings
    b.finding(-1)
    assert b.cursor.index == starts[-1]
    b.finding(-1)
    assert b.cursor.index == starts[-2]
    b.finding(1)
    assert b.cursor.index == starts[-1]
    b.finding(1)                                 # nothing starts after the last one: stays, says so
    assert b.cursor.index == starts[-1] and isinstance(events[-1], Notice)
    assert "no finding starts after" in events[-1].text
    b.to_end()
    assert b.cursor.index == len(ring) - 1
    b.play(True)                                 # at the end: plays from the oldest held
    assert b.cursor.index == ring.first and b.playing


class Samples:
    """A sample source over a list (a live server's polls, already read)."""

    def __init__(self, raws: list) -> None:  # type: ignore[type-arg]
        self.raws = raws

    def read(self):  # type: ignore[no-untyped-def]
        return self.raws.pop(0) if self.raws else None

    def close(self) -> None:
        pass


def test_pausing_live_is_the_same_cursor_stopping() -> None:
    """Live is the newest index of the one cursor: pausing shows the newest sample as live
    showed it, deriving and judging nothing again."""
    from mysqltop.engine import Engine
    from mysqltop.recording.reader import RecordingReader
    from mysqltop.timeline.polled import live_timeline
    from mysqltop.views.tui.feeds import LiveFeed

    with RecordingReader(ROOT / "recordings" / "purge-read-view.mtrec") as r:
        raws = [r.sample(i) for i in range(80, 140)]
    engine = Engine(Samples(raws), live_timeline(1.0))
    feed = LiveFeed(engine, 1.0)
    events: list[object] = []
    feed._post = events.append  # type: ignore[method-assign]
    live = [engine.step() for _ in range(60)]
    for frame in live:
        feed._on_frame(frame)
    cursor = feed.timeline.cursor
    derived, judged = cursor.derives, cursor.judge.judged
    assert cursor.index == feed.timeline.newest == 59
    assert feed.pause() and feed.paused
    paused = [e for e in events if isinstance(e, FrameShown)][-1]
    assert cursor.derives == derived and cursor.judge.judged == judged
    assert paused.position.index == 59 and not paused.position.playing
    assert paused.frame.time == live[-1].time and paused.frame.advice == live[-1].advice
    assert paused.frame.throughput == live[-1].throughput


def _hour(start: float, seconds: float, interval: float, first: int) -> list:  # type: ignore[type-arg]
    """Polls of a quiet server every `interval` for `seconds` from `start`."""
    from mysqltop.core.sample import RawSample

    n = int(seconds / interval)
    return [RawSample(wall=1_700_000_000.0 + start + k * interval, mono=start + k * interval, global_status={
        "Uptime": str(int(1000 + start + k * interval)), "Com_commit": str(10 * (first + k)),
        "Com_rollback": "0", "Questions": str(40 * (first + k)), "Threads_running": "2"}) for k in range(n)]


def test_an_hour_of_live_polls_steps_back_59_minutes_before_and_after_a_new_interval(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Pausing after an hour of live polling and going to −59 min shows a frame; the same after
    `-` (a faster interval): the history keeps its hour in seconds, not in samples."""
    from mysqltop.engine import Engine
    from mysqltop.timeline import judge

    monkeypatch.setattr(judge, "advise", lambda frames, variables, min_span_s=0.0: [])   # history, not findings
    from mysqltop.timeline.polled import live_timeline
    from mysqltop.views.tui.feed_commands import Jump, SetInterval
    from mysqltop.views.tui.feeds import LiveFeed

    raws = _hour(0.0, 3600.0, 1.0, 0)
    engine = Engine(Samples(raws), live_timeline(1.0))
    feed = LiveFeed(engine, 1.0)
    events: list[object] = []
    feed._post = events.append  # type: ignore[method-assign]

    def poll(n: int) -> None:
        for _ in range(n):
            frame = engine.step()
            assert frame is not None
            feed._on_frame(frame)

    def back_59_minutes(tps: float) -> None:
        feed.apply(Play(False))
        newest = feed.timeline.store.time_or_none(feed.timeline.newest)
        assert newest is not None
        feed.apply(Jump(-59 * 60))
        shown = [e for e in events if isinstance(e, FrameShown)][-1]
        assert shown.position.sample_time is not None
        assert abs(shown.position.sample_time - (newest - 59 * 60)) <= 1.0
        assert not shown.frame.stale and shown.frame.throughput.tps == tps
        feed.apply(ToEnd())

    poll(3600)
    back_59_minutes(10.0)
    feed.apply(SetInterval(0.25))                         # `-`: four times the samples per second
    assert engine.interval == 0.25
    engine.source.raws.extend(_hour(3600.0, 1800.0, 0.25, 3600))   # type: ignore[attr-defined]
    poll(4 * 1800)                                        # half an hour at 0.25 s: 7200 samples
    back_59_minutes(10.0)                                 # … and −59 min is still in the 1 s half
    assert feed.session.ring.held > 7200 + 1740
