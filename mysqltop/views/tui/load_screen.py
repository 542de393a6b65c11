"""The `w` key: database load by wait class, a stacked chart of the samples on screen (the last
navigator.TREND up to the moment shown) against the core count, the classes' averages, and whose load
it is: a top table for one dimension at a time (`s` cycles SQL, user, host, schema, object, wait
class), each row its average active sessions over the samples charted and its wait-class mix;
Enter filters the chart to the row, Esc clears the filter. Cells come from views/load_chart, the
fold from core/load_slices; text is put in a Text, never read as markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widgets import Static

from mysqltop.core import load_slices, units
from mysqltop.core.frame import WAIT_CLASSES, Frame, LoadSlice, WaitLoad
from mysqltop.core.safe_text import visible
from mysqltop.views import load_chart as lc

CHART_MIN_H, CHART_MAX_H = 5, 20
MIX_W = 10                   # the wait-class mix bar's cells
ROWS_MIN = 3                 # table rows shown however small the terminal
DIGEST_ROWS = 5              # top SQL lines from the newest digest read


@dataclass(frozen=True)
class Slicing:
    """What the view slices by: the dimension shown (load_slices.DIMENSIONS index), the row the
    cursor is on, and the (dimension, value) the chart is filtered to."""
    dimension: int = 0
    row: int = 0
    chosen: tuple[str, str] | None = None


def _charted(frame: Frame | None, trend: Sequence[Frame], width: int) -> list[Frame]:
    # the averages and the table are of the samples the chart shows, not of older ones off its left
    return ([f for f in trend if not f.stale] or ([frame] if frame is not None else []))[-lc.columns(width):]


def _filtered(f: Frame, chosen: tuple[str, str]) -> WaitLoad:
    if not f.load.sessions_known:
        return WaitLoad(cores=f.load.cores)
    classes = load_slices.classes_of(f, *chosen)
    load = WaitLoad(active=sum(classes.values()), cores=f.load.cores)
    for c in WAIT_CLASSES:
        setattr(load, c, classes.get(c, 0.0))
    return load


def table_rows(frames: Sequence[Frame], dimension: str) -> list[LoadSlice]:
    """The dimension's values over the frames charted, most average active sessions first."""
    return load_slices.fold(frames).slices(load_slices.WINDOW_TOP).get(dimension, [])


def _label(dimension: str, value: str) -> str:
    if dimension == "wait_class":
        return lc.LABELS.get(value, value)
    return value if value != "" else "(none)"


def _mix(out: Text, classes: dict[str, float]) -> None:
    total = sum(classes.values())
    cells = 0
    for c in WAIT_CLASSES:
        n = round(MIX_W * classes.get(c, 0.0) / total) if total > 0 else 0
        n = min(n, MIX_W - cells)
        if n > 0:
            out.append(lc.GLYPHS[c] * n, style=lc.STYLES[c])
            cells += n
    out.append(" " * (MIX_W - cells))


def load_text(frame: Frame | None, trend: Sequence[Frame], width: int, height: int,
              slicing: Slicing = Slicing()) -> Text:
    frames = _charted(frame, trend, width)
    chosen = slicing.chosen
    points = [lc.point(_filtered(f, chosen) if chosen else f.load) for f in frames]
    cores = next((f.load.cores for f in reversed(frames) if f.load.cores), None)
    out = Text()
    out.append(f"DATABASE LOAD BY WAIT CLASS — last {len(frames)} samples, newest on the right"[:width] + "\n",
               style="bold")
    if chosen is not None:
        only = visible(" ".join(f"only {load_slices.LABELS[chosen[0]]} {_label(*chosen)}".split()))
        out.append((only[:max(10, width - 13)] + "  (Esc clears)") + "\n", style="bold reverse")
    chart_h = max(CHART_MIN_H, min(CHART_MAX_H, height - 17))
    for row in lc.chart(points, width, chart_h, cores):
        for text, style in row:
            out.append(text, style=style)
        out.append("\n")
    for i, line in enumerate(lc.legend(points, cores)):
        out.append(line[:width] + "\n", style="bold" if i == 0 else "")
    _table(out, frames, slicing, width, max(ROWS_MIN, height - chart_h - 12))
    return out


def _table(out: Text, frames: Sequence[Frame], slicing: Slicing, width: int, rows: int) -> None:
    dims = load_slices.DIMENSIONS
    dim = dims[slicing.dimension % len(dims)][0]
    out.append("\nby ", style="bold")
    for i, (d, _, label) in enumerate(dims):
        out.append(label, style="bold reverse" if d == dim else "dim")
        out.append(" " if i < len(dims) - 1 else "")
    out.append("   s: next  ↑↓ Enter: filter  Esc: clear"[:max(0, width - 42)] + "\n", style="dim")
    if not any(f.load.sessions_known for f in frames):
        out.append("not recorded: these samples hold no active sessions by dimension (an older recording, an "
                   "import without a processlist)\n", style="dim")
        for line in lc.top_shapes([f.load for f in frames])[:rows]:
            out.append(line[:width] + "\n")
        return
    got = table_rows(frames, dim)
    if not got:
        out.append("no active session in these samples\n", style="dim")
        if dim == "sql":
            _digests(out, frames, width)
        return
    row = min(slicing.row, len(got) - 1)
    first = max(0, min(row - rows + 1, len(got) - rows))     # the cursor's row always on screen
    label_w = max(8, width - 6 - 2 - MIX_W - 4)
    for i, s in enumerate(got[first:first + rows], start=first):
        mark = "▶" if slicing.chosen == (dim, s.value) else " "
        cells = Text(f"{mark}{units.num(s.sessions):>6}  ")
        _mix(cells, s.classes)
        cells.append("  " + visible(" ".join(_label(dim, s.value).split()))[:label_w])
        if i == row:
            cells.stylize("reverse")
        out.append_text(cells)
        out.append("\n")
    if len(got) > rows:
        out.append(f"  {row + 1}/{len(got)}\n", style="dim")
    if dim == "sql":
        _digests(out, frames, width)


