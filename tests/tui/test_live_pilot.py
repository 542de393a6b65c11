"""Live pilots: a source that stalls shows STALE while keys still answer; pause; recording."""

from __future__ import annotations

import dataclasses
import os
import re
import threading
import time
from pathlib import Path

from mysqltop.timeline.polled import live_timeline
from mysqltop.core.sample import Failure, RawSample, ServerIdentity
from mysqltop.core.when import parse_when
from mysqltop.engine import Engine
from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.writer import RecordingWriter
from mysqltop.views.tui.app import MysqltopApp
from mysqltop.views.tui.feeds import LiveFeed
from mysqltop.views.tui.position import ViewMode

from .conftest import Toasts, key_latency, pilot, screen_text, wait_for
from .samples import sample

INTERVAL = 0.2
KEY_ANSWERS_S = 5.0   # far below the 30 s the blocked poll lasts: a frozen UI cannot pass,
                      # and a loaded 2-core box (load 60+) still answers well inside it


class StallingSource:
    """Serves synthetic samples stamped with the real clock; after `healthy` reads, read()
    blocks on an Event (a hung server) until the test releases it, or — with `fail` — returns
    failed polls the way the live source does."""

    replay = False

    def __init__(self, healthy: int, fail: str | None = None, failure: Failure = Failure.OTHER) -> None:
        self.healthy, self.fail, self.failure = healthy, fail, failure
        self.reads = 0
        self.release = threading.Event()
        self.blocked = threading.Event()

    def read(self) -> RawSample:
        i = self.reads
        self.reads += 1
        if i >= self.healthy:
            if self.fail is None:
                self.blocked.set()
                self.release.wait(30)
            else:
                time.sleep(INTERVAL / 2)
                # as the live source: a failed poll knows the address only, not what answers there
                return dataclasses.replace(sample(i), wall=time.time(), mono=time.monotonic(), error=self.fail,
                                           failure=self.failure,
                                           server=ServerIdentity(address="db1:3306"))
        return dataclasses.replace(sample(i), wall=time.time(), mono=time.monotonic())

    def close(self) -> None:
        self.release.set()


def live_app(source: StallingSource, **feed_kw: object) -> MysqltopApp:
    engine = Engine(source, live_timeline(INTERVAL))
    feed = LiveFeed(engine, INTERVAL, **feed_kw)  # type: ignore[arg-type]
    return MysqltopApp(feed, ViewMode.LIVE, address="db1:3306", parse_when=parse_when)


def status(app: MysqltopApp) -> str:
    return screen_text(app).splitlines()[0]


@pilot
async def test_a_hung_poll_shows_stale_and_keys_still_answer() -> None:
    source = StallingSource(healthy=3)
    app = live_app(source)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: source.blocked.is_set())
        hung_at = time.monotonic()
        await wait_for(pilot, lambda: "LATE" in status(app), timeout=KEY_ANSWERS_S)
        # LATE comes from the UI's own timer (> 2 intervals without a frame), not from the worker,
        # which stays blocked for 30 s.
        assert time.monotonic() - hung_at <= KEY_ANSWERS_S
        assert "LIVE" not in status(app) and "db1:3306" in status(app)   # late: no LIVE badge
        # The worker is blocked inside read() for up to 30 s; a UI waiting on it would take that
        # long. Keys answer in tens of ms (bench/tui measures it); the bound here only has to
        # tell "answers" from "frozen" on a loaded CI machine, so it is generous on purpose.
        for key, check in (("2", lambda: app.zoomed == 2), ("question_mark", lambda: app.screen.id == "help"),
                           ("escape", lambda: app.screen.id != "help"), ("p", lambda: app.paused)):
            assert await key_latency(app, key, check, timeout=KEY_ANSWERS_S) < KEY_ANSWERS_S, key
        await pilot.pause()
        assert "PAUSED" in status(app) and "LATE" not in status(app)
        await pilot.press("p")
        await wait_for(pilot, lambda: "LATE" in status(app))
        source.release.set()                                  # the server answers again
        await wait_for(pilot, lambda: "LATE" not in status(app), timeout=15)


