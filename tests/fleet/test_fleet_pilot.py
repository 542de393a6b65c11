"""The fleet screen without servers: states from a stand-in poller, at 80×24, hostile names."""

from __future__ import annotations

import dataclasses
import re
import time

from mysqltop.core.frame import Frame
from mysqltop.core.blocking import blocking_tree
from mysqltop.fleet import ServerState
from mysqltop.views.tui.fleet_app import FleetApp, ServerScreen
from mysqltop.views.tui.screens import HelpScreen
from tests.fleet.test_fleet_rows import frame
from tests.tui.conftest import Toasts, pilot, screen_text, wait_for
from tests.tui.test_locks_pane import ROWS


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


@pilot
async def test_down_servers_say_how_long_and_why_at_80_and_at_160_columns() -> None:
    """A host with nothing listening, polled every second for 95 s: the row says 1m35s (the outage),
    not the last attempt's milliseconds, and the reason shows at 80 columns too, cut, not dropped."""
    now = time.monotonic()
    refused = Frame(time=1e9, stale=True, failure="unreachable",
                    errors={"poll": "cannot connect to 10.0.0.9:3306 ([Errno 111] Connection refused)"})
    states = [_live("calm:3306", frame(wait_ms=0.2)),
              ServerState(name="gone:3306", frame=refused, arrived=now - 0.003, started=now - 95.0, polls=95,
                          stale=95)]
    for width in (80, 160):
        app = FleetApp(StandInPoller(states), 1.0)  # type: ignore[arg-type]
        async with app.run_test(size=(width, 24)) as pilot:
            await wait_for(pilot, lambda: "gone:3306" in screen_text(app))
            line = next(x for x in screen_text(app).splitlines() if "gone:3306" in x)
            # the outage's length (from 95 s ago; the test's own clock runs on), not the attempt's 3 ms
            assert "NOT ANSWERING" in line and re.search(r"for 1m[3-5]\ds: unreachable: cannot connect", line), \
                (width, line)
            assert len(line.rstrip()) <= width
            if width == 160:
                assert "Connection refused)" in line
            else:
                assert line.rstrip().endswith("…")


@pilot
async def test_drill_down_help_and_kill_line_work_as_in_the_live_view() -> None:
    locked = dataclasses.replace(frame(wait_ms=5.0), blocking=blocking_tree(ROWS))
    poller = StandInPoller([_live("locked:3306", locked), _live("calm:3306", frame(wait_ms=0.1))])
    app = FleetApp(poller, 1.0)  # type: ignore[arg-type]
    toasts = Toasts()
    async with app.run_test(size=(160, 48), message_hook=toasts) as pilot:
        await wait_for(pilot, lambda: "calm:3306" in screen_text(app) and app.selected is not None)
        while app.selected != "locked:3306":
            await pilot.press("down")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerScreen) and app.screen.shown is not None)
        server_screen = app.screen

        # ? lists the drill-down's own keys; esc closes the help, not the drill-down
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = screen_text(app)
        assert "fleet: locked:3306" in text and "KILL <id>" in text and "back from a zoomed pane" in text
        assert "one sample back" not in text and "start / stop recording" not in text   # not offered here
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is server_screen)

        # k: the hottest blocker's KILL line, shown and copied, never run
        await pilot.press("k")
        await wait_for(pilot, lambda: any("KILL 42;" in t for t in toasts.texts))
        assert app.clipboard == "KILL 42;"
        assert any("never kills" in t for t in toasts.texts)

        await pilot.press("escape")                              # back to the overview
        await wait_for(pilot, lambda: not isinstance(app.screen, ServerScreen))
        while app.selected != "calm:3306":
            await pilot.press("down")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerScreen) and app.screen.shown is not None)
        await pilot.press("k")                                   # nobody blocks there: it says so
        await wait_for(pilot, lambda: any("no session is blocking" in t for t in toasts.texts))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ServerScreen))
