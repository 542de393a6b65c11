"""Zoom is Screen.maximize of a pane; a zoomed chart pane draws a plotext chart of its series on
a time axis with bookmarks marked; zoomed IO lists every thread."""

from __future__ import annotations

from datetime import datetime

from .conftest import pilot, replay_app, wait_for
from .samples import T0, samples


@pilot
async def test_zoomed_panes_draw_time_charts_with_bookmarks() -> None:
    app = replay_app(samples(60), start=50, bookmarks=[(T0 + 40, "spike")])
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: app.position.index == 50 and len(app.trend) > 40)
        grid_text = app.panes[4].text
        assert "┌" not in grid_text                          # the grid keeps its block charts
        for number, title in ((4, "TPS / QPS"), (1, "top latches"), (3, "purge lag"), (5, "run queue")):
            await pilot.press(str(number))
            await wait_for(pilot, lambda: app.panes[number].zoomed and "┌" in app.panes[number].text)
            text = app.panes[number].text
            assert title in text, text
            assert datetime.fromtimestamp(app.trend[-1].time).strftime("%H:%M:%S") in text
            if number == 4:
                assert "▼ bookmark" in text and "▼" in text.split("bookmark", 1)[1]
            await pilot.press(str(number))
            await wait_for(pilot, lambda: not app.panes[number].zoomed)
        assert "┌" not in app.panes[4].text
        await pilot.press("2")
        await wait_for(pilot, lambda: "pending IO" in app.panes[2].text)
        assert "thread  role" in app.panes[2].text
