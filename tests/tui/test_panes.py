"""Pane bodies from hand-made frames (values the live corpus does not exercise), mouse, palette,
NO_COLOR."""

from __future__ import annotations

import pytest
from rich.console import Console
from rich.text import Text
from textual.content import Content

from mysqltop.core.frame import Advice, Flush, Frame, Hotspot, Io, IoThread, Semaphores
from mysqltop.views.tui.widgets.advice_pane import AdvicePane
from mysqltop.views.tui.widgets.flush import FlushPane
from mysqltop.views.tui.widgets.hotspots_pane import HotspotsPane
from mysqltop.views.tui.widgets.io_pane import IoPane
from mysqltop.views.tui.widgets.render import Column, block_chart, fit_columns, sparkline, wrap

from .conftest import pilot, replay_app, screen_text, wait_for
from .samples import samples


def semaphore_frame() -> Frame:
    return Frame(
        time=0.0, elapsed=1.0,
        hotspots=[Hotspot("btr_search_latch", "rwlock", "semaphores", waits_per_s=None, share=0.75,
                          site="btr0sea.cc:202", waiting_threads=12, longest_wait_s=3.0),
                  Hotspot("buf_pool_mutex", "mutex", "semaphores", share=0.25, site="buf0buf.cc:1234",
                          waiting_threads=4, longest_wait_s=1.0)],
        semaphores=Semaphores(os_waits_per_s=1234.0, spin_waits_per_s=45678.0, waiting_threads=16),
        io=Io(threads=[IoThread(i, "read", "waiting for completed aio requests") for i in range(3, 7)]
              + [IoThread(0, "insert buffer", "waiting for i/o request")], pending_reads=37),
        flush=Flush(checkpoint_age_pct=81.0, checkpoint_age_bytes=3 * 2**30, history_list_length=1_234_567),
        advice=[Advice("ahi", "warning", "Adaptive hash index latch is the top wait",
                       "btr_search_latch: 75% of waits over 60 s"),
                Advice("cpu", "critical", "Run queue is 3× the cores", "run queue 24 on 8 cores for 60 s")],
        sources=["semaphores", "innodb_mutex"],
        notes=["performance_schema is off: set performance_schema=ON in my.cnf and restart"],
    )


def test_hotspots_from_the_wait_array_show_sites_threads_and_the_enable_hint() -> None:
    body = HotspotsPane(1).body(semaphore_frame(), [], 100).plain
    row = next(line for line in body.splitlines() if line.startswith("btr_search_latch"))
    assert "btr0sea.cc:202" in row and " 12 " in row and "3.0s" in row and "75%" in row
    assert "os waits/s 1.2k" in body and "spins/s 46k" in body and "waiting 16" in body
    assert "sources semaphores, innodb_mutex" in body
    assert "set performance_schema=ON" in body


def test_narrow_hotspots_drop_columns_not_digits() -> None:
    body = HotspotsPane(1).body(semaphore_frame(), [], 40).plain
    lines = body.splitlines()
    assert all(len(line) <= 40 for line in lines[:3])
    assert "75%" in lines[1] and "site" not in lines[0]


def test_the_first_frame_shows_what_the_latch_counters_hold_so_far() -> None:
    from mysqltop.timeline.polled import PolledTimeline

    first = PolledTimeline().push(samples(1)[0])
    lines = HotspotsPane(1).body(first, [first], 80).plain.splitlines()
    assert lines[0] == "totals since the counters started; rates with the next sample"
    assert lines[1].split()[:5] == ["latch", "kind", "src", "waits", "ms"]
    assert lines[2].split() == ["LOCK_table_cache", "mutex", "P_S", "253k", "3.2k", "████▏░", "69%"]


def test_io_threads_are_grouped_and_pending_shown() -> None:
    body = IoPane(2).body(semaphore_frame(), [], 60).plain
    assert body.splitlines()[1].split() == ["pending", "37", "-", "-"]
    assert "read ×4" in body and "waiting for completed aio requests" in body
    assert "insert buffer #0" in body


def test_flush_shows_checkpoint_age_against_max_and_history() -> None:
    body = FlushPane(3).body(semaphore_frame(), [], 60).plain
    assert "81%" in body and "3.0 GB" in body and "history 1.2M" in body
    assert "█" in body.splitlines()[1] and "░" in body.splitlines()[1]


def test_advice_lists_critical_first_with_evidence() -> None:
    body = AdvicePane(6).body(semaphore_frame(), [], 80).plain.splitlines()
    assert body[0].startswith("!!") and "Run queue" in body[0]
    assert "run queue 24 on 8 cores" in body[1]
    assert "btr_search_latch: 75% of waits over 60 s" in body[3]


