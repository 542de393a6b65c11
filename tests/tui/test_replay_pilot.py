"""Pilots over a replayed list of RawSamples: panes show the frames' values, keys do what ? says."""

from __future__ import annotations

from mysqltop.core import units
from mysqltop.views.tui.screens import GotoScreen, HelpScreen
from mysqltop.views.tui.position import ViewMode

from .conftest import ListReader, Toasts, pilot, replay_app, screen_text, wait_for
from .samples import T0, samples


@pilot
async def test_panes_show_the_values_of_the_frame(expected_frames) -> None:
    raw = samples(30)
    want = expected_frames(raw)[10]
    app = replay_app(raw, start=10)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.position.index == 10 and len(app.trend) == 11)
        text = screen_text(app)
        assert f"tps {units.num(want.throughput.tps)}" in text
        assert f"qps {units.num(want.throughput.qps)}" in text
        top = want.hotspots[0]
        assert top.name in text
        hot_line = next(line for line in text.splitlines() if top.name in line)
        assert units.num(top.waits_per_s) in hot_line and units.num(top.wait_ms_per_s) in hot_line
        assert units.share(top.share) in hot_line
        assert f"ctx/s {units.num(want.host.ctx_switches_per_s)}" in text
        assert f"mysqld cpu {units.pct(want.host.mysqld_pct_of_host())} of all cores" in text
        assert f"{want.host.run_queue}/8 cores" in text
        assert units.pct(want.flush.checkpoint_age_pct) in text
        assert f"history {units.num(want.flush.history_list_length)}" in text
        assert "REPLAY PAUSED" in text and "11/30" in text
        assert "mariadb 10.11.6" in text


@pilot
async def test_step_jump_and_pause_keys() -> None:
    app = replay_app(samples(200), start=100)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.position.index == 100)
        await pilot.press("right")
        await wait_for(pilot, lambda: app.position.index == 101)
        await pilot.press("left", "left")
        await wait_for(pilot, lambda: app.position.index == 99)
        await pilot.press("right_curly_bracket")
        await wait_for(pilot, lambda: app.position.index == 159)
        await pilot.press("left_curly_bracket", "left_curly_bracket")
        await wait_for(pilot, lambda: app.position.index == 39)
        await pilot.press("greater_than_sign", "greater_than_sign")
        await wait_for(pilot, lambda: app.position.speed == 4.0)
        # play: the position advances on its own (4× speed, 1 s apart → 0.25 s per sample)
        await pilot.press("p")
        await wait_for(pilot, lambda: app.position.playing and app.position.index >= 41)
        assert "REPLAY ▶ ×4" in screen_text(app)
        await pilot.press("space")
        await wait_for(pilot, lambda: not app.position.playing)
        stopped = app.position.index
        await pilot.pause(0.6)
        assert app.position.index == stopped
        assert "REPLAY PAUSED" in screen_text(app)


@pilot
async def test_goto_lands_where_asked_and_rejects_nonsense() -> None:
    app = replay_app(samples(120), start=0)
    toasts = Toasts()
    async with app.run_test(message_hook=toasts) as pilot:
        await wait_for(pilot, lambda: app.replay is not None and app.position.index == 0)
        for when, index in (("+30s", 30), ("-10s", 109), ("start", 0), ("@%d" % (T0 + 77), 77)):
            await pilot.press("g")
            await wait_for(pilot, lambda: isinstance(app.screen, GotoScreen))
            await pilot.press(*when, "enter")
            await wait_for(pilot, lambda: app.position.index == index)
            assert app.position.sample_time == T0 + index
        await pilot.press("g", *"soon", "enter")
        await wait_for(pilot, lambda: any("cannot go to 'soon'" in t for t in toasts.texts))
        assert app.position.index == 77



@pilot
async def test_goto_outside_the_recording_says_where_it_landed() -> None:
    """A time before the start or after the end used to land on the first/last sample silently."""
    app = replay_app(samples(120), start=50)
    toasts = Toasts()
    async with app.run_test(message_hook=toasts) as pilot:
        await wait_for(pilot, lambda: app.replay is not None and app.position.index == 50)
        for when, index, words in (("+1h", 119, "after the recording"), ("@%d" % (T0 - 600), 0, "before the recording")):
            await pilot.press("g")
            await wait_for(pilot, lambda: isinstance(app.screen, GotoScreen))
            await pilot.press(*when, "enter")
            await wait_for(pilot, lambda: app.position.index == index)
            await wait_for(pilot, lambda: any(t.startswith(f"{when} is {words}") for t in toasts.texts))
        await pilot.press("g", *"+30s", "enter")            # inside: no such warning
        await wait_for(pilot, lambda: app.position.index == 30)
        assert sum("the recording (it" in t for t in toasts.texts) == 2


