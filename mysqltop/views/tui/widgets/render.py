"""Text building blocks shared by the panes: bars, sparklines, block charts, fitted columns.

Everything here returns plain strings or rich Text built from glyphs, so the panes stay readable
with NO_COLOR (shapes differ, not only colours) and cost little to render every second.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence, Union

from rich.cells import cell_len
from rich.console import Console
from rich.control import strip_control_codes
from rich.style import Style
from rich.text import Span, Text

_EIGHTHS_H = " ▏▎▍▌▋▊▉█"          # horizontal partial blocks
_EIGHTHS_V = " ▁▂▃▄▅▆▇█"          # vertical partial blocks
SPARK = "▁▂▃▄▅▆▇█"

# Default Rich styles (colour is a bonus; shapes carry the meaning under NO_COLOR). Mounted panes
# take theirs from the stylesheet instead (widgets/themed.py), so themes reach them.
HEADER = "bold"
HOT = "bold red"
WARM = "yellow"
OK = "green"
NOTE = "italic"
DIM = "dim"

StyleType = Union[str, Style]


@dataclass(frozen=True)
class Palette:
    """The styles a pane draws with, by meaning. Each is a component class of Pane
    (`pane--hot` …) in mysqltop.tcss; these defaults serve panes drawn outside an App."""

    hot: StyleType = HOT
    warm: StyleType = WARM
    ok: StyleType = OK
    dim: StyleType = DIM
    header: StyleType = HEADER
    note: StyleType = NOTE
    strong: StyleType = "bold"
    other: StyleType = "magenta"

    NAMES = ("hot", "warm", "ok", "dim", "header", "note", "strong", "other")


DEFAULT_PALETTE = Palette()


def bar(fraction: float | None, width: int) -> str:
    """A left-aligned bar of `width` cells filled to `fraction` (clamped 0..1), eighth precision."""
    if width <= 0:
        return ""
    if fraction is None:
        return " " * width
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, rest = divmod(eighths, 8)
    s = "█" * full + (_EIGHTHS_H[rest] if rest else "")
    return s + " " * (width - len(s))


def gauge(fraction: float | None, width: int, style: StyleType = WARM, track: StyleType = DIM) -> Text:
    """A bar on a dim track: the unfilled part shows as ░ so the maximum is visible."""
    filled = bar(fraction, width).rstrip(" ")
    n = len(filled)
    spans = [Span(0, n, style)] if n else []
    if n < width:
        spans.append(Span(n, width, track))
    return Text(filled + "░" * (width - n), spans=spans)


def split_bar(parts: Sequence[tuple[float | None, str, StyleType]], width: int, track: StyleType = DIM) -> Text:
    """Stacked bar of percentages (0..100): each part is (pct, glyph, style); rest is a dim track.

    Different glyphs per part keep the split readable without colour.
    """
    out = Text()
    used = 0
    for value, glyph, style in parts:
        if not value or value <= 0:
            continue
        n = min(width - used, round(value / 100.0 * width))
        out.append(glyph * n, style)
        used += n
    out.append("·" * (width - used), track)
    return out


def sparkline(values: Sequence[float | None], width: int) -> str:
    """The last `width` values as ▁…█ scaled to their own maximum; missing values are blank."""
    vals = list(values)[-width:] if width > 0 else []
    return spark_chars(vals, spark_top(vals)).rjust(width)


def spark_top(vals: list[float | None]) -> float:
    """The value a sparkline of `vals` scales to: their maximum (0 when none)."""
    present: list[float] = vals if None not in vals else [v for v in vals if v is not None]  # type: ignore[assignment]
    return max(present, default=0.0)


def spark_chars(vals: Sequence[float | None], top: float) -> str:
    """The sparkline characters of `vals` scaled to `top`, one each: a value's character depends
    on it and `top` alone, so a row whose top holds may keep those of the values it kept."""
    # list comprehensions, not generators: a sparkline per hotspot row every second
    if top <= 0:
        return "".join([" " if v is None else SPARK[0] for v in vals])
    return "".join([" " if v is None else SPARK[min(7, int(v / top * 7.999))] for v in vals])


def block_chart(values: Sequence[float | None], width: int, height: int, top: float | None = None) -> list[str]:
    """A bar chart `height` rows tall of the last `width` values, eighth-row precision, newest right."""
    if width <= 0 or height <= 0:
        return []
    vals: list[float | None] = [None] * max(0, width - len(values))
    vals += list(values)[-width:]
    present = [v for v in vals if v is not None]
    top = top if top is not None else max(present, default=0.0)
    full = height * 8                               # a level above it fills the column all the same
    levels = [0 if v is None or top <= 0 else min(full, round(max(0.0, v) / top * height * 8)) for v in vals]
    # Built a column at a time (a chart redrawn every second shows few distinct levels) and
    # read across: a character per cell chosen in Python cost more than the rest of the pane.
    return ["".join(row) for row in zip(*[_bar_column(level, height) for level in levels])]


@lru_cache(maxsize=2048)
def _bar_column(level: int, height: int) -> str:
    """One column of a block chart, top row first: `level` eighths of `height` rows filled."""
    return "".join(_EIGHTHS_V[max(0, min(8, level - row * 8))] for row in range(height - 1, -1, -1))


def trend_arrow(values: Sequence[float | None]) -> str:
    """↑ / ↓ / → comparing the newest value with the mean of the older half (±5 % is flat)."""
    present = [v for v in values if v is not None]
    if len(present) < 3:
        return " "
    old = present[: len(present) // 2]
    base = sum(old) / len(old)
    now = present[-1]
    if base == 0:
        return "↑" if now > 0 else "→"
    change = (now - base) / abs(base)
    return "↑" if change > 0.05 else "↓" if change < -0.05 else "→"


def clip(s: str, width: int) -> str:
    """Fit text to `width` cells, marking a cut with …; only for names, never for numbers."""
    if width <= 0:
        return ""
    return s if len(s) <= width else s[: width - 1] + "…"


@dataclass(frozen=True)
class Column:
    header: str
    width: int               # fixed width; the flexible column uses it as its minimum
    priority: int = 0        # higher survives longer when space is short
    right: bool = False      # right-align (numbers)
    flex: bool = False       # takes the leftover width (names); clipped with …
    max: int = 0             # flexible columns grow up to this (0: no limit)


def fit_columns(columns: Sequence[Column], width: int, gap: int = 1) -> list[tuple[int, int]]:
    """Choose columns that fit `width`: returns (index into columns, width) in display order.

    Lowest-priority columns are dropped first; the flexible columns share what is left.
    """
    keep = list(range(len(columns)))

    def need(ix: list[int]) -> int:
        return sum(columns[i].width for i in ix) + gap * max(0, len(ix) - 1)

    while keep and need(keep) > width:
        victim = min(keep, key=lambda i: (columns[i].priority, -i))
        keep.remove(victim)
    spare = width - need(keep)
    widths = {i: columns[i].width for i in keep}
    flex = [i for i in keep if columns[i].flex]
    while spare > 0 and flex:                   # share out the spare, respecting each max
        room = [i for i in flex if not columns[i].max or widths[i] < columns[i].max]
        if not room:
            break
        each = max(1, spare // len(room))
        for i in room:
            grow = min(each, spare, (columns[i].max - widths[i]) if columns[i].max else each)
            widths[i] += grow
            spare -= grow
    return [(i, widths[i]) for i in keep]


def cell(text: str, col: Column, width: int) -> str:
    if col.flex or len(text) > width:
        text = clip(text, width)
    return text.rjust(width) if col.right else text.ljust(width)


def table_lines(columns: Sequence[Column], rows: Iterable[Sequence[str | Text]],
                layout: list[tuple[int, int]], header_style: StyleType = HEADER, gap: int = 1) -> list[Text]:
    """Render rows (one string or Text per column) in a `fit_columns` layout, under a header line.

    Each row is one Text made from its joined cells and their spans (the Text strips control
    codes from the whole row at once): a table is redrawn every second, and appending cell by
    cell to a Text costs several times more."""
    sep = " " * gap
    head = Text(sep.join(cell(columns[i].header, columns[i], w) for i, w in layout), style=header_style)
    lines = [head]
    for row in rows:
        parts: list[str] = []
        spans: list[Span] = []
        at = 0
        for n, (i, w) in enumerate(layout):
            if n:
                parts.append(sep)
                at += gap
            value = row[i]
            if isinstance(value, Text):
                plain = value.plain
                if cell_len(plain) <= w:
                    plain += " " * (w - cell_len(plain))
                else:
                    value = value.copy()
                    value.truncate(w, pad=True)
                    plain = value.plain
                end = at + len(plain)
                if value.style:
                    spans.append(Span(at, end, value.style))
                spans += [Span(at + a, min(end, at + b), style) for a, b, style in value.spans if at + a < end]
            else:
                plain = cell(value, columns[i], w)
            parts.append(plain)
            at += len(plain)
        lines.append(Text("".join(parts), spans=spans))
    return lines


def kv_lines(pairs: Sequence[tuple[str, str | Text]], width: int, gap: int = 2,
             palette: Palette = DEFAULT_PALETTE) -> list[Text]:
    """Pack `label value` pairs into lines of `width`, moving a whole pair to the next line
    rather than cutting it. Values are bold; a value may be a pre-styled Text.

    Each line is one Text made from its joined pieces and their spans, the Text that appending
    each label and value would make (as table_lines: these lines are rebuilt every second)."""
    lines: list[Text] = []
    parts: list[str] = []
    spans: list[Span] = []
    at = 0
    sep = " " * gap
    dim, strong = palette.dim, palette.strong
    for label, value in pairs:
        head = strip_control_codes(label + " ")
        if isinstance(value, Text):
            tail, style, inner = value.plain, value.style, value.spans
        else:
            tail, style, inner = strip_control_codes(value), strong, []
        if at and at + gap + len(head) + len(tail) > width:
            lines.append(Text("".join(parts), spans=spans))
            parts, spans, at = [], [], 0
        if at:
            parts.append(sep)
            at += gap
        if dim:
            spans.append(Span(at, at + len(head), dim))
        at += len(head)
        if value and style:         # an empty value adds nothing; a str one its span all the same
            spans.append(Span(at, at + len(tail), style))
        if tail:
            spans += [Span(start + at, end + at, s) for start, end, s in inner]
        parts += (head, tail)
        at += len(tail)
    if at:
        lines.append(Text("".join(parts), spans=spans))
    return lines


def wrap(text: Text, width: int, console: Console) -> list[Text]:
    """`text` wrapped to `width` cells as a Textual widget with `text-wrap: wrap` and
    `text-overflow: clip` wraps it: broken between words by Rich's line breaker (Textual's too),
    the spaces that end a broken line dropped, a word longer than the width cut."""
    out: list[Text] = []
    for line in text.split("\n", allow_blank=True):
        pieces = list(line.wrap(console, max(1, width), justify="default", overflow="crop", no_wrap=False))
        for piece in pieces[:-1]:
            piece.rstrip()
        out += pieces
    return out


# Where a setup finding or note is cut to one line: the key that shows it whole.
MORE = " … i: the rest"


def one_line(text: str, width: int) -> str:
    """`text` (already made visible) on one line of `width`, the key for the rest when cut."""
    return text if len(text) <= width else text[:max(0, width - len(MORE))].rstrip() + MORE
