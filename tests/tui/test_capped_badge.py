"""A read the server-side statement cap cut shows as a badge in the status bar (the numbers it
feeds are missing or older, not zero), and the badge goes once the read answers again."""

from __future__ import annotations

import dataclasses

from mysqltop.core.sample import RawSample
from mysqltop.views.tui.widgets.status_bar import StatusState, status_line

from .conftest import pilot, wait_for
from .test_live_pilot import StallingSource, live_app, status

CUT = {"cap": "statement_time", "limit": 2.0, "measured": 2.0, "retry_in_s": 5.0, "now": True}


class CappingSource(StallingSource):
    """Healthy samples; from the 4th to the 8th the latch summary is cut by the statement cap."""

    def read(self) -> RawSample:
        raw = super().read()
        if 3 <= self.reads <= 8:
            return dataclasses.replace(raw, capped={"ps_waits": dict(CUT)})
        return raw


@pilot
async def test_a_read_cut_by_the_statement_cap_shows_a_badge_until_it_answers() -> None:
    source = CappingSource(healthy=10_000)
    app = live_app(source)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: "CAPPED ps_waits" in status(app))
        assert app.frame is not None and [c.statement for c in app.frame.capped_reads] == ["ps_waits"]
        await wait_for(pilot, lambda: source.reads > 9 and "CAPPED" not in status(app))


def test_no_badge_without_a_cut_and_a_recorded_key_shown_as_text() -> None:
    assert "CAPPED" not in status_line(StatusState(), 160).plain
    line = status_line(StatusState(capped=("ps_waits", "x\x1b[31m")), 160).plain
    assert "CAPPED ps_waits, x" in line and "\x1b" not in line
