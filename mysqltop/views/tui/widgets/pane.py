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
        self._body.update(self.body(self._frame, self._trend, width))

    def on_resize(self, event: events.Resize) -> None:
        region = self.scrollable_content_region
        if (region.width, region.height) != (self._width, self.rows):
            self._rerender()

    async def on_click(self, event: events.Click) -> None:
        if event.chain >= 2:
            await self.app.run_action(f"zoom({self.number})")

    def body(self, frame: Frame, trend: Sequence[Frame], width: int) -> RenderableType:
        raise NotImplementedError
