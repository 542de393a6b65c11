"""Pane: a focusable, scrollable box whose one body widget is re-rendered from each frame.

Panes never remount children: `show()` replaces the body's content, so there is no flicker.
The body is rendered for the pane's current width (numbers never cut; names clip with …) and
again on resize. Rendering is the TUI's main cost, so a pane does as little as it can:

- the body is a `Lines` widget: only rows whose text changed are repainted, and a layout pass
  happens only when its height must change — it fills the pane's viewport and holds a taller
  height for a while, so a list whose length moves each second does not re-lay out the screen;
- prose (advice) is wrapped to the pane's width here, as a Static would wrap it, and shown in
  the same `Lines`: a finding whose numbers move each second repaints its own rows, where a
  Static re-wrapped and repainted all of them and re-laid out the whole screen;
- bodies are plain Rich `Text` built from values, never markup strings, with untrusted text
  (names, states, errors) passed through `core.safe_text.visible` by the panes.

Colours come from the stylesheet through COMPONENT_CLASSES (`pane--hot` …), so themes reach them.
A zoomed pane (Screen.maximize) gets `zoomed` set and may draw more than in the grid.
"""

from __future__ import annotations

from typing import Sequence

from rich.console import RenderableType
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import ScrollableContainer
from textual.geometry import Size
from textual.reactive import var

from mysqltop.core.frame import Frame
from mysqltop.core.safe_text import visible
from mysqltop.views.charts import ChartSpec, Series, chart, episodes
from mysqltop.views.tui.widgets.lines import Lines
from mysqltop.views.tui.widgets.render import DEFAULT_PALETTE, Palette, wrap
from mysqltop.views.tui.widgets.themed import component_classes, follow_theme


class Rows:
    """A pane body as its lines, one Text each: the Lines body shows them as built, so nothing
    joins them into one Text every second only to split it again."""

    def __init__(self, lines: Sequence[Text | str]) -> None:
        self.lines: list[Text] = []
        for line in lines:
            row = Text(line) if isinstance(line, str) else line
            self.lines += row.split("\n", allow_blank=True) if "\n" in row.plain else [row]

    @property
    def plain(self) -> str:
        return "\n".join(line.plain for line in self.lines)


def stale_reason(frame: Frame) -> str:
    return frame.errors.get("poll") or frame.errors.get("recording") or next(iter(frame.errors.values()), "")


def stale_text(frame: Frame, why: bool = True, palette: Palette = DEFAULT_PALETTE) -> Text:
    reason = stale_reason(frame)
    text = Text("no data in this sample", style=palette.strong)
    if why and reason:
        text.append(f": {visible(reason)}")
    return text


