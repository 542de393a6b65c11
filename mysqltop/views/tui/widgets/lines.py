"""Lines: a body widget that repaints only the lines that changed.

A pane's body is a list of one-line Rich Texts fitted to the pane's width. A Static would
re-render its whole content on every update and the screen would re-lay out; this widget keeps
each line's Strip, compares the new lines with the old ones, and refreshes only the rows that
differ. Each second most panes change a few numbers in a few rows, so most rows cost nothing.

A layout pass (Textual re-arranges the whole screen) is needed only when the widget's height
changes. Given the `viewport` it is shown in, the widget keeps its height steady when the number
of lines moves: it fills the viewport (a list that grows from 3 to 5 rows of 8 changes nothing
but those rows), a list longer than the viewport gets room to grow, and the height is kept while
the last HOLD updates fit, so a list that comes and goes (lock waits under load) neither re-lays
out the screen nor flickers its pane's scrollbar every second; the rows past the last line are
blank (so whether there is more to see is the number of lines against the viewport, not the
scroll extent).
"""

from __future__ import annotations

from collections import deque
from typing import Sequence

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget


_NULL = Style.null()     # every segment gets a style: Textual's filters (NO_COLOR) expect one
HOLD = 30                # updates a taller height is kept for while the lines run past the viewport


def _same(a: Text, b: Text) -> bool:
    return a.plain == b.plain and a.spans == b.spans and a.style == b.style


class Lines(Widget):
    DEFAULT_CSS = """
    Lines {
        width: 100%;
        height: auto;
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._lines: list[Text] = []
        self._strips: list[Strip | None] = []
        self._strip_width = -1
        self._base = _NULL                               # the widget's own style (theme colours)
        self._rows = 0                                   # the height laid out: lines, then blank rows
        self._viewport = 0
        self._recent: deque[int] = deque(maxlen=HOLD)    # line counts of the last updates

    @property
    def lines(self) -> Sequence[Text]:
        return self._lines

    @property
    def plain(self) -> str:
        return "\n".join(line.plain for line in self._lines)

    def set_lines(self, lines: list[Text], viewport: int = 0) -> bool:
        """Show `lines`; returns False when nothing changed (nothing is repainted then).

        `viewport`: the rows the widget is seen through (0: none, the height is the line count)."""
        if viewport != self._viewport:
            self._viewport = viewport
            self._recent.clear()                         # zoomed, resized: the old heights say nothing
        self._recent.append(len(lines))
        rows = len(lines) if viewport <= 0 else self._held_rows(viewport)
        old = self._lines
        changed = [y for y in range(max(len(old), len(lines)))
                   if y >= len(old) or y >= len(lines) or not _same(old[y], lines[y])]
        self._lines = lines
        strips = self._strips
        strips[rows:] = []
        strips += [None] * (rows - len(strips))
        for y in changed:
            if y < rows:
                strips[y] = None
        if rows != self._rows:
            self._rows = rows
            self.refresh(layout=True)
            return True
        if not changed:
            return False
        width = self.size.width
        start = prev = changed[0]
        for y in changed[1:] + [-1]:              # one region per run of changed rows
            if y != prev + 1:
                self.refresh(Region(0, start, width, prev - start + 1))
                start = y
            prev = y
        return True

    def _held_rows(self, viewport: int) -> int:
        """The height for a list seen through `viewport` rows: a list that runs past it gets a
        quarter more room than it needs, so one that wanders (lock waits, long transactions)
        re-lays out the screen once rather than each time it grows by a row; the room is given
        back when the last HOLD updates would fit in much less."""
        top = max(self._recent)
        if top <= viewport:
            return viewport
        roomy = top + top // 4 + 1
        fresh = len(self._recent) == 1             # first update in this viewport: no history to keep
        if fresh or top > self._rows or roomy + top // 4 < self._rows:
            return roomy
        return self._rows

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._rows

    def render_lines(self, crop: Region) -> list[Strip]:
        # The width and the widget's style, looked up once per pass rather than once per line
        # (`size` asks the compositor for the widget's region each time): every line rendered in
        # this pass is cut for them.
        width = self.size.width
        base = self.visual_style.rich_style
        if width != self._strip_width or base != self._base:
            self._strips = [None] * self._rows
            self._strip_width, self._base = width, base
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width, base = self._strip_width, self._base
        if y >= len(self._lines):               # a held blank row: the pane's background, as below it
            return Strip.blank(width, base)
        strip = self._strips[y]
        if strip is None:
            strip = self._strips[y] = _strip(self._lines[y], self.app.console, base, width)
        return strip


def _strip(text: Text, console: Console, base: Style, width: int) -> Strip:
    """The line as a Strip of exactly `width` cells, padded with the widget's style: built at
    its length (a Strip measures its segments again to pad or cut them)."""
    segments = _segments(text, console, base)
    length = cell_len(text.plain)
    if length > width:
        return Strip(segments, length).adjust_cell_length(width, base)
    if length < width:
        segments.append(Segment(" " * (width - length), base))
    return Strip(segments, width)


def _segments(text: Text, console: Console, widget_style: Style = _NULL) -> list[Segment]:
    """The line's segments, each with a Style over `widget_style` (the theme's text colour and
    background, which a bare Strip would not get). Pane lines are built from side-by-side pieces,
    so their spans rarely overlap: those are cut straight from the text (Text.render, which
    combines any overlap of styles, costs several times more); others go through Text.render."""
    plain, spans = text.plain, text.spans
    base = widget_style + console.get_style(text.style, default=_NULL) if text.style else widget_style
    out: list[Segment] = []
    at = 0
    for start, end, style in sorted(spans, key=_start):
        if start < at:                                   # overlapping styles: Rich combines them
            return [Segment(t, widget_style if s is None else widget_style + s)
                    for t, s, _ in text.render(console, end="")]
        if end <= start:
            continue
        if start > at:
            out.append(Segment(plain[at:start], base))
        out.append(Segment(plain[start:end], base + console.get_style(style, default=_NULL)))
        at = end
    if at < len(plain):
        out.append(Segment(plain[at:], base))
    return out


def _start(span: Span) -> int:
    return span.start
