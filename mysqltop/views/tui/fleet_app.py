"""The fleet TUI: one overview row per server; Enter drills into that server's usual panes.

The FleetPoller runs one engine thread per server; this App never waits on a poll: a timer reads
the poller's copies (`states()`) and updates only the table cells that changed. Rows are built by
views/fleet_rows.py (untrusted text already made visible) and drawn as Rich `Text`, never as
markup. The drill-down screen reuses the live view's panes and status bar.
"""

from __future__ import annotations

import gc
import time
from typing import Callable

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.driver import Driver
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer, Static

from mysqltop.core.frame import Frame
from mysqltop.core.safe_text import visible
from mysqltop.fleet import FleetPoller, ServerState
from mysqltop.views.fleet_rows import DENIED, LATE, LIVE, NOT_ANSWERING, FleetRow, fleet_row, fleet_rows
from mysqltop.views.tui.app import GRID_ORDER, PANES
from mysqltop.core.pacing import FIRST_GAP
from mysqltop.views.tui.keymap import fleet_drill_keys
from mysqltop.views.tui.fleet_table import STATE_STYLE, FleetTable
from mysqltop.views.tui.heap import Collections
from mysqltop.views.tui.position import Position, ViewMode
from mysqltop.views.tui.screens import HelpScreen
from mysqltop.views.tui.driver import terminal_driver
from mysqltop.views.tui.terminate import exit_on_terminate
from mysqltop.views.tui.widgets.locks_pane import copy_kill_line
from mysqltop.views.tui.widgets.pane import Pane
from mysqltop.views.tui.widgets.status_bar import StatusBar, StatusState

REFRESH_S = 1.0           # table refresh (rows change once per poll); "late" shows within 1.5–2.5 intervals
# Allocations between young garbage collections. At the interpreter's 700, 20 servers' polls set
# one off every few milliseconds, mid-parse, so each poll's passing rows and dicts were walked and
# promoted again and again (a second-generation pass every second, 5–15 ms): at 20,000 most are
# gone before one comes. bench/fleet, 20 servers: the collector's CPU 0.84 -> 0.59 % of a core.
YOUNG_GC = 20_000