class Pane(ScrollableContainer, can_focus=True, inherit_bindings=False):
    # Only vertical scrolling keys: ← → belong to the App (replay stepping).
    BINDINGS = [
        Binding("up", "scroll_up", "up", show=False),
        Binding("down", "scroll_down", "down", show=False),
        Binding("pageup", "page_up", "page up", show=False),
        Binding("pagedown", "page_down", "page down", show=False),
        Binding("home", "scroll_home", "top", show=False),
        Binding("end", "scroll_end", "bottom", show=False),
    ]
    ALLOW_MAXIMIZE = True
    COMPONENT_CLASSES = component_classes("pane")
    TITLE = ""
    # A stale frame (the poll failed) holds no values: a pane that would explain empty values
    # ("server on another host", "collecting…") says instead that this sample has no data, and
    # why. Panes whose charts stay useful across the gap draw it as usual.
    DRAWS_STALE = False
    WRAPS = False                         # prose: its lines are wrapped to the width

    zoomed: var[bool] = var(False)        # maximized: the body may show more (charts, detail)
    more: var[bool] = var(False)          # the body runs past the pane: the title says so

    def __init__(self, number: int) -> None:
        super().__init__(id=f"pane-{number}", classes="pane")
        self.number = number
        self.border_title = f"{number} {self.TITLE}"
        self._frame: Frame | None = None
        self._trend: Sequence[Frame] = ()
        self._width = 0
        self.rows = 5                 # visible content rows, for panes that fill the height (charts)
        self.palette = DEFAULT_PALETTE
        self.marks: Sequence[tuple[float, str]] = ()     # bookmarks (replay), drawn on zoomed charts
        self._prose: Sequence[Text] = ()      # a WRAPS pane's rows before wrapping
        self._wrapped: dict[tuple[object, ...], list[Text]] = {}     # its rows, wrapped
        self._body = Lines(classes="body")
        self._body.set_lines([Text("waiting for data…")])

    def compose(self) -> ComposeResult:
        yield self._body

    def on_mount(self) -> None:
        follow_theme(self, "pane", self._set_palette)

    def _set_palette(self, palette: Palette) -> None:
        if palette != self.palette:
            self.palette = palette
            self._rerender()

    def show(self, frame: Frame, trend: Sequence[Frame]) -> None:
        self._frame, self._trend = frame, trend
        self._rerender()

    def _rerender(self) -> None:
        if self._frame is None:
            return
        region = self.scrollable_content_region
        width = max(10, region.width or 40)
        self._width, self.rows = width, max(1, region.height or 5)
        frame = self._frame
        if frame.stale and not self.DRAWS_STALE:
            body: RenderableType | Rows = stale_text(frame, why=self.number == 1, palette=self.palette)
        else:
            body = self.body(frame, self._trend, width)
        self._update(body)

    def _update(self, body: RenderableType | Rows) -> None:
        if self.WRAPS:
            text = body if isinstance(body, (Rows, Text)) else Text(str(body))
            self._prose = text.lines if isinstance(text, Rows) else list(text.split("\n", allow_blank=True))
            lines = self._wrap(self._prose)
        elif isinstance(body, Rows):
            lines = body.lines
        else:
            text = body if isinstance(body, Text) else Text(str(body))
            lines = list(text.split("\n", allow_blank=True))
        self._body.set_lines(lines, viewport=self.scrollable_content_region.height)
        self._check_more()        # the count may cross the viewport with no layout pass

    def _wrap(self, rows: Sequence[Text]) -> list[Text]:
        """Prose rows wrapped to the pane's width; a row shown last time keeps its wrapped lines
        (a finding's message stays while its evidence's numbers move)."""
        done: dict[tuple[object, ...], list[Text]] = self._wrapped
        kept: dict[tuple[object, ...], list[Text]] = {}
        lines: list[Text] = []
        for row in rows:
            key = (row.plain, tuple(row.spans), row.style, self._width)
            kept[key] = pieces = done.get(key) or wrap(row, self._width, self.app.console)
            lines += pieces
        self._wrapped = kept
        return lines

    # -- the title follows the scroll extent --------------------------------------------
    def watch_virtual_size(self, size: Size) -> None:
        self._check_more()

    def on_resize(self, event: events.Resize) -> None:
        region = self.scrollable_content_region
        if (region.width, region.height) != (self._width, self.rows):
            self._rerender()
        self._check_more()

    def _check_more(self) -> None:
        # Lines hold blank rows below a list that shrank (see Lines): count the lines themselves.
        height = self.scrollable_content_region.height
        self.more = height > 0 and len(self._body.lines) > height

    def watch_more(self) -> None:
        self._set_title()

    def watch_zoomed(self) -> None:
        self._set_title()
        self._rerender()

    def _set_title(self) -> None:
        """At 80×24 the advice and hotspot lists run past their pane with only a 1-cell scrollbar
        to show it: the title says there is more and which key shows it all."""
        title = f"{self.number} {self.TITLE}"
        if self.more and not self.zoomed:
            title += f" ↓ more: {self.number}"
        if self.border_title != title:
            self.border_title = title

    async def on_click(self, event: events.Click) -> None:
        if event.chain >= 2:
            await self.app.run_action(f"zoom({self.number})")

    def zoom_chart(self, trend: Sequence[Frame], series: Sequence[Series], title: str, height: int) -> list[Text]:
        """A plotext chart of `series` over the trend's time axis, with bookmarks and advice
        episodes marked: what a zoomed pane adds below its numbers."""
        if height < 6 or not trend:
            return []
        times = [f.time for f in trend]
        spans = [(a, b, "advice") for a, b in episodes(times, [bool(f.advice) for f in trend])]
        spec = ChartSpec(times, series, title, marks=self.marks, spans=spans)
        color = not (self.is_mounted and self.app.no_color)
        return list(Text.from_ansi(chart(spec, self._width or 80, height, color=color), no_wrap=True).split(
            "\n", allow_blank=True))

    def chart_room(self, used: int, charts: int = 1) -> int:
        """Rows for each of `charts` charts below `used` rows of numbers in a zoomed pane."""
        return max(8, (self.rows - used - 1) // max(1, charts))

    @property
    def text(self) -> str:
        """The title and body as plain text (what the pane shows, scrolled or not)."""
        body = "\n".join(row.plain for row in self._prose) if self.WRAPS else self._body.plain
        return f"{self.border_title}\n{body}"

    def body(self, frame: Frame, trend: Sequence[Frame], width: int) -> RenderableType | Rows:
        raise NotImplementedError