@pytest.mark.parametrize("width", [6, 13, 40, 79])
def test_prose_wraps_as_a_textual_widget_wraps_it(width: int) -> None:
    """The advice pane wraps its rows itself (a Lines body repaints only the rows that change):
    at the same places as a Static with text-wrap: wrap and text-overflow: clip, up to the
    spaces that end a line."""
    rows = ["!! Run queue 24 on 8 cores: the box is saturated by another process",
            "   run queue 24 on 8 cores;   load1 31.2, mysqld 12% of all cores",
            "   btr_search_latch_with_a_name_longer_than_the_pane: 75% of waits over 60 s",
            "", "日本語のテキスト  wide  characters 日本語", "      "]
    console = Console()
    for row in rows:
        text = Text(row, style="dim")
        ours = [line.plain.rstrip() for line in wrap(text, width, console)]
        textual = [line.plain.rstrip() for line in Content.from_rich_text(text).wrap(width, overflow="clip")]
        assert ours == textual, (row, width)


def test_render_helpers() -> None:
    assert sparkline([0, 5, 10, None], 4) == "▁▄█ "
    assert block_chart([0, 4, 8], 3, 2) == ["  █", " ██"]
    cols = [Column("name", 5, 9, flex=True, max=12), Column("num", 6, 8, right=True), Column("x", 30, 1)]
    assert fit_columns(cols, 30) == [(0, 12), (1, 6)]      # x dropped, name grown to its max
    assert fit_columns(cols, 80) == [(0, 12), (1, 6), (2, 30)]


@pilot
async def test_double_click_zooms_and_palette_lists_the_keys() -> None:
    app = replay_app(samples(10), start=3)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.position.index == 3)
        await pilot.click("#pane-5", times=2)
        await wait_for(pilot, lambda: app.zoomed == 5)
        await pilot.press("escape")
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        for title in ("Next bookmark", "Go to a time (14:05, -10m, +5m, iso)", "One sample back", "Quit (ctrl+c too)"):
            assert title in commands
        app.call_later(commands["One sample forward"].callback)
        await wait_for(pilot, lambda: app.position.index == 4)


@pilot
async def test_no_color_renders(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = replay_app(samples(10), start=3)
    assert app.no_color
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.position.index == 3)
        assert "1 Latch hotspots" in screen_text(app)


@pilot
async def test_pane_colours_come_from_the_stylesheet_and_follow_the_theme() -> None:
    app = replay_app(samples(10), start=3)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.position.index == 3)
        pane = app.panes[1]
        await wait_for(pilot, lambda: not isinstance(pane.palette.hot, str))    # read from COMPONENT_CLASSES
        before = pane.palette.hot
        assert before.bold and before.color is not None
        app.theme = "gruvbox"            # its error colour differs from textual-dark's
        await wait_for(pilot, lambda: pane.palette.hot != before)
        assert app.status_bar.palette.hot == pane.palette.hot


def test_refused_connections_lead_the_tps_pane_and_waits_that_happen_come_first() -> None:
    from mysqltop.core.frame import Pressure, Throughput
    from mysqltop.views.tui.widgets.pressure_rates import pairs
    from mysqltop.views.tui.widgets.render import DEFAULT_PALETTE
    from mysqltop.views.tui.widgets.throughput import ThroughputPane

    p = Pressure(connections_refused_per_s=4.8, threads_connected=10, max_connections=10, connections_per_s=5.0,
                 log_waits_per_s=0.0, tmp_disk_tables_per_s=8.1)
    frame = Frame(time=0.0, elapsed=1.0, throughput=Throughput(tps=12.0, qps=40.0), pressure=p)
    first = ThroughputPane(4).body(frame, [frame], 80).lines[0]
    assert first.plain.startswith("refused/s 4.8  engine commits/s")            # on the line a small pane keeps
    assert [label for label, _ in pairs(p, DEFAULT_PALETTE)][:4] == ["tmp disk/s", "conn", "conn/s", "log waits/s"]
    assert dict(pairs(p, DEFAULT_PALETTE))["conn"] == "10/10"
    calm = Frame(time=0.0, elapsed=1.0, pressure=Pressure(connections_refused_per_s=0.0))
    assert "refused" not in ThroughputPane(4).body(calm, [calm], 80).plain


def test_hotspot_sparklines_kept_across_frames_are_the_ones_drawn_afresh() -> None:
    """The pane keeps each latch's sparkline from one frame to the next (only the newest frames
    are read): live, stepping, after a jump back and at another width it shows what a pane that
    never drew before shows."""
    from mysqltop.timeline.navigator import TREND
    from mysqltop.timeline.polled import PolledTimeline

    timeline = PolledTimeline()
    for raw in samples(40):
        timeline.push(raw)
    cursor = timeline.cursor
    kept = HotspotsPane(1)
    for i, width in [*((i, 120) for i in range(1, 40)), (12, 120), (13, 120), (15, 120), (16, 70), (39, 70)]:
        trend = cursor.history(i, TREND)
        drawn = kept.body(trend[-1], trend, width)
        fresh = HotspotsPane(1).body(trend[-1], trend, width)
        assert [(line.plain, line.spans) for line in drawn.lines] == [(line.plain, line.spans) for line in fresh.lines]
    assert any(ch in drawn.plain for ch in "▂▃▄▅▆▇█")            # the sparklines have something to show