@pilot
async def test_bookmark_key_jumps_to_the_next_bookmark() -> None:
    app = replay_app(samples(100), start=0, bookmarks=[(T0 + 40, "stall"), (T0 + 70, "recovery")])
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.position.index == 0)
        await pilot.press("b")
        await wait_for(pilot, lambda: app.position.index == 40)
        await pilot.press("b")
        await wait_for(pilot, lambda: app.position.index == 70)


@pilot
async def test_zoom_help_and_focus() -> None:
    app = replay_app(samples(20), start=5)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.position.index == 5)
        await pilot.press("4")
        assert app.zoomed == 4 and app.screen.maximized is app.panes[4] and app.panes[4].zoomed
        await wait_for(pilot, lambda: app.panes[4].region.height > 15)    # fills the screen
        assert app.panes[1].region.height == 0
        await pilot.press("4")
        assert app.zoomed is None and app.screen.maximized is None and not app.panes[4].zoomed
        await wait_for(pilot, lambda: app.panes[1].region.height > 0)
        await pilot.press("6", "escape")
        assert app.zoomed is None
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.pause(0.1)
        help_text = screen_text(app)
        for words in ("next bookmark", "go to a time", "one sample back", "zoom pane"):
            assert words in help_text
        assert "start / stop recording" not in help_text        # a live-only key
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("tab")
        first = app.focused
        await pilot.press("tab")
        assert app.focused is not first and app.focused in app.panes.values()


@pilot
async def test_80x24_shows_every_pane_and_cuts_no_number(expected_frames) -> None:
    raw = samples(40)
    want = expected_frames(raw)[39]
    app = replay_app(raw, start=39)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.position.index == 39 and len(app.trend) > 30)
        text = screen_text(app)
        lines = text.splitlines()
        assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
        for title in ("1 Latch hotspots", "2 IO threads", "3 Flush", "4 TPS / QPS", "5 Host", "6 Advice"):
            assert title in text
        assert f"tps {units.num(want.throughput.tps)}" in text
        # every visible hotspot row carries its whole waits/s figure
        for h in want.hotspots[:3]:
            row = next(line for line in lines if line.startswith(h.name[:10]))
            assert f" {units.num(h.waits_per_s)} " in row


@pilot
async def test_q_and_ctrl_c_quit() -> None:
    for key in ("q", "ctrl+c"):
        app = replay_app(samples(5))
        async with app.run_test() as pilot:
            await wait_for(pilot, lambda: app.frame is not None)
            await pilot.press(key)
            await pilot.pause(0.1)
            assert not app.is_running


class DamagedReader(ListReader):
    def sample(self, i: int):  # type: ignore[no-untyped-def]
        from pathlib import Path

        from mysqltop.recording.reader import DamagedSample

        if i == 7:
            raise DamagedSample(Path("test.mtrec"), 7, "crc mismatch")
        return super().sample(i)


@pilot
async def test_replay_plays_to_the_end_and_survives_a_damaged_sample() -> None:
    from mysqltop.core.when import parse_when
    from mysqltop.views.tui.app import MysqltopApp
    from mysqltop.views.tui.replay_feed import ReplayFeed

    reader = DamagedReader(samples(12))
    feed = ReplayFeed(lambda: reader, start=4, speed=64.0, playing=True)
    app = MysqltopApp(feed, ViewMode.REPLAY, parse_when=parse_when)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.position.ended and not app.position.playing)
        assert app.position.index == 11 and app.failure is None
        assert "REPLAY END" in screen_text(app)
        # The damaged sample is a stale moment the feed steps over, both ways.
        await pilot.press("left", "left", "left", "left")
        await wait_for(pilot, lambda: app.position.index == 6)
        assert not app.frame.stale