@pilot
async def test_failed_polls_say_disconnected_with_how_long() -> None:
    source = StallingSource(healthy=2, fail="poll failed: (2013, Lost connection during query) (reconnecting)",
                            failure=Failure.LOST)
    app = live_app(source)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: re.search(r"DISCONNECTED [\d.]+s", status(app)) is not None)
        first = float(re.search(r"DISCONNECTED ([\d.]+)s", status(app)).group(1))  # type: ignore[union-attr]
        # the count goes on while polls keep failing (read against itself: the box may be busy)
        await wait_for(pilot, lambda: (m := re.search(r"DISCONNECTED ([\d.]+)s", status(app))) is not None
                       and float(m.group(1)) >= first + 1.0)
        # frames keep arriving while a modal screen is up
        await pilot.press("question_mark")
        await pilot.pause(4 * INTERVAL)
        await pilot.press("escape")
        assert app.is_running and app.screen.id != "help"
        assert app.grid.has_class("-stale")


@pilot
async def test_pause_holds_the_display_while_polling_continues() -> None:
    source = StallingSource(healthy=1000)
    app = live_app(source)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.frame is not None and app.frame.elapsed is not None)
        await pilot.press("space")
        await wait_for(pilot, lambda: app.position.index is not None and not app.position.playing)
        shown = app.frame
        reads = source.reads
        await pilot.pause(5 * INTERVAL)
        assert app.frame is shown and source.reads >= reads + 1
        await wait_for(pilot, lambda: (app.position.behind_s or 0) > 0 and "PAUSED −" in status(app))
        await pilot.press("space")
        await wait_for(pilot, lambda: app.position.live)
        assert app.frame is not shown and "LIVE" in status(app)


@pilot
async def test_interval_keys_change_the_poll_interval() -> None:
    source = StallingSource(healthy=1000)
    app = live_app(source)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.frame is not None)
        await pilot.press("plus")
        await wait_for(pilot, lambda: app.position.interval == 0.25 and "every 250ms" in status(app))
        await pilot.press("plus")
        await wait_for(pilot, lambda: app.feed.interval == 0.5)  # type: ignore[attr-defined]
        await wait_for(pilot, lambda: "every 500ms" in status(app))
        await pilot.press("minus", "minus")            # 0.25 s is the floor
        await wait_for(pilot, lambda: app.feed.interval == 0.25)  # type: ignore[attr-defined]
        await pilot.pause(0.3)
        assert app.position.interval == 0.25


@pilot
async def test_r_records_to_a_file_named_by_time(tmp_path) -> None:
    source = StallingSource(healthy=1000)
    app = live_app(source, directory=str(tmp_path), open_recorder=lambda p: RecordingWriter(p, interval=INTERVAL))
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.frame is not None)
        await pilot.press("r")
        await wait_for(pilot, lambda: app.position.recording is not None)
        assert "● REC" in status(app)
        await pilot.pause(5 * INTERVAL)
        await pilot.press("r")
        await wait_for(pilot, lambda: app.position.recording is None)
        assert not any("recording stopped" in n for f in app.trend for n in f.notes), app.trend[-1].notes
    files = list(tmp_path.glob("mysqltop-*.mtrec"))
    assert len(files) == 1
    reader = RecordingReader(files[0])
    assert len(reader) >= 3
    assert reader.sample(0).server.address == "db1:3306"


class BurstFeed:
    """Posts `n` frames as fast as it can from a thread: the App must coalesce, not queue them."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.interval = 1.0

    def start(self, post) -> None:  # type: ignore[no-untyped-def]
        from mysqltop.core.frame import Frame, Throughput
        from mysqltop.views.tui.feed_events import FrameShown
        from mysqltop.views.tui.position import Position

        def run() -> None:
            for i in range(self.n):
                f = Frame(time=float(i), elapsed=1.0, throughput=Throughput(tps=float(i)))
                post(FrameShown(f, (f,), Position(mode=ViewMode.LIVE, interval=1.0)))
        threading.Thread(target=run, daemon=True).start()

    def send(self, *a: object) -> None:
        pass

    def stop(self) -> None:
        pass


@pilot
async def test_a_flood_of_frames_coalesces_to_the_latest() -> None:
    app = MysqltopApp(BurstFeed(2000), ViewMode.LIVE)  # type: ignore[arg-type]
    shown: list[float] = []
    real = app.watch_frame

    def counting(frame):  # type: ignore[no-untyped-def]
        if frame is not None:
            shown.append(frame.time)
        real(frame)
    app.watch_frame = counting  # type: ignore[method-assign]
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.frame is not None and app.frame.time == 1999.0)
    assert shown[-1] == 1999.0
    assert len(shown) < 1000, len(shown)


@pilot
async def test_a_frozen_server_is_not_answering_and_keeps_its_name() -> None:
    """SIGSTOPped server: polls time out and the source reconnects; the status bar said
    DISCONNECTED (as for a stopped server) and dropped the server's flavor and version."""
    source = StallingSource(healthy=3, fail="poll failed: Lost connection to MySQL server during query "
                                            "(timed out) (reconnecting)", failure=Failure.TIMEOUT)
    app = live_app(source)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "NOT ANSWERING" in status(app), timeout=3)
        line = status(app)
        assert "DISCONNECTED" not in line and "mariadb" in line, line
        assert "up " not in line, line          # an uptime read before the freeze would be stale
        assert "LIVE" not in line, line         # no fresh data: the alert is the badge


