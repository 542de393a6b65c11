"""Replay advice after a seek is what `report` shows for that moment (bundled demo recording)."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from pathlib import Path

from mysqltop.views.tui.replay_app import replay_app

from .conftest import pilot, screen_text, wait_for

INCIDENT = Path(__file__).resolve().parents[2] / "mysqltop" / "data" / "incident.mtrec"


@pilot
async def test_goto_in_the_demo_shows_the_findings_report_shows() -> None:
    """`demo`, `p`, `g 02:16:21` said 'no findings: nothing stands out in this window'."""
    t = datetime(2026, 11, 22, 2, 16, 21, tzinfo=timezone.utc).timestamp()
    clock = time.strftime("%H:%M:%S", time.localtime(t))      # the prompt reads local time
    app = replay_app(str(INCIDENT), playing=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: app.frame is not None, timeout=30)
        await pilot.press("g", *clock, "enter")
        await wait_for(pilot, lambda: app.frame is not None and abs(app.frame.time - t) < 1.0
                       and not app.position.judging, timeout=30)
        assert app.frame.advice
        text = screen_text(app)
        assert "no findings" not in text
        assert "row lock" in text.lower()
        # a bookmark jump (back to 02:16:02) gives its moment's findings too, not an empty window
        await pilot.press("b")
        await wait_for(pilot, lambda: app.frame is not None and app.frame.time < t - 10
                       and not app.position.judging, timeout=30)
        assert app.frame.advice
