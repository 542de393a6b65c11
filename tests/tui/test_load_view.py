"""The `w` key: database load by wait class stacked over the samples on screen, against the cores,
with each class's top statement shapes; the chart's cells on their own."""

from __future__ import annotations

from pathlib import Path

import pytest

from mysqltop.core.frame import ClassShape, WaitLoad
from mysqltop.recording.reader import RecordingReader
from mysqltop.views import load_chart as lc

from .conftest import pilot, replay_app, screen_text, wait_for

GALLERY = Path(__file__).resolve().parents[2] / "recordings"


def test_chart_stacks_classes_bottom_up_with_the_cores_line() -> None:
    pts = [lc.point(WaitLoad(active=4, cpu=1, row_lock=3, metadata_lock=0, latch=0, io=0, commit=0, other=0)),
           lc.Point(None)]
    rows = lc.chart(pts, lc.AXIS_W + 2, 4, cores=2.0)
    text = ["".join(t for t, _ in r) for r in rows]
    assert text == ["    4┤▓ ", "    2┤▓╌", "     │▓ ", "    0┤█ "]
    assert lc.legend(pts, 2.0)[0] == "average active sessions 4, peak 4, against 2 cores (╌)"


def test_running_statements_are_said_to_hold_the_latch_waits_timed_among_them() -> None:
    storm = ClassShape("cpu", "UPDATE t SET b = ? WHERE id IN (?…", 16)
    latched = WaitLoad(active=16, cpu=2, latch=14, row_lock=0, metadata_lock=0, io=0, commit=0, other=0, top=[storm])
    assert lc.top_shapes([latched])[:2] == ["█ CPU / running (and the latch / IO waits among them)",
                                            "    16  UPDATE t SET b = ? WHERE id IN (?…"]
    running = WaitLoad(active=16, cpu=16, latch=0, row_lock=0, metadata_lock=0, io=0, commit=0, other=0, top=[storm])
    assert lc.top_shapes([running])[0] == "█ CPU / running"


@pilot
async def test_w_shows_the_row_lock_incident_as_row_lock_load() -> None:
    with RecordingReader(GALLERY / "row-lock-idle-trx.mtrec") as r:
        raws = [r.sample(i) for i in range(len(r))]
    app = replay_app(raws, start=len(raws) - 1)
    async with app.run_test(size=(120, 40)) as p:
        await wait_for(p, lambda: app.frame is not None and len(app.trend) > 10)
        await p.press("w")
        await wait_for(p, lambda: "DATABASE LOAD BY WAIT CLASS" in screen_text(app))
        shown = screen_text(app)
        # 120 columns: 106 samples charted, all within the stall, and the legend is of those
        assert "last 106 samples" in shown and "▓ row lock 9 " in shown and "against 2 cores" in shown
        assert "UPDATE sbtest1 SET k=k+? WHERE id=?" in shown
        await p.press("w")
        await wait_for(p, lambda: "DATABASE LOAD BY WAIT CLASS" not in screen_text(app))


@pilot
async def test_w_is_drawn_again_for_a_resized_terminal_while_paused() -> None:
    """Paused (no frame comes), the terminal narrowed then widened: the chart shows as many samples
    as the new width holds each time, not the old width's count cut or padded."""
    import re

    with RecordingReader(GALLERY / "row-lock-idle-trx.mtrec") as r:
        raws = [r.sample(i) for i in range(len(r))]
    app = replay_app(raws, start=len(raws) - 1)

    def charted() -> int:
        m = re.search(r"last (\d+) samples", screen_text(app))
        return int(m[1]) if m else -1

    async with app.run_test(size=(120, 40)) as p:
        await wait_for(p, lambda: app.frame is not None and len(app.trend) > 10)
        await p.press("w")
        await wait_for(p, lambda: charted() > 0)
        wide = charted()
        await p.resize_terminal(80, 40)
        await wait_for(p, lambda: 0 < charted() < wide)
        narrow = charted()
        assert wide - narrow == 40            # one sample a column: 40 columns fewer
        await p.resize_terminal(120, 40)
        await wait_for(p, lambda: charted() == wide)


def test_cores_line_shows_when_the_load_stays_below_the_cores() -> None:
    """The chart's top is the cores when no sample rises above them: the ╌ line belongs on the top
    row then, and was left out (the legend named a line the chart did not draw)."""
    pts = [lc.point(WaitLoad(active=1, cpu=0, row_lock=1, metadata_lock=0, latch=0, io=0, commit=0, other=0))] * 2
    rows = lc.chart(pts, lc.AXIS_W + 2, 4, cores=2.0)
    text = ["".join(t for t, _ in r) for r in rows]
    assert text == ["    2┤╌╌", "     │  ", "     │▓▓", "    0┤▓▓"]