@pilot
async def test_a_stopped_server_is_disconnected() -> None:
    source = StallingSource(healthy=2, fail="poll failed: cannot connect to db1:3306 ([Errno 111] Connection "
                                            "refused) (reconnecting)", failure=Failure.UNREACHABLE)
    app = live_app(source)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "DISCONNECTED" in status(app), timeout=3)


@pilot
async def test_the_alert_follows_the_typed_failure_not_the_words() -> None:
    """Words that once meant "timeout" do not decide anything: the source's typed reason does."""
    source = StallingSource(healthy=2, fail="poll failed: timed out? no: (1045) Access denied (reconnecting)",
                            failure=Failure.DENIED)
    app = live_app(source)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "ACCESS DENIED" in status(app), timeout=3)
        assert "NOT ANSWERING" not in status(app)


@pilot
async def test_a_late_server_is_late_not_stale_and_the_host_pane_keeps_its_clock() -> None:
    """While a poll runs past the interval the source yields waiting samples with host counters:
    the status bar says LATE, the server's numbers stay (not dimmed), the host pane moves on."""
    source = StallingSource(healthy=3, fail="waiting for the server's answer for 1.2 s (late, not cut)",
                            failure=Failure.WAITING)
    app = live_app(source)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: app.frame is not None and app.frame.failure == "waiting"
                       and "LATE" in status(app))
        assert not app.grid.has_class("-stale")
        assert "NOT ANSWERING" not in status(app) and "STALE" not in status(app)
        assert "LIVE" not in status(app)
        def host_shown() -> object:
            frame = app.panes[5]._frame
            return frame.host if frame is not None else None

        # the pane follows the app's frame after a refresh: wait for it rather than race it
        await wait_for(pilot, lambda: host_shown() is not None and host_shown() is app.frame.host)
        first = host_shown()
        await wait_for(pilot, lambda: host_shown() is not first and host_shown() is app.frame.host)
        # the server panes keep the last good frame; the host pane shows the waiting frame's counters
        assert app.panes[1]._frame is app.good_frame and not app.good_frame.stale


class SkewedClockSource(StallingSource):
    """Healthy samples whose server clock runs an hour and a bit behind this machine's."""

    SKEW_S = -3600.0 - 17 * 60

    def read(self) -> RawSample:
        raw = super().read()
        return dataclasses.replace(raw, server_time=raw.wall + self.SKEW_S)


@pilot
async def test_the_live_header_shows_the_servers_clock() -> None:
    from datetime import datetime

    source = SkewedClockSource(healthy=10_000)
    app = live_app(source)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: app.frame is not None and "server " in status(app))
        assert app.frame is not None and app.frame.server.time is not None
        shown = re.search(r"server (\d\d:\d\d:\d\d)", status(app))
        assert shown is not None
        server = datetime.strptime(shown.group(1), "%H:%M:%S")
        here = datetime.fromtimestamp(time.time())
        # the server's clock, not this machine's: 77 minutes behind (give or take the poll)
        behind = ((here.hour * 3600 + here.minute * 60 + here.second)
                  - (server.hour * 3600 + server.minute * 60 + server.second)) % 86400
        assert abs(behind + SkewedClockSource.SKEW_S) < 30


