"""One timeline: the live TUI against a throwaway MariaDB pauses, steps back, seeks and returns to
live exactly as a replay moves — the same test body drives both — and every moment shown is the
frame the recording gives for that sample. report, snapshot --replay and the replay TUI give the
same frames for the same samples."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

import pytest

from mysqltop.cli import build_parser, main
from mysqltop.arguments import open_live
from mysqltop.timeline.session_store import SessionStore
from mysqltop.timeline.polled import PolledTimeline, live_timeline
from mysqltop.core.when import parse_when
from mysqltop.engine import Engine
from mysqltop.timeline.cursor import Cursor
from mysqltop.recording.format import KEYFRAME_EVERY
from mysqltop.timeline.ring import SampleRing
from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.writer import RecordingWriter
from mysqltop.views.headless import json_frame
from mysqltop.views.tui.app import MysqltopApp
from mysqltop.views.tui.feeds import LiveFeed
from mysqltop.views.tui.position import ViewMode
from mysqltop.views.tui.replay_app import replay_app
from tests.support.load import LoadGenerator, LoadSpec

from .conftest import Toasts, pilot, screen_text, wait_for

ROOT = Path(__file__).resolve().parents[2]
INCIDENT = ROOT / "mysqltop" / "data" / "incident.mtrec"
INTERVAL = 0.3
BACK = 5             # samples stepped back
SEEK_BACK = 8        # samples before the paused one that the seek by time goes to


Shown = list[tuple[int, float, str]]      # (index, sample time, frame as JSON) of each moment checked


async def walk_the_timeline(app: MysqltopApp, pilot: Any, time_of: Callable[[int], float | None],
                            shown: Shown) -> None:
    """p, ← × BACK, g HH:MM:SS, end — on a live view or a replay alike."""
    def moment() -> None:
        p, frame = app.position, app.frame
        assert p.index is not None and p.sample_time is not None and frame is not None
        assert frame.time == p.sample_time
        assert app.trend[-1] is frame                     # charts (zoomed too) end at the cursor
        shown.append((p.index, p.sample_time, json_frame(frame)))

    await wait_for(pilot, lambda: app.frame is not None and (app.position.count or 0) >= 3 * SEEK_BACK)
    await pilot.press("p")
    await wait_for(pilot, lambda: app.position.index is not None and not app.position.playing)
    top = app.position.index
    assert top is not None
    moment()
    await pilot.press("4")                                # a zoomed chart follows the cursor too
    await wait_for(pilot, lambda: app.zoomed == 4)
    for _ in range(BACK):
        await pilot.press("left")
    await wait_for(pilot, lambda: app.position.index == top - BACK)
    moment()
    assert "PAUSED" in screen_text(app).splitlines()[0]
    # seek by time, as a DBA types it: the clock of an earlier sample, to the second
    t = time_of(top - SEEK_BACK)
    assert t is not None
    typed = datetime.fromtimestamp(t).strftime("%H:%M:%S")
    want = max(i for i in range(top + 1) if (ti := time_of(i)) is not None
               and ti <= parse_when(typed, t - 3600, t + 3600))
    await pilot.press("g")
    await pilot.press(*typed, "enter")
    await wait_for(pilot, lambda: app.position.index == want)
    moment()
    await pilot.press("right")
    await wait_for(pilot, lambda: app.position.index == want + 1)
    moment()
    await pilot.press("end")


def frames_of_the_recording(path: Path, shown: Shown) -> None:
    """Each moment shown is the frame the recording gives for that sample (the same index)."""
    assert shown
    with RecordingReader(path) as reader:
        cursor = Cursor(reader)
        for index, t, frame in shown:
            assert reader.time_at(index) == t
            assert json.loads(frame) == json.loads(json_frame(cursor.frame_at(index))), index


@pytest.fixture(scope="module")
def loaded(mariadb):  # type: ignore[no-untyped-def]
    gen = LoadGenerator(mariadb.root_kwargs(), LoadSpec(mode="oltp", threads=3, rate=40, duration=300,
                                                        rows=2000, table="e_timeline"))
    gen.prepare()
    gen.start()
    try:
        yield mariadb
    finally:
        gen.stop()


@pytest.fixture(scope="module")
def live_walk(loaded, tmp_path_factory) -> tuple[Path, Shown]:  # type: ignore[no-untyped-def]
    """The live TUI, recording from its first poll (`mysqltop --record`), walked through."""
    path = tmp_path_factory.mktemp("timeline") / "live.mtrec"
    args = build_parser().parse_args(["record", str(path), *loaded.cli_args(), "--interval", str(INTERVAL)])
    source, _caps = open_live(args)
    feed = LiveFeed(Engine(source, live_timeline(INTERVAL)), INTERVAL, record_path=str(path),
                    open_recorder=lambda p: RecordingWriter(p, interval=INTERVAL))
    app = MysqltopApp(feed, ViewMode.LIVE, address="test", parse_when=parse_when)
    shown: Shown = []

    @pilot
    async def run() -> None:
        async with app.run_test(size=(120, 40)) as p:
            await walk_the_timeline(app, p, feed.session.time_or_none, shown)
            await wait_for(p, lambda: app.position.live and app.position.index is None)
            assert "LIVE" in screen_text(app).splitlines()[0]
            polled = app.frame
            await wait_for(p, lambda: app.frame is not polled)        # live again: new polls shown
            await p.press("left")                                   # ← pauses too, one back from now
            await wait_for(p, lambda: not app.position.playing and app.position.index is not None)
            assert app.position.index < (app.position.count or 0) - 1      # one back from the newest
            await p.press("p")
            await wait_for(p, lambda: app.position.live)
    run()
    return path, shown


@pytest.mark.live
def test_live_pause_step_seek_and_back_to_live(live_walk) -> None:  # type: ignore[no-untyped-def]
    path, shown = live_walk
    assert len(shown) == 4 and shown[1][0] == shown[0][0] - BACK
    assert json.loads(shown[1][2])["throughput"]["tps"] > 0        # really under load
    frames_of_the_recording(path, shown)


@pytest.fixture(scope="module")
def deep_walk(loaded, tmp_path_factory) -> tuple[Path, Shown, list[str]]:  # type: ignore[no-untyped-def]
    """The live TUI recording with the smallest ring (20–40 samples in memory): stepping back goes
    past what memory holds, into the recording, seamlessly."""
    path = tmp_path_factory.mktemp("timeline") / "deep.mtrec"
    args = build_parser().parse_args(["record", str(path), *loaded.cli_args(), "--interval", str(INTERVAL)])
    source, _caps = open_live(args)
    ring = SampleRing(capacity=2 * KEYFRAME_EVERY)
    feed = LiveFeed(Engine(source, PolledTimeline(SessionStore(ring))), INTERVAL, record_path=str(path),
                    open_recorder=lambda p: RecordingWriter(p, interval=INTERVAL))
    app = MysqltopApp(feed, ViewMode.LIVE, address="test", parse_when=parse_when)
    shown: Shown = []
    toasts = Toasts()

    def moment() -> None:
        p, frame = app.position, app.frame
        assert p.index is not None and p.sample_time is not None and frame is not None
        assert frame.time == p.sample_time and not frame.stale
        assert p.first == 0 and p.history_recorded and p.behind_s is not None and p.behind_s > 0
        assert p.index < ring.first                          # not in memory: read from the recording
        shown.append((p.index, p.sample_time, json_frame(frame)))

    @pilot
    async def run() -> None:
        async with app.run_test(size=(120, 40), message_hook=toasts) as p:
            await wait_for(p, lambda: ring.first >= KEYFRAME_EVERY, timeout=120)     # memory dropped some
            await p.press("p")
            await wait_for(p, lambda: app.position.index is not None and not app.position.playing)
            top = app.position.index
            assert top is not None
            back = top - ring.first + 2                      # ← across the seam, two samples past it
            for _ in range(back):
                await p.press("left")
            await wait_for(p, lambda: app.position.index == top - back)
            moment()
            assert "PAUSED" in screen_text(app).splitlines()[0]
            with RecordingReader(path) as times:             # g: a time only the recording holds
                t0, t8 = times.time_at(0), times.time_at(8)
                typed = datetime.fromtimestamp(t8).strftime("%H:%M:%S")
                want = max(i for i in range(9) if times.time_at(i) <= parse_when(typed, t8 - 3600, t8 + 3600))
            await p.press("g")
            await p.press(*typed, "enter")
            await wait_for(p, lambda: app.position.index == want)
            moment()
            await p.press("left")
            await wait_for(p, lambda: app.position.index == max(0, want - 1))
            moment()
            await p.press("right", "right")
            await wait_for(p, lambda: app.position.index == max(0, want - 1) + 2)
            moment()
            before = "@%d" % (t0 - 600)                       # before the session: its first sample
            await p.press("g", *before, "enter")
            await wait_for(p, lambda: app.position.index == 0)
            moment()
            await wait_for(p, lambda: any(t.startswith(f"{before} is before the history in memory and the "
                                                       "recording") for t in toasts.texts))
            await p.press("end")
            await wait_for(p, lambda: app.position.live and app.position.index is None)
    run()
    return path, shown, toasts.texts


@pytest.mark.live
def test_live_steps_back_past_memory_into_the_recording(deep_walk) -> None:  # type: ignore[no-untyped-def]
    path, shown, notices = deep_walk
    assert len(shown) == 5 and shown[-1][0] == 0
    assert not any("damaged" in n for n in notices)
    frames_of_the_recording(path, shown)
    assert not Path(f"{path}-wal").exists()               # the session's readers closed before the file


@pytest.mark.live
def test_the_same_walk_through_a_replay(live_walk) -> None:  # type: ignore[no-untyped-def]
    path, _ = live_walk
    app = replay_app(str(path), playing=False)
    shown: Shown = []
    with RecordingReader(path) as times:
        @pilot
        async def run() -> None:
            async with app.run_test(size=(120, 40)) as p:
                await pilot_replay_to_end(app, p)
                await walk_the_timeline(app, p, times.time_or_none, shown)
                await wait_for(p, lambda: app.position.index == len(times) - 1)      # end: the last sample
        run()
    frames_of_the_recording(path, shown)


async def pilot_replay_to_end(app: MysqltopApp, p: Any) -> None:
    """Replay opens paused on its first sample; the walk starts, as live does, from the newest."""
    await wait_for(p, lambda: app.position.index is not None)
    await p.press("end")
    await wait_for(p, lambda: app.position.ended)
    await p.press("p")           # play at the end starts over: p p pauses there again
    await p.press("p")
    await p.press("end")
    await wait_for(p, lambda: app.position.ended and not app.position.playing)


def test_report_snapshot_and_the_replay_tui_give_the_same_frames(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The one cursor: a range of the bundled incident through `report`, `snapshot --replay` and
    the replay TUI stepped sample by sample gives identical frames (numbers and advice)."""
    from mysqltop.commands.report import window_report
    from mysqltop.core.report_builder import ReportBuilder

    with RecordingReader(INCIDENT) as r:
        lo = 100
        start, end = f"@{r.time_at(lo):.6f}", f"@{r.time_at(lo + 14):.6f}"
    reported: list[str] = []
    add = ReportBuilder.add
    monkeypatch.setattr(ReportBuilder, "add", lambda self, frame: (reported.append(json_frame(frame)),
                                                                   add(self, frame))[1])
    window_report(str(INCIDENT), start, end)
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["snapshot", "--replay", str(INCIDENT), "--start", start, "--end", end, "--format", "json"]) == 0
    snapshot = out.getvalue().splitlines(keepends=True)
    app = replay_app(str(INCIDENT), start=start, playing=False)
    stepped: list[str] = []

    @pilot
    async def run() -> None:
        async with app.run_test(size=(120, 40)) as p:
            await wait_for(p, lambda: app.position.index == lo)
            for k in range(15):
                await wait_for(p, lambda: app.position.index == lo + k and app.frame is not None
                               and app.frame.time == app.position.sample_time)
                assert app.frame is not None
                stepped.append(json_frame(app.frame))
                await p.press("right")
    run()
    assert len(reported) == len(snapshot) == len(stepped) == 15
    assert any(json.loads(f)["advice"] for f in reported)           # findings are compared too
    for a, b, c in zip(reported, snapshot, stepped):
        assert json.loads(a) == json.loads(b) == json.loads(c)
