"""FleetTable: the overview's rows, one line per server, with a row cursor.

Built on `Lines` (repaints only the rows whose text changed) rather than DataTable, whose cell
updates re-render whole rows through Rich on every change: with 20 servers changing a few
numbers each second that alone cost ~10 % of a core. Cells are plain Text from values (names
already made visible), padded to fixed widths; numbers are at most 5 characters (core/units)
and never cut, names are cut with … (the drill-down shows them whole).
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.reactive import var

from mysqltop.views.fleet_rows import COLUMNS, CONNECTING, DENIED, LATE, LIVE, NOT_ANSWERING, FleetRow
from mysqltop.views.tui.widgets.lines import Lines

NUMERIC = {"tps": 5, "qps": 5, "run": 3, "ms/s": 5, "history": 7, "ckpt": 5}
WIDTHS = {**NUMERIC, "state": 13, "hottest latch": 16, "worst finding": 28, "version": 16}
SERVER_WIDTH = (12, 28)
OUTAGE_FROM = COLUMNS.index("tps")      # a row without data says why from here on
GAP = "  "
STATE_STYLE = {LIVE: "green", LATE: "bold yellow", NOT_ANSWERING: "bold red", DENIED: "bold red",
               CONNECTING: "dim"}
SEVERITY_STYLE = {"critical": "bold red", "warning": "yellow", "info": ""}


def _cut(value: str, width: int) -> str:
    return value if len(value) <= width else value[: max(0, width - 1)] + "…"


class FleetTable(VerticalScroll, can_focus=True):
    """Rows of the overview; ↑/↓ move the cursor, enter opens the server under it."""

    BINDINGS = [
        Binding("up", "move(-1)", "up", show=False),
        Binding("down", "move(1)", "down", show=False),
        Binding("home", "move(-1000000)", "first", show=False),
        Binding("end", "move(1000000)", "last", show=False),
        Binding("enter", "open", "open server", key_display="enter"),
    ]
    cursor: var[int] = var(0)

    class Opened(Message):
        """Enter (or a double click) on a server's row."""

        def __init__(self, server: str) -> None:
            super().__init__()
            self.server = server

    def __init__(self, server_width: int, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.widths = {**WIDTHS, "server": max(SERVER_WIDTH[0], min(SERVER_WIDTH[1], server_width))}
        self.header = Lines(classes="fleet-header")
        self.body = Lines(classes="fleet-body")
        self.rows: list[FleetRow] = []

    def compose(self) -> ComposeResult:
        yield self.header
        yield self.body

    def on_mount(self) -> None:
        head = Text(no_wrap=True, end="", style="bold")
        for i, column in enumerate(COLUMNS):
            w = self.widths[column]
            head.append((GAP if i else " ") + (column.rjust(w) if column in NUMERIC else _cut(column, w).ljust(w)))
        self.header.set_lines([head])

    @property
    def selected(self) -> str | None:
        return self.rows[self.cursor].server if 0 <= self.cursor < len(self.rows) else None

    def show(self, rows: list[FleetRow]) -> None:
        """New rows (sorted); the cursor stays on the server it was on."""
        selected = self.selected
        self.rows = rows
        order = [r.server for r in rows]
        cursor = order.index(selected) if selected in order else min(self.cursor, max(0, len(rows) - 1))
        if cursor != self.cursor:
            self.set_reactive(FleetTable.cursor, cursor)
        self._draw()

    def _line(self, row: FleetRow, selected: bool) -> Text:
        stale = row.state not in (LIVE, LATE)
        text = Text(no_wrap=True, end="", style="reverse" if selected else "")
        used = 0
        for i, (column, value) in enumerate(zip(COLUMNS, row.cells)):
            w = self.widths[column]
            if row.outage and i == OUTAGE_FROM:
                # A server without data: how long and why, in place of its old numbers, cut to
                # what the screen has left (never dropped as the finding column would be at 80).
                room = self.size.width - used - len(GAP) if self.size.width else 0
                room = room if room >= 12 else sum(self.widths[c] + len(GAP) for c in COLUMNS[i:]) - len(GAP)
                text.append(GAP)
                text.append(_cut(row.outage, room).ljust(room), style="red")
                break
            if column == "state":
                style = STATE_STYLE.get(row.state, "")
            elif column == "worst finding":
                style = "red" if stale else SEVERITY_STYLE.get(row.severity or "", "")
            elif column == "server":
                style = "bold"
            else:
                style = "dim" if stale else ""
            cell = value.rjust(w) if column in NUMERIC else _cut(value, w).ljust(w)
            text.append(GAP if i else " ")
            text.append(cell, style=style)
            used += len(GAP if i else " ") + w
        return text

    def _draw(self) -> None:
        self.body.set_lines([self._line(r, i == self.cursor and self.has_focus) for i, r in enumerate(self.rows)])

    def watch_cursor(self) -> None:
        self._draw()
        top, height = int(self.scroll_y), max(1, self.scrollable_content_region.height)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False)

    def on_resize(self) -> None:
        self._draw()

    def on_focus(self) -> None:
        self._draw()

    def on_blur(self) -> None:
        self._draw()

    def action_move(self, delta: int) -> None:
        if self.rows:
            self.cursor = max(0, min(len(self.rows) - 1, self.cursor + delta))

    def action_open(self) -> None:
        if self.selected is not None:
            self.post_message(self.Opened(self.selected))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self.body)
        if offset is None or not 0 <= offset.y < len(self.rows):
            return
        self.cursor = offset.y
        if event.chain >= 2:
            self.action_open()