class FleetApp(App[None]):
    CSS_PATH = ["mysqltop.tcss", "fleet.tcss"]
    TITLE = "mysqltop fleet"
    BINDINGS = [Binding("q,ctrl+c", "quit", "quit", key_display="q")]

    def __init__(self, poller: FleetPoller, interval: float, notes: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.poller, self.interval, self.notes = poller, interval, notes
        self._states: dict[str, ServerState] = {}
        self.collections = Collections()
        self._summary_shown = ""
        self._gc_threshold = gc.get_threshold()

    def get_driver_class(self) -> type[Driver]:
        return terminal_driver(super().get_driver_class())   # a dropped session still ends it

    def compose(self) -> ComposeResult:
        names = [visible(n) for n in getattr(self.poller, "names", ())] or ["server"]
        self.table = FleetTable(max(map(len, names)), id="fleet")
        yield Static(id="fleet-summary", markup=False)
        yield self.table
        yield Footer()

    def on_mount(self) -> None:
        for note in self.notes:
            self.notify(visible(note), severity="warning", timeout=10, markup=False)
        exit_on_terminate(self)
        gc.set_threshold(YOUNG_GC, *self._gc_threshold[1:])   # the full passes: Collections
        self.poller.start()
        self.set_interval(REFRESH_S, self.refresh_rows)
        self.refresh_rows()
        self.collections.start(self)
        self.table.focus()

    def on_unmount(self) -> None:
        self.poller.stop()
        self.collections.stop()
        gc.set_threshold(*self._gc_threshold)

    def state_of(self, server: str) -> ServerState | None:
        return self._states.get(server)

    @property
    def selected(self) -> str | None:
        """The server under the cursor (the cursor follows it when the rows re-sort)."""
        return self.table.selected

    # -- the table ------------------------------------------------------------------------
    def refresh_rows(self) -> None:
        states = self.poller.states()
        self._states = {s.name: s for s in states}
        if isinstance(self.screen, ServerScreen):
            return                           # the drill-down reads the states; the table waits
        rows = fleet_rows(states, time.monotonic(), self.interval)
        self.table.show(rows)
        self._summary(rows)

    def _summary(self, rows: list[FleetRow]) -> None:
        counts = {s: sum(r.state == s for r in rows) for s in (LIVE, LATE, NOT_ANSWERING, DENIED)}
        text = Text(f"{len(rows)} servers  ", style="bold")
        text.append(f"{counts[LIVE]} live", style="green")
        for state in (LATE, NOT_ANSWERING, DENIED):
            if counts[state]:
                text.append(f"  {counts[state]} {state}", style=STATE_STYLE[state])
        text.append(f"  │ every {self.interval:g}s │ worst first", style="dim")
        if text.plain != self._summary_shown:
            self._summary_shown = text.plain
            self.query_one("#fleet-summary", Static).update(text)

    def on_fleet_table_opened(self, message: FleetTable.Opened) -> None:
        if not isinstance(self.screen, ServerScreen):
            self.push_screen(ServerScreen(message.server, self.interval, self.state_of))

    def action_zoom(self, number: int) -> None:
        """Panes ask the App to zoom on double-click: the drill-down screen does it."""
        if isinstance(self.screen, ServerScreen):
            self.screen.action_zoom(number)


class ServerScreen(Screen[None]):
    """One server's usual panes, fed from the poller's copies; esc returns to the overview."""

    BINDINGS = [
        Binding("escape", "back", "back", key_display="esc"),
        Binding("question_mark", "help", "help", key_display="?"),
        Binding("k", "kill_line", "kill line", key_display="k"),
        Binding("q,ctrl+c", "app.quit", "quit", key_display="q"),
        *(Binding(str(n), f"zoom({n})", "zoom", show=n == 1, key_display="1…7") for n in range(1, len(PANES) + 1)),
    ]
    zoomed: var[int | None] = var(None)

    def __init__(self, server: str, interval: float, state_of: Callable[[str], ServerState | None]) -> None:
        super().__init__()
        self.server, self.interval, self.state_of = server, interval, state_of
        self._frame: Frame | None = None
        self.shown: Frame | None = None       # what the panes show: the newest fresh frame while stale

    def compose(self) -> ComposeResult:
        self.status_bar = StatusBar()
        self.panes: dict[int, Pane] = {n: PANES[n - 1](n) for n in GRID_ORDER}
        if 4 in self.panes:
            self.panes[4].first_gap = min(self.interval, FIRST_GAP)  # type: ignore[attr-defined]
        self.grid = Container(*(self.panes[n] for n in GRID_ORDER), id="panes")
        yield self.status_bar
        yield self.grid
        yield Footer()

    def on_mount(self) -> None:
        # Textual's own escape (or the palette) may restore a zoomed pane: follow it.
        self.watch(self, "maximized", self._maximized_changed, init=False)
        self.set_interval(0.25, self.refresh_server)
        self.refresh_server()

    def _maximized_changed(self, widget: object) -> None:
        zoomed = next((n for n, p in self.panes.items() if p is widget), None)
        if zoomed != self.zoomed:
            self.zoomed = zoomed

    def refresh_server(self) -> None:
        st = self.state_of(self.server)
        if st is None:
            return
        frame = st.frame
        if frame is not None and frame is not self._frame:
            self._frame = frame
            stale = frame.stale and st.good is not None
            self.grid.set_class(stale, "-stale")
            shown = self.shown = st.good if stale and st.good is not None else frame
            trend = tuple(f for f in st.trend if not f.stale) if stale else st.trend
            for pane in self.panes.values():
                pane.show(shown, trend)
        row = fleet_row(st, time.monotonic(), self.interval)
        named = st.good or frame
        server = named.server if named is not None else None
        self.status_bar.show(StatusState(
            mode=ViewMode.LIVE, address=st.name, flavor=server.flavor if server else None,
            version=server.version if server else None,
            uptime_s=frame.server.uptime_s if frame is not None and not frame.stale else None,
            position=Position(mode=ViewMode.LIVE, interval=self.interval, recording=st.recording),
            recording=st.recording,
            alert=None if row.state == LIVE else f"{row.state_text} {row.outage}" if row.outage else row.state_text,
            clock=named.time if named is not None else None))

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(f"fleet: {visible(self.server)}", [p.TITLE for p in PANES],
                                        fleet_drill_keys()))

    def action_kill_line(self) -> None:
        """The live view's `k`: the KILL line of the hottest blocker in what the panes show."""
        copy_kill_line(self.app, self.shown)

    def action_back(self) -> None:
        if self.zoomed is not None:
            self.zoomed = None
        else:
            self.dismiss()

    def action_zoom(self, number: int) -> None:
        self.zoomed = None if self.zoomed == number else number

    def watch_zoomed(self, new: int | None) -> None:
        if not hasattr(self, "panes"):
            return
        for n, pane in self.panes.items():
            pane.zoomed = n == new
        if new is None:
            if self.maximized is not None:
                self.minimize()
        else:
            self.maximize(self.panes[new], container=False)
            self.panes[new].focus()
