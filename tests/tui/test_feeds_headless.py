"""The feeds layer under the widgets runs without Textual: commands in, plain events out."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from mysqltop.timeline.cursor import Cursor
from mysqltop.timeline.ring import SampleRing
from mysqltop.views.tui.browse import Browser
from mysqltop.views.tui.feed_commands import NextFinding, Play, SeekTime, Step, ToEnd
from mysqltop.views.tui.feed_events import FrameShown, Notice, Opened
from mysqltop.views.tui.position import ViewMode
from mysqltop.views.tui.replay_feed import ReplayFeed

from .conftest import ListReader
from .samples import samples

ROOT = Path(__file__).resolve().parents[2]


def test_the_feeds_import_no_textual() -> None:
    code = ("import sys; import mysqltop.views.tui.feeds, mysqltop.views.tui.replay_feed, "
            "mysqltop.views.tui.browse; print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('textual', 'rich')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_replay_feed_driven_headless() -> None:
    events: list[object] = []
    got = threading.Condition()

    def post(event: object) -> None:
        with got:
            events.append(event)
            got.notify_all()

    def shown() -> list[FrameShown]:
        return [e for e in events if isinstance(e, FrameShown)]

    def until(pred) -> None:  # type: ignore[no-untyped-def]
        with got:
            assert got.wait_for(pred, timeout=30)

    reader = ListReader(samples(40))
    feed = ReplayFeed(lambda: reader, start=10, playing=False)
    feed.start(post)
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


def test_a_browser_over_the_live_ring_finds_where_findings_start() -> None:
    """[ and ]: the samples where a finding the sample before did not have appears."""
    from mysqltop.recording.reader import RecordingReader

    ring = SampleRing(capacity=400)
    with RecordingReader(ROOT / "mysqltop" / "data" / "incident.mtrec") as r:
        for i in range(len(r)):
            ring.append(r.sample(i))
    events: list[object] = []
    b = Browser(Cursor(ring), events.append, ViewMode.LIVE)
    b.cursor.go(len(ring) - 1)
    starts = [j for j in range(ring.first + 1, len(ring)) if b._started(j)]
    assert len(starts) >= 2                      # the incident's storm brings findings
    b.apply(NextFinding(-1))
    assert b.cursor.index == starts[-1]
    b.apply(NextFinding(-1))
    assert b.cursor.index == starts[-2]
    b.apply(NextFinding(1))
    assert b.cursor.index == starts[-1]
    b.apply(NextFinding(1))                      # nothing starts after the last one: stays, says so
    assert b.cursor.index == starts[-1] and isinstance(events[-1], Notice)
    assert "no finding starts after" in events[-1].text
    b.apply(ToEnd())
    assert b.cursor.index == len(ring) - 1
    b.apply(Play(True))                          # at the end: plays from the oldest held
    assert b.cursor.index == ring.first and b.playing


def test_pausing_live_adopts_the_frames_and_findings_the_engine_made() -> None:
    """Pausing shows the newest sample as live showed it, deriving and judging none of the
    samples the engine's pipeline still holds."""
    from mysqltop.engine import Engine
    from mysqltop.recording.reader import RecordingReader
    from mysqltop.timeline.pipeline import FramePipeline
    from mysqltop.views.tui.feeds import LiveFeed

    class Samples:
        def __init__(self, raws: list) -> None:  # type: ignore[type-arg]
            self.raws = raws

        def read(self):  # type: ignore[no-untyped-def]
            return self.raws.pop(0) if self.raws else None

        def close(self) -> None:
            pass

    with RecordingReader(ROOT / "recordings" / "purge-read-view.mtrec") as r:
        raws = [r.sample(i) for i in range(80, 140)]
    engine = Engine(Samples(raws), FramePipeline())
    feed = LiveFeed(engine, 1.0)
    events: list[object] = []
    feed._post = events.append  # type: ignore[method-assign]
    live = [engine.step() for _ in range(60)]
    for frame in live:
        feed._on_frame(frame)
    assert feed.pause() and feed.browser is not None
    cursor = feed.browser.cursor
    paused = [e for e in events if isinstance(e, FrameShown)][-1].frame
    assert cursor.derives == 0 and cursor.judge.judged == 0
    assert paused.time == live[-1].time and paused.advice == live[-1].advice
    assert paused.throughput == live[-1].throughput