class RestartingSource(StallingSource):
    """Healthy, then refused connections (the server is down), then healthy again with a lower
    Uptime: the server restarted meanwhile."""

    def __init__(self, healthy: int, down: int) -> None:
        super().__init__(healthy, fail="poll failed: cannot connect to db1:3306 ([Errno 111] Connection refused) "
                                       "(reconnecting)", failure=Failure.UNREACHABLE)
        self.down = down

    def read(self) -> RawSample:
        if self.reads < self.healthy + self.down:
            return super().read()
        self.reads += 1
        s = sample(self.reads)
        return dataclasses.replace(s, wall=time.time(), mono=time.monotonic(),
                                   global_status={**s.global_status, "Uptime": "3"})


@pilot
async def test_an_outage_and_a_restart_are_each_said_once() -> None:
    source = RestartingSource(healthy=3, down=3)
    app = live_app(source)
    toasts = Toasts()
    async with app.run_test(size=(80, 24), message_hook=toasts) as pilot:
        await wait_for(pilot, lambda: any("answers again" in t for t in toasts.texts))
        down = [t for t in toasts.texts if "no data from the server" in t]
        back = [t for t in toasts.texts if "answers again" in t]
        assert len(down) == 1 and "Connection refused" in down[0], toasts.texts
        assert len(back) == 1 and "it restarted (up 3.0s)" in back[0], toasts.texts
        await wait_for(pilot, lambda: "LIVE" in status(app))


@pilot
async def test_a_full_disk_pauses_recording_says_why_and_live_goes_on(tmp_path) -> None:
    """The disk under the recording fills mid-run (a small tmpfs, or SQLite's page limit where
    nothing can be mounted): the status bar says REC paused and why, a notice says it once, live
    frames keep coming; space back, recording resumes in a new segment and says so."""
    from mysqltop.recording.pausing import PausingWriter
    from tests.support.tmpfs import fill, small_tmpfs, unmount

    mount = small_tmpfs("2m")
    where = Path(mount) if mount is not None else tmp_path
    path = where / "live.mtrec"
    writers: list[RecordingWriter] = []
    full = [False]

    def open_writer() -> RecordingWriter:
        w = RecordingWriter(path, interval=INTERVAL)
        writers.append(w)
        if full[0] and mount is None:
            w._conn.execute(f"PRAGMA max_page_count={w._conn.execute('PRAGMA page_count').fetchone()[0]}")
        return w

    def fill_disk() -> None:
        full[0] = True
        if mount is not None:
            fill(mount)
        else:
            writers[-1]._conn.execute(
                f"PRAGMA max_page_count={writers[-1]._conn.execute('PRAGMA page_count').fetchone()[0]}")

    def free_disk() -> None:
        full[0] = False
        if mount is not None:
            os.unlink(os.path.join(mount, "filler"))

    source = StallingSource(healthy=100_000)
    app = live_app(source, record_path=str(path),
                   open_recorder=lambda p: PausingWriter(open_writer, retry=2 * INTERVAL))
    toasts = Toasts()
    try:
        async with app.run_test(size=(120, 30), message_hook=toasts) as pilot:
            await wait_for(pilot, lambda: app.position.recording is not None and source.reads >= 5)
            assert "● REC" in status(app)
            fill_disk()
            await wait_for(pilot, lambda: "REC paused: disk full" in status(app))
            await wait_for(pilot, lambda: any(t.startswith("recording paused (disk full)") for t in toasts.texts))
            reads = source.reads
            await wait_for(pilot, lambda: source.reads >= reads + 3)          # live goes on
            assert app.position.recording == str(path)
            free_disk()
            await wait_for(pilot, lambda: any(t.startswith("recording resumed in a new segment")
                                              for t in toasts.texts))
            await wait_for(pilot, lambda: "● REC" in status(app))
            await pilot.pause(3 * INTERVAL)
            paused = [t for t in toasts.texts if t.startswith("recording paused")]
            assert len(paused) == 1 and "\n" not in paused[0], toasts.texts
        with RecordingReader(path) as r:
            assert len(r) >= 5 and len(r.segment_starts) >= 2
            assert all(r.sample(i).server.address == "db1:3306" for i in range(len(r)))
    finally:
        if mount is not None:
            unmount(mount)
