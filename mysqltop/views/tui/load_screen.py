"""The `w` key: database load by wait class, a stacked chart of the samples on screen (the last
navigator.TREND up to the moment shown) against the core count, the classes' averages, and the top
statement shapes of each class (the drill-down). Cells come from views/load_chart; text is put in
a Text, never read as markup.
"""

from __future__ import annotations

from typing import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from mysqltop.core.frame import Frame
from mysqltop.views import load_chart as lc

CHART_MIN_H, CHART_MAX_H = 6, 20


def load_text(frame: Frame | None, trend: Sequence[Frame], width: int, height: int) -> Text:
    # the averages and shapes are of the samples the chart shows, not of older ones off its left
    frames = ([f for f in trend if not f.stale] or ([frame] if frame is not None else []))[-lc.columns(width):]
    points = [lc.point(f.load) for f in frames]
    cores = next((f.load.cores for f in reversed(frames) if f.load.cores), None)
    out = Text()
    out.append(f"DATABASE LOAD BY WAIT CLASS — last {len(frames)} samples, newest on the right\n", style="bold")
    chart_h = max(CHART_MIN_H, min(CHART_MAX_H, height - 14))
    for row in lc.chart(points, width, chart_h, cores):
        for text, style in row:
            out.append(text, style=style)
        out.append("\n")
    for i, line in enumerate(lc.legend(points, cores)):
        out.append(line + "\n", style="bold" if i == 0 else "")
    shapes = lc.top_shapes([f.load for f in frames])
    if shapes:
        out.append("\ntop statement shapes per class (average sessions)\n", style="bold")
        for line in shapes:
            out.append(line + "\n")
    return out


class LoadScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,w", "app.pop_screen", "close", show=False)]

    def __init__(self, frame: Frame | None, trend: Sequence[Frame]) -> None:
        super().__init__(id="load")
        self.shown: tuple[Frame | None, Sequence[Frame]] = (frame, trend)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="load-box"):
            yield Static(Text("Load by wait class  (w, esc or q closes)", style="bold"), id="load-title")
            yield Static(Text(""), id="load-body")

    def on_mount(self) -> None:
        self.show(*self.shown)

    def on_resize(self) -> None:
        # paused or replay stopped, no frame comes to redraw it: the chart follows the new size now
        self.show(*self.shown)

    def show(self, frame: Frame | None, trend: Sequence[Frame]) -> None:
        self.shown = (frame, trend)
        width, height = self.app.size
        # border, padding and a scroll bar take 8 columns
        self.query_one("#load-body", Static).update(load_text(frame, trend, max(20, width - 8), height))
