"""Lines: a body widget that repaints only the lines that changed.

A pane's body is a list of one-line Rich Texts fitted to the pane's width. A Static would
re-render its whole content on every update and the screen would re-lay out; this widget keeps
each line's Strip, compares the new lines with the old ones, and refreshes only the rows that
differ (a layout pass only when the line count changes). Each second most panes change a few
numbers in a few rows, so most rows cost nothing.
"""

from __future__ import annotations

from typing import Sequence

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget


_NULL = Style.null()     # every segment gets a style: Textual's filters (NO_COLOR) expect one


class Lines(Widget):
    DEFAULT_CSS = """
    Lines {
        width: 100%;
        height: auto;
    }
    """

    def __init__(self, *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self._lines: list[Text] = []
        self._strips: list[Strip | None] = []
        self._strip_width = -1

    @property
    def lines(self) -> Sequence[Text]:
        return self._lines

    @property
    def plain(self) -> str:
        return "\n".join(line.plain for line in self._lines)

    def set_lines(self, lines: list[Text]) -> bool:
        """Show `lines`; returns False when nothing changed (nothing is repainted then)."""
        old, strips = self._lines, self._strips
        if len(lines) != len(old):
            self._lines, self._strips = lines, [None] * len(lines)
            self.refresh(layout=True)
            return True
        changed = [y for y, (a, b) in enumerate(zip(old, lines)) if a.plain != b.plain or a.spans != b.spans
                   or a.style != b.style]
        if not changed:
            return False
        self._lines = lines
        width = self.size.width
        for y in changed:
            strips[y] = None
            self.refresh(Region(0, y, width, 1))
        return True

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if width != self._strip_width:
            self._strips = [None] * len(self._lines)
            self._strip_width = width
        if y >= len(self._lines):
            return Strip.blank(width, _NULL)
        strip = self._strips[y]
        if strip is None:
            text = self._lines[y]
            segments = [Segment(t, _NULL if s is None else s) for t, s, _ in text.render(self.app.console, end="")]
            strip = Strip(segments).adjust_cell_length(width, _NULL)
            self._strips[y] = strip
        return strip