def _digests(out: Text, frames: Sequence[Frame], width: int) -> None:
    """The newest statement-digest read among the samples charted: per-call figures of its top."""
    read = next((f for f in reversed(frames) if f.digests), None)
    if read is None:
        return
    out.append("\n" + f"top SQL by the server's digests (over {units.num(read.digests[0].span_s)} s): "
               "load  calls/s  avg ms  rows examined/call"[:width] + "\n", style="bold")
    for d in read.digests[:DIGEST_ROWS]:
        head = (f"{units.num(d.load):>6} {units.num(d.calls_per_s):>8} {units.num(d.avg_ms):>7} "
                f"{units.num(d.rows_examined_per_call):>7}  ")
        out.append(head + visible(" ".join(d.sql.split()))[:max(8, width - len(head))] + "\n")


class LoadScreen(ModalScreen[None]):
    BINDINGS = [Binding("q,w", "app.pop_screen", "close", show=False),
                Binding("escape", "clear", "clear the filter, else close", show=False, priority=True),
                Binding("s", "next_dimension", "next dimension", show=False, priority=True),
                Binding("up", "move(-1)", "row up", show=False, priority=True),
                Binding("down", "move(1)", "row down", show=False, priority=True),
                Binding("enter", "choose", "filter the chart to the row", show=False, priority=True),
                # the timeline moves under the view as it does under the panes (the app's keys)
                Binding("left", "app.step(-1)", "one sample back", show=False),
                Binding("right", "app.step(1)", "one sample forward", show=False),
                Binding("p,space", "app.pause", "pause / play", show=False),
                Binding("left_square_bracket", "app.finding(-1)", "previous finding", show=False),
                Binding("right_square_bracket", "app.finding(1)", "next finding", show=False),
                Binding("left_curly_bracket,shift+left", "app.jump(-60)", "a minute back", show=False),
                Binding("right_curly_bracket,shift+right", "app.jump(60)", "a minute forward", show=False),
                Binding("end", "app.to_end", "live / the last sample", show=False)]

    slicing: reactive[Slicing] = reactive(Slicing, init=False)

    def __init__(self, frame: Frame | None, trend: Sequence[Frame]) -> None:
        super().__init__(id="load")
        self.shown: tuple[Frame | None, Sequence[Frame]] = (frame, trend)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="load-box"):
            yield Static(Text("Load by wait class  (w or q closes)", style="bold"), id="load-title")
            yield Static(Text(""), id="load-body")

    def on_mount(self) -> None:
        self.show(*self.shown)

    def on_resize(self) -> None:
        # paused or replay stopped, no frame comes to redraw it: the chart follows the new size now
        self.show(*self.shown)

    def show(self, frame: Frame | None, trend: Sequence[Frame]) -> None:
        """The moment shown and the samples up to it (live, paused, stepped back, replayed)."""
        self.shown = (frame, trend)
        self._redraw()

    def watch_slicing(self) -> None:
        self._redraw()

    def _width(self) -> int:
        return max(20, self.app.size.width - 8)          # border, padding and a scroll bar take 8 columns

    def _redraw(self) -> None:
        frame, trend = self.shown
        try:
            body = self.query_one("#load-body", Static)
        except NoMatches:           # pushed, not composed yet: on_mount shows the latest
            return
        body.update(
            load_text(frame, trend, self._width(), self.app.size.height, self.slicing))

    def _rows(self) -> list[LoadSlice]:
        frame, trend = self.shown
        dims = load_slices.DIMENSIONS
        return table_rows(_charted(frame, trend, self._width()), dims[self.slicing.dimension % len(dims)][0])

    def action_next_dimension(self) -> None:
        s = self.slicing
        self.slicing = Slicing((s.dimension + 1) % len(load_slices.DIMENSIONS), 0, s.chosen)

    def action_move(self, step: int) -> None:
        n = len(self._rows())
        s = self.slicing
        self.slicing = Slicing(s.dimension, max(0, min(n - 1, s.row + step)), s.chosen)

    def action_choose(self) -> None:
        rows = self._rows()
        if not rows:
            return
        s = self.slicing
        dim = load_slices.DIMENSIONS[s.dimension % len(load_slices.DIMENSIONS)][0]
        value = rows[min(s.row, len(rows) - 1)].value
        self.slicing = Slicing(s.dimension, s.row, None if s.chosen == (dim, value) else (dim, value))

    def action_clear(self) -> None:
        if self.slicing.chosen is not None:
            self.slicing = Slicing(self.slicing.dimension, self.slicing.row, None)
        else:
            self.app.pop_screen()
