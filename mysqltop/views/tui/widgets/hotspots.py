"""Latch hotspots: where InnoDB threads wait, hottest first, with the trend of each latch."""

from __future__ import annotations

from typing import Sequence

from rich.text import Text

from mysqltop.core.frame import Frame, Hotspot
from mysqltop.core import units
from mysqltop.views.tui.widgets.pane import Pane, join
from mysqltop.views.tui.widgets.render import HOT, NOTE, Column, fit_columns, gauge, sparkline, table_lines

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
SEMAPHORE_COLUMNS = {6, 7}   # shown only when some hotspot carries wait-array data
SITE_COLUMN = 8              # shown only when some hotspot has a created-at site


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


def semaphores_line(frame: Frame) -> Text | None:
    s = frame.semaphores
    parts = [("os waits/s", s.os_waits_per_s, units.num), ("spins/s", s.spin_waits_per_s, units.num),
             ("rounds/s", s.spin_rounds_per_s, units.num), ("waiting", s.waiting_threads, units.num),
             ("longest", s.longest_wait_s, units.duration)]
    shown = [(label, f(v)) for label, v, f in parts if v is not None]
    if not shown:
        return None
    line = Text("semaphores ", style="dim")
    for n, (label, value) in enumerate(shown):
        line.append(("  " if n else "") + f"{label} ")
        line.append(value, style="bold")
    return line


def sources_lines(frame: Frame) -> list[Text]:
    offered = ", ".join(frame.sources) or "none detected"
    lines = [Text.assemble(("sources ", "dim"), offered)]
    lines += [Text(note, style=NOTE) for note in frame.notes]
    return lines


class HotspotsPane(Pane):
    TITLE = "Latch hotspots"

    def body(self, frame: Frame, trend: Sequence[Frame], width: int) -> Text:
        hot = frame.hotspots
        waits_now = any(h.waiting_threads is not None or h.longest_wait_s is not None for h in hot)
        sites = any(h.site for h in hot)
        keep = [i for i in range(len(COLUMNS))
                if (waits_now or i not in SEMAPHORE_COLUMNS) and (sites or i != SITE_COLUMN)]
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
        sem = semaphores_line(frame)
        if sem is not None:
            lines.append(sem)
        lines += sources_lines(frame)
        return join(lines)
