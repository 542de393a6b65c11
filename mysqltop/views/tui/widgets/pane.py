"""Pane: a focusable, scrollable box whose one Static body is re-rendered from each frame.

Panes never remount children: `show()` replaces the body's content, so there is no flicker.
The body is rendered for the pane's current width (numbers never cut; names clip with …) and
again on resize.
"""

from __future__ import annotations

from typing import Sequence

from rich.console import RenderableType
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import ScrollableContainer
from textual.widgets import Static

from mysqltop.core.frame import Frame


def join(lines: Sequence[Text | str]) -> Text:
    out = Text(no_wrap=True, overflow="crop", end="")
    for n, line in enumerate(lines):
        if n:
            out.append("\n")
        out.append(line) if isinstance(line, str) else out.append_text(line)
    return out


def stale_text(frame: Frame, why: bool = True) -> Text:
    reason = frame.errors.get("poll") or frame.errors.get("recording") or next(iter(frame.errors.values()), "")
    text = Text("no data in this sample", style="bold")
    if why and reason:
        text.append(f": {reason}")
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
    TITLE = ""
    # A stale frame (the poll failed) holds no values: a pane that would explain empty values
    # ("server on another host", "collecting…") says instead that this sample has no data, and
    # why. Panes whose charts stay useful across the gap draw it as usual.
    DRAWS_STALE = False

    def __init__(self, number: int) -> None:
        super().__init__(id=f"pane-{number}", classes="pane")
        self.number = number
        self.border_title = f"{number} {self.TITLE}"
        self._frame: Frame | None = None
        self._trend: Sequence[Frame] = ()
        self._width = 0
        self.rows = 5                 # visible content rows, for panes that fill the height (charts)
        self._body = Static("waiting for data…", classes="body", markup=False)

    def compose(self) -> ComposeResult:
        yield self._body

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
        self.call_after_refresh(self._title_says_more)
        if frame.stale and not self.DRAWS_STALE:
            self._body.update(stale_text(frame, why=self.number == 1))   # the reason once, on top
        else:
            self._body.update(self.body(frame, self._trend, width))

    def on_mount(self) -> None:
        # also on a timer: the scroll extent settles after layout, which may follow the render
        self.set_interval(0.5, self._title_says_more)

    def _title_says_more(self) -> None:
        """At 80×24 the advice and hotspot lists run past their pane with only a 1-cell scrollbar
        to show it: the title says there is more and which key shows it all."""
        title = f"{self.number} {self.TITLE}"
        if self.max_scroll_y > 0 and not self.has_class("-zoom"):
            title += f" ↓ more: {self.number}"
        if self.border_title != title:
            self.border_title = title

    def on_resize(self, event: events.Resize) -> None:
        region = self.scrollable_content_region
        if (region.width, region.height) != (self._width, self.rows):
            self._rerender()

    async def on_click(self, event: events.Click) -> None:
        if event.chain >= 2:
            await self.app.run_action(f"zoom({self.number})")

    def body(self, frame: Frame, trend: Sequence[Frame], width: int) -> RenderableType:
        raise NotImplementedError
