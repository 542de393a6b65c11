"""The fleet screen without servers: states from a stand-in poller, at 80×24, hostile names."""

from __future__ import annotations

import time

from mysqltop.core.frame import Frame
from mysqltop.views.fleet_poll import ServerState
from mysqltop.views.tui.fleet import FleetApp, ServerScreen
from tests.fleet.test_fleet_rows import frame
from tests.tui.conftest import pilot, screen_text, wait_for


class StandInPoller:
    """What FleetApp uses of FleetPoller: start, stop, states (set by the test)."""

    def __init__(self, states: list[ServerState]) -> None:
        self._states = states
        self.started = self.stopped = False

    def start(self) -> None:
        self.started = True

    def stop(self) -> None:
        self.stopped = True

    def states(self) -> list[ServerState]:
        return self._states

    @property
    def names(self) -> list[str]:
        return [s.name for s in self._states]


def _live(name: str, f: Frame) -> ServerState:
    now = time.monotonic()
    return ServerState(name=name, frame=f, good=f, arrived=now + 3600, good_at=now, started=now, trend=(f,))


@pilot
async def test_overview_at_80x24_hostile_text_stays_text_and_drill_down() -> None:
    hostile = frame(name="[b]evil[/b]\x1b]0;pwned\x07", advice=("x[red]y:critical",))
    dead = Frame(time=1e9, stale=True, failure="timeout", errors={"poll": "read timed out \x1b[2J"})
    states = [_live("calm:3306", frame(wait_ms=0.2)), _live("db\x1b[31m:3306", hostile),
              ServerState(name="down:3306", frame=dead, arrived=time.monotonic(), started=time.monotonic())]
    poller = StandInPoller(states)
    app = FleetApp(poller, 1.0)  # type: ignore[arg-type]
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "down:3306" in screen_text(app))
        text = screen_text(app)
        lines = [line for line in text.splitlines() if ":3306" in line]
        assert lines[0].split()[0] == "down:3306" and "NOT ANSWERING" in lines[0]
        assert lines[1].split()[0] == "db\\x1b[31m:3306"          # critical finding next
        assert "[b]evil[/b]\\x1b…" in lines[1]                    # markup shown as text, controls visible
        assert "\x1b" not in text and "3 servers" in text and "1 NOT ANSWERING" in text
        await pilot.press("down")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerScreen))
        assert app.screen.server == "db\x1b[31m:3306"
        await wait_for(pilot, lambda: "db\\x1b[31m:3306" in screen_text(app).splitlines()[0])
        await pilot.press("1")
        await wait_for(pilot, lambda: app.screen.maximized is not None)
        await pilot.press("escape")                              # first esc: unzoom
        await wait_for(pilot, lambda: app.screen.maximized is None)
        assert isinstance(app.screen, ServerScreen)
        await pilot.press("escape")                              # second: back to the overview
        await wait_for(pilot, lambda: not isinstance(app.screen, ServerScreen))
        app.save_screenshot("/tmp/fleet-80x24.svg")
    assert poller.started and poller.stopped