@pilot
async def test_a_recorded_failed_poll_says_no_data_instead_of_explaining_empty_values() -> None:
    """Replaying a SIGSTOP: the panes said 'collecting: rates start with the second sample',
    'no host metrics (server on another host…)', 'no per-thread states from this server'."""
    import dataclasses

    from mysqltop.core.sample import ServerIdentity

    raw = samples(12)
    why = "poll failed: Lost connection to MySQL server during query (timed out)"
    raw[6] = dataclasses.replace(raw[6], error=why, server=ServerIdentity(address="db1:3306"))
    app = replay_app(raw, start=6)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.position.index == 6 and app.frame is not None and app.frame.stale)
        text = screen_text(app)
        assert text.count("no data in this sample: poll failed") == 1 and text.count("no data in this sample") >= 5
        for misleading in ("collecting", "another host", "no per-thread states", "no findings"):
            assert misleading not in text, misleading
        assert "tps -" in text                       # the TPS chart pane still draws (with its gap)
        await pilot.press("right")
        await wait_for(pilot, lambda: app.position.index == 7)
        assert "no data in this sample" not in screen_text(app)


@pilot
async def test_a_pane_with_more_than_fits_says_so_in_its_title() -> None:
    """At 80×24 the hotspot list ran past its pane with only a 1-cell scrollbar to show it."""
    app = replay_app(samples(30), start=20)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.position.index == 20)
        hot = app.panes[1]
        await wait_for(pilot, lambda: hot.border_title == "1 Latch hotspots ↓ more: 1")
        assert hot.max_scroll_y > 0 and "↓ more: 1" in screen_text(app).splitlines()[1]
        await wait_for(pilot, lambda: all(("↓ more" in str(p.border_title)) == (p.max_scroll_y > 0)
                                          for p in app.panes.values()))
        await pilot.press("1")
        await wait_for(pilot, lambda: app.zoomed == 1)
        await wait_for(pilot, lambda: hot.border_title == "1 Latch hotspots")


@pilot
async def test_a_minute_forward_then_back_returns_to_the_same_sample() -> None:
    """Real samples drift a few ms from the interval: `]` `[` from 139 landed on 78, not 79."""
    import dataclasses

    # the first 100 polls came 4 ms late (a busy server), the rest on time
    raw = [dataclasses.replace(s, wall=s.wall + (0.004 if i < 100 else 0.0)) for i, s in enumerate(samples(200))]
    app = replay_app(raw, start=79)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.position.index == 79)
        await pilot.press("right_curly_bracket")
        await wait_for(pilot, lambda: app.position.index != 79)
        assert app.position.index == 139
        await pilot.press("left_curly_bracket")
        await wait_for(pilot, lambda: app.position.index != 139)
        assert app.position.index == 79


@pilot
async def test_a_silence_in_the_recording_reads_as_a_gap_not_late() -> None:
    """Samples 0–9, nothing for 60 s, then 10–19: the first sample after the silence says the
    recording has a gap there; recorded waiting samples read LATE (recorded)."""
    import dataclasses

    from mysqltop.core.sample import Failure

    raw = samples(20)
    raw = raw[:10] + [dataclasses.replace(r, wall=r.wall + 60, mono=r.mono + 60) for r in raw[10:]]
    raw[15] = dataclasses.replace(raw[15], error="waiting for the server's answer for 1.2 s (late, not cut)",
                                  failure=Failure.WAITING)
    app = replay_app(raw, start=10)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: app.position.index == 10 and app.replay is not None)
        await wait_for(pilot, lambda: "gap in the recording" in screen_text(app).splitlines()[0])
        line = screen_text(app).splitlines()[0]
        assert "STALE" in line and "1m01s gap" in line and "LATE" not in line, line
        await pilot.press("right")
        await wait_for(pilot, lambda: app.position.index == 11)
        await wait_for(pilot, lambda: "gap" not in screen_text(app).splitlines()[0])
        await pilot.press("g")
        await pilot.pause()
        for ch in "+75s":
            await pilot.press(ch)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.position.index == 15)
        await wait_for(pilot, lambda: "LATE (recorded)" in screen_text(app).splitlines()[0])


@pilot
async def test_start_up_objects_are_kept_out_of_later_full_collections() -> None:
    """Full collections walked the modules and widgets made at start-up every few seconds (30–55 ms
    each): once the app is up they are frozen out of the collector's way."""
    import gc

    gc.unfreeze()
    app = replay_app(samples(3))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: gc.get_freeze_count() > 10_000)


@pilot
async def test_full_collections_run_on_the_apps_timer_not_on_a_keys_allocations() -> None:
    """A full collection set off by allocations mostly came while a key's answer was drawn (20–40
    ms on a saturated box): while the app runs, the interpreter starts none (the app's timer does),
    and the thresholds come back when it ends."""
    import gc

    before = gc.get_threshold()
    app = replay_app(samples(3))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: gc.get_threshold()[2] > 10**6)
        assert gc.get_threshold()[:2] == before[:2]
    assert gc.get_threshold() == before
