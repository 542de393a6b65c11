"""Latch hotspots: where InnoDB threads wait, hottest first, with the trend of each latch."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Callable, Sequence

from rich.text import Text

from mysqltop.core.frame import Frame, Hotspot, HotspotTotal
from mysqltop.core.hotspots import OWN_LABEL, SOURCE_SHORT
from mysqltop.core import units
from mysqltop.core.safe_text import visible
from mysqltop.views.charts import Series
from mysqltop.views.tui.widgets.pane import Pane, Rows
from mysqltop.views.tui.widgets.render import (DEFAULT_PALETTE, Column, Palette, fit_columns, gauge, kv_lines, one_line,
                                               spark_chars, spark_top, table_lines)

KIND_SHORT = {"semaphore": "sem"}
TREND_W = 10
SHARE_BAR = 6

COLUMNS = (
    Column("latch", 14, priority=9, flex=True, max=44),
    Column("kind", 6, priority=3),
    Column("src", 5, priority=4),
    Column("waits/s", 7, priority=8, right=True),
    Column("ms/s", 7, priority=7, right=True),
    Column("share", SHARE_BAR + 7, priority=6),
    Column("thr", 4, priority=3, right=True),
    Column("longest", 7, priority=2, right=True),
    Column("site", 12, priority=1, flex=True, max=36),
    Column("trend", TREND_W, priority=5, flex=True, max=60),
)

# The first frame has no rates yet: what the counters hold so far, ranked the same way.
TOTAL_COLUMNS = (COLUMNS[0], COLUMNS[1], COLUMNS[2], Column("waits", 7, priority=8, right=True),
                 Column("ms", 7, priority=7, right=True), COLUMNS[5], COLUMNS[8])


def _by_name(frame: Frame) -> dict[str, Hotspot]:
    return {h.name: h for h in frame.hotspots}


def _trend_of(trend: Sequence[dict[str, Hotspot] | None], name: str, use_time: bool) -> list[float | None]:
    """One latch's rate over the trend (each frame's hotspots by name; None: no rates in that frame)."""
    if use_time:
        return [None if by_name is None else (h.wait_ms_per_s if (h := by_name.get(name)) is not None else 0.0)
                for by_name in trend]
    return [None if by_name is None else (h.waits_per_s if (h := by_name.get(name)) is not None else 0.0)
            for by_name in trend]


def _share(share: float | None, p: Palette) -> Text:
    cell = gauge(share, SHARE_BAR, p.hot, p.dim)
    cell.append(" " + units.share(share).rjust(6))
    return cell


def _row(h: Hotspot, spark: str, p: Palette) -> list[str | Text]:
    return [
        visible(h.name) + (f" ({OWN_LABEL})" if h.own else ""),
        KIND_SHORT.get(h.kind, h.kind),
        SOURCE_SHORT.get(h.source, h.source),
        units.num(h.waits_per_s),
        units.num(h.wait_ms_per_s),
        _share(h.share, p),
        units.num(h.waiting_threads),
        units.duration(h.longest_wait_s) if h.longest_wait_s is not None else units.NA,
        visible(h.site or ""),
        spark,
    ]


def _total_row(t: HotspotTotal, p: Palette) -> list[str | Text]:
    return [visible(t.name), KIND_SHORT.get(t.kind, t.kind), SOURCE_SHORT.get(t.source, t.source),
            units.num(t.waits), units.num(t.wait_ms), _share(t.share, p), visible(t.site or "")]


def semaphores_lines(frame: Frame, width: int, palette: Palette = DEFAULT_PALETTE) -> list[Text]:
    s = frame.semaphores
    parts = [("semaphores: os waits/s", s.os_waits_per_s, units.num), ("spins/s", s.spin_waits_per_s, units.num),
             ("rounds/s", s.spin_rounds_per_s, units.num), ("waiting", s.waiting_threads, units.num),
             ("longest", s.longest_wait_s, units.duration)]
    return kv_lines([(label, f(v)) for label, v, f in parts if v is not None], width, palette=palette)


def sources_lines(frame: Frame, width: int, palette: Palette = DEFAULT_PALETTE, whole: bool = False) -> list[Text]:
    """Which latch sources this server offers, then each note (how to enable a missing one): one
    line each, the key `i` showing them whole; `whole` (zoomed): wrapped, readable whole."""
    offered = visible(", ".join(frame.sources)) or "none detected"
    lines = [Text.assemble(("sources ", palette.dim), offered)]
    for note in frame.notes:
        if whole:
            lines += [Text(part, style=palette.note)
                      for part in textwrap.wrap(visible(note), max(20, width), subsequent_indent="  ")]
        else:
            lines.append(Text(one_line(visible(note), max(20, width)), style=palette.note))
    return lines


@dataclass(frozen=True)
class _Spark:
    """A latch's sparkline as drawn: the ids of the trend index it was read from, that index (it
    keeps the ids from being reused), the values read, their top and the characters."""
    ids: list[int]
    index: list[dict[str, Hotspot] | None]
    values: list[float | None]
    top: float
    chars: str


class HotspotsPane(Pane):
    TITLE = "Latch hotspots"

    def __init__(self, number: int) -> None:
        super().__init__(number)
        # id(frame) → (frame, its hotspots by name); the frame is kept so an id cannot be reused
        self._names: dict[int, tuple[Frame, dict[str, Hotspot] | None]] = {}
        self._series: dict[tuple[str, bool], _Spark] = {}     # (latch, by time) → its last sparkline

    def _trend_index(self, trend: Sequence[Frame], n: int) -> list[dict[str, Hotspot] | None]:
        """The last `n` frames' hotspots by name, computed once per frame (not once per row and
        per redraw): the sparklines look each latch up in every frame of the trend."""
        frames = trend[-n:] if n > 0 else ()
        names = self._names
        out = []
        for f in frames:
            hit = names.get(id(f))
            if hit is None or hit[0] is not f:
                hit = names[id(f)] = (f, _by_name(f) if f.elapsed is not None else None)
            out.append(hit[1])
        if len(names) > len(frames) + 16:       # frames left the trend: forget them (and free them)
            keep = {id(f) for f in frames}
            self._names = {k: v for k, v in names.items() if k in keep}
        return out

    def _sparklines(self, index: list[dict[str, Hotspot] | None], width: int) -> Callable[[Hotspot], str]:
        """Each latch's sparkline over `index`, `width` cells. Every second the trend moves on by a
        frame: the values of the frames still in it are kept and only the newest ones are read,
        and while the row's top holds so are their characters (each row read every frame of the
        trend again, the pane's largest cost). The last frame is always read again: it is the
        one shown, with its findings, which the trend holds next time as another object (the
        frame as derived)."""
        done: dict[tuple[str, bool], _Spark] = self._series
        kept: dict[tuple[str, bool], _Spark] = {}
        ids = list(map(id, index))

        def sparkline(h: Hotspot) -> str:
            key = (h.name, h.wait_ms_per_s is not None)
            hit = done.get(key)
            spark = None
            if hit is not None:
                for new in range(4):                            # frames added since
                    same = len(ids) - new - 1                   # frames read last time, but the last
                    gone = len(hit.ids) - 1 - same              # … dropped off the front since
                    if same < 0:
                        break
                    if gone >= 0 and hit.ids[gone:gone + same] == ids[:same]:
                        added = _trend_of(index[same:], key[0], key[1])
                        values = hit.values[gone:gone + same] + added
                        top = spark_top(values)
                        chars = (hit.chars[gone:gone + same] + spark_chars(added, top) if top == hit.top
                                 else spark_chars(values, top))
                        spark = _Spark(ids, index, values, top, chars)
                        break
            if spark is None:
                values = _trend_of(index, key[0], key[1])
                top = spark_top(values)
                spark = _Spark(ids, index, values, top, spark_chars(values, top))
            kept[key] = spark
            return spark.chars.rjust(width)

        self._series = kept
        return sparkline

    def body(self, frame: Frame, trend: Sequence[Frame], width: int) -> Rows:
        p = self.palette
        hot = frame.hotspots
        # Columns with nothing to say for any row (no site from P_S, no rates from the wait
        # array) give their width to the rest.
        present = {3: any(h.waits_per_s is not None for h in hot), 4: any(h.wait_ms_per_s is not None for h in hot),
                   6: any(h.waiting_threads is not None for h in hot), 7: any(h.longest_wait_s is not None for h in hot),
                   8: any(h.site for h in hot)}
        keep = [i for i in range(len(COLUMNS)) if present.get(i, True)]
        lines: list[Text | str] = []
        if hot:
            cols = [COLUMNS[i] for i in keep]
            layout = fit_columns(cols, width)
            trend_w = dict(layout).get(len(cols) - 1, 0)       # the trend column is the last
            index = self._trend_index(trend, trend_w)
            spark = self._sparklines(index, trend_w)
            rows = ([r[i] for i in keep] for r in (_row(h, spark(h), p) for h in hot))
            lines += table_lines(cols, rows, layout, header_style=p.header)
        elif not {"performance_schema", "innodb_mutex"} & set(frame.sources):
            # nothing was measured, which is not the same as nothing waiting: the notes below say why
            lines.append(Text("latch waits are not measured on this server: why below, the fix on i", style=p.warm))
        elif frame.hotspot_totals:
            lines.append(Text("totals since the counters started; rates with the next sample", style=p.dim))
            totals = frame.hotspot_totals
            n = len(TOTAL_COLUMNS) - (not any(t.site for t in totals))    # no site from P_S: no column
            first_cols = TOTAL_COLUMNS[:n]
            lines += table_lines(first_cols, (_total_row(t, p)[:n] for t in totals), fit_columns(first_cols, width),
                                 header_style=p.header)
        elif frame.elapsed is None:
            lines.append(Text("collecting: latch rates in 1 s (they need a second sample)", style=p.dim))
        else:
            lines.append(Text("no latch waits in this interval", style=p.dim))
        lines += semaphores_lines(frame, width, p)
        if self.zoomed and hot:
            use_time = any(h.wait_ms_per_s is not None for h in hot)
            index = self._trend_index(trend, len(trend))
            series = [Series(h.name, _trend_of(index, h.name, use_time)) for h in hot[:3]]
            what = "wait ms/s" if use_time else "waits/s"
            lines += self.zoom_chart(trend, series, f"top latches, {what}", self.chart_room(len(lines) + 2))
        lines += sources_lines(frame, width, p, whole=self.zoomed)
        return Rows(lines)