def test_legend_is_of_the_samples_the_chart_shows() -> None:
    """The chart shows one sample per column; the averages were of the whole trend, so at 80
    columns a stall that had scrolled off the chart's left still filled the legend."""
    from mysqltop.core.frame import Frame
    from mysqltop.views.tui.load_screen import load_text

    def frame(t: float, row_lock: int) -> Frame:
        return Frame(time=t, elapsed=1.0, load=WaitLoad(active=row_lock, cpu=0, row_lock=row_lock, metadata_lock=0,
                                                        latch=0, io=0, commit=0, other=0, cores=2.0))

    trend = [frame(i, 8) for i in range(100)] + [frame(100 + i, 0) for i in range(60)]
    text = load_text(trend[-1], trend, lc.AXIS_W + 60, 24).plain
    assert "last 60 samples" in text and "▓ row lock 0 " in text, text


def _sliced_samples() -> list:
    """The gallery's row-lock pile-up with the active session rows a live poll would have kept."""
    import dataclasses

    from mysqltop.core import active_sessions

    with RecordingReader(GALLERY / "row-lock-idle-trx.mtrec") as r:
        raws = [r.sample(i) for i in range(len(r))]
    return [dataclasses.replace(s, active_sessions=None if s.sessions is None else active_sessions.rows(
        s.sessions, s.lock_waits, s.row_locks, s.metadata_locks)) for s in raws]


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
@pilot
async def test_w_slices_by_dimension_filters_the_chart_and_clears(size: tuple[int, int]) -> None:
    raws = _sliced_samples()
    app = replay_app(raws, start=len(raws) - 1)
    async with app.run_test(size=size) as p:
        await wait_for(p, lambda: app.frame is not None and len(app.trend) > 10)
        await p.press("w")
        await wait_for(p, lambda: "DATABASE LOAD BY WAIT CLASS" in screen_text(app))
        shown = screen_text(app)
        assert "UPDATE sbtest1 SET k=k+? WHERE id=?" in shown          # by SQL first
        for _ in range(4):                                             # user, host, schema, object
            await p.press("s")
        await wait_for(p, lambda: "`mysqltop_test`.`sbtest1` (PRIMARY)" in screen_text(app))
        await p.press("enter")
        await wait_for(p, lambda: "only object `mysqltop_test`.`sbtest1`" in screen_text(app))
        assert "▶" in screen_text(app)
        await p.press("s")                                             # wait class: the filter stays
        await wait_for(p, lambda: "row lock" in screen_text(app).split("wait class", 1)[-1])
        assert "only object" in screen_text(app)
        await p.press("escape")
        await wait_for(p, lambda: "only object" not in screen_text(app))
        assert "DATABASE LOAD BY WAIT CLASS" in screen_text(app)
        await p.press("escape")
        await wait_for(p, lambda: "DATABASE LOAD BY WAIT CLASS" not in screen_text(app))


@pilot
async def test_w_follows_the_moment_shown() -> None:
    raws = _sliced_samples()
    app = replay_app(raws, start=len(raws) - 1)
    async with app.run_test(size=(120, 40)) as p:
        await wait_for(p, lambda: app.frame is not None and len(app.trend) > 10)
        await p.press("w")
        await wait_for(p, lambda: "DATABASE LOAD BY WAIT CLASS" in screen_text(app))
        screen = app.screen
        before = screen.shown[0].time
        await p.press("left")
        await wait_for(p, lambda: screen.shown[0] is not None and screen.shown[0].time < before)
        assert all(f.time <= screen.shown[0].time for f in screen.shown[1])     # the window up to it


def test_the_sql_table_shows_the_newest_digest_read() -> None:
    from mysqltop.core import top_sql
    from mysqltop.core.frame import Frame
    from mysqltop.views.tui.load_screen import load_text

    f = Frame(time=1.0, elapsed=1.0, load=WaitLoad(active=0, cpu=0, row_lock=0, metadata_lock=0, latch=0, io=0,
                                                   commit=0, other=0, sessions_known=True),
              digests=top_sql.rates([["s", "d", "SELECT `qty` FROM `inventory` WHERE `sku` = ?", 5000, 2500.0, 3.0,
                                      5000, 5000, 0, 0, 10.0]]))
    text = load_text(f, [f], 100, 40).plain
    assert "top SQL by the server's digests (over 10 s)" in text
    assert "500" in text and "SELECT `qty` FROM `inventory` WHERE `sku` = ?" in text
