"""Latch hotspots: where InnoDB threads wait, hottest first, with the trend of each latch."""

from __future__ import annotations

import textwrap
from typing import Sequence

from rich.text import Text

from mysqltop.core.frame import Frame, Hotspot
from mysqltop.core import units
from mysqltop.views.tui.widgets.pane import Pane, join
from mysqltop.views.tui.widgets.render import DIM, HOT, NOTE, Column, fit_columns, gauge, kv_lines, sparkline, table_lines

SOURCE_SHORT = {"performance_schema": "P_S", "innodb_mutex": "mutex", "semaphores": "sema"}
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


def _trend_of(trend: Sequence[Frame], name: str, use_time: bool, n: int) -> list[float | None]:
    out: list[float | None] = []
    for f in trend[-n:]:
        hit = next((h for h in f.hotspots if h.name == name), None)
        if hit is None:
            out.append(0.0 if f.elapsed is not None else None)
        else:
            out.append(hit.wait_ms_per_s if use_time else hit.waits_per_s)
    return out


def _row(h: Hotspot, trend: Sequence[Frame], trend_w: int) -> list[str | Text]:
    share = Text.assemble(gauge(h.share, SHARE_BAR, HOT), " ", units.share(h.share).rjust(6))
    return [
        h.name,
        KIND_SHORT.get(h.kind, h.kind),
        SOURCE_SHORT.get(h.source, h.source),
        units.num(h.waits_per_s),
        units.num(h.wait_ms_per_s),
        share,
        units.num(h.waiting_threads),
        units.duration(h.longest_wait_s) if h.longest_wait_s is not None else units.NA,
        h.site or "",
        sparkline(_trend_of(trend, h.name, h.wait_ms_per_s is not None, trend_w), trend_w),
    ]


def semaphores_lines(frame: Frame, width: int) -> list[Text]:
    s = frame.semaphores
    parts = [("semaphores: os waits/s", s.os_waits_per_s, units.num), ("spins/s", s.spin_waits_per_s, units.num),
             ("rounds/s", s.spin_rounds_per_s, units.num), ("waiting", s.waiting_threads, units.num),
             ("longest", s.longest_wait_s, units.duration)]
    return kv_lines([(label, f(v)) for label, v, f in parts if v is not None], width)


def sources_lines(frame: Frame, width: int) -> list[Text]:
    """Which latch sources this server offers, then each note (how to enable a missing one),
    wrapped: the fix must be readable whole."""
    offered = ", ".join(frame.sources) or "none detected"
    lines = [Text.assemble(("sources ", DIM), offered)]
    for note in frame.notes:
        lines += [Text(part, style=NOTE) for part in textwrap.wrap(note, max(20, width), subsequent_indent="  ")]
    return lines


class HotspotsPane(Pane):
    TITLE = "Latch hotspots"

    def body(self, frame: Frame, trend: Sequence[Frame], width: int) -> Text:
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
            rows = ([r[i] for i in keep] for r in (_row(h, trend, trend_w) for h in hot))
            lines += table_lines(cols, rows, layout)
        elif frame.elapsed is None:
            lines.append(Text("collecting: rates start with the second sample", style="dim"))
        else:
            lines.append(Text("no latch waits in this interval", style="dim"))
        lines += semaphores_lines(frame, width)
        lines += sources_lines(frame, width)
        return join(lines)
