"""A far seek shows its frame at once and its findings once judged, off the UI thread."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from mysqltop.timeline.range import Range
from mysqltop.views.tui.messages import FrameReady
from mysqltop.views.tui.replay_app import replay_app

from .conftest import key_latency, pilot, screen_text, wait_for

INCIDENT = Path(__file__).resolve().parents[2] / "mysqltop" / "data" / "incident.mtrec"
JUDGING = "judging findings"


class Frames:
    """A run_test message_hook keeping what each FrameReady carried: (sample time, judging, finding ids)."""

    def __init__(self) -> None:
        self.seen: list[tuple[float, bool, tuple[str, ...]]] = []

    def __call__(self, message: Any) -> None:
        if isinstance(message, FrameReady):
            e = message.event
            self.seen.append((e.frame.time, e.position.judging, tuple(a.id for a in e.frame.advice)))


def report_ids(t: float) -> tuple[str, ...]:
    """The finding ids a cursor of its own gives at the sample at t (what `report` lists)."""
    rng = Range(str(INCIDENT), on_damage=None)
    try:
        c = rng.cursor
        return tuple(a.id for a in c.frame_at(c.seek(t)).advice)
    finally:
        rng.close()


@pilot
async def test_goto_shows_the_frame_then_its_findings_and_keys_stay_live() -> None:
    t = datetime(2026, 11, 22, 2, 16, 21, tzinfo=timezone.utc).timestamp()
    clock = time.strftime("%H:%M:%S", time.localtime(t))
    frames = Frames()
    app = replay_app(str(INCIDENT), playing=False)
    async with app.run_test(size=(160, 48), message_hook=frames) as pilot:
        await wait_for(pilot, lambda: app.frame is not None and not app.position.judging, timeout=30)
        await pilot.press("g", *clock, "enter")
        await wait_for(pilot, lambda: app.frame is not None and abs(app.frame.time - t) < 1.0, timeout=30)
        at_t = [(judging, ids) for ft, judging, ids in frames.seen if abs(ft - t) < 1.0]
        # the moment first, saying its findings are on their way; they follow in the same place.
        # Unless the feed's idle scan judged it already: then it comes with them, as report says
        assert at_t[0] in ((True, ()), (False, report_ids(t)))
        await wait_for(pilot, lambda: not app.position.judging, timeout=30)
        text = screen_text(app)
        assert JUDGING not in text and "row lock" in text.lower()
        assert [a.id for a in app.frame.advice] == list(report_ids(t))

        # a step while a far moment is being judged: the key moves at once, the findings follow
        await pilot.press("end")
        await wait_for(pilot, lambda: app.frame is not None and app.frame.time > t + 30, timeout=30)
        was = app.frame.time
        await key_latency(app, "left", lambda: app.frame is not None and app.frame.time < was, timeout=30)
        await wait_for(pilot, lambda: not app.position.judging, timeout=30)
        assert [a.id for a in app.frame.advice] == list(report_ids(app.frame.time))
        assert JUDGING not in screen_text(app)
