"""Flush: page flushing, dirty pages, checkpoint age against its maximum, redo rate, purge lag."""

from __future__ import annotations

from typing import Sequence

from rich.text import Text

from mysqltop.core.frame import Frame
from mysqltop.core import units
from mysqltop.views.charts import Series
from mysqltop.views.tui.widgets.pane import Pane, Rows
from mysqltop.views.tui.widgets.render import DEFAULT_PALETTE, Palette, StyleType, gauge, kv_lines, sparkline, trend_arrow


def age_style(pct: float | None, p: Palette = DEFAULT_PALETTE) -> StyleType:
    # InnoDB starts furious (sync) flushing near ~75-80 % of the max checkpoint age.
    if pct is None:
        return p.ok
    return p.hot if pct >= 75 else p.warm if pct >= 50 else p.ok


class FlushPane(Pane):
    TITLE = "Flush"

    def body(self, frame: Frame, trend: Sequence[Frame], width: int) -> Rows:
        f, p = frame.flush, self.palette
        lines: list[Text | str] = []
        dirty = units.pct(f.dirty_pct)
        if f.dirty_pages is not None:
            dirty += f" ({units.num(f.dirty_pages)} pg)"
        lines += kv_lines([("flushed/s", units.num(f.pages_flushed_per_s)), ("dirty", dirty),
                           ("log/s", units.bytes_(f.log_bytes_per_s))], width, palette=p)
        # checkpoint age: label, a bar sized to what is left, then pct and bytes
        tail = f" {units.pct(f.checkpoint_age_pct).rjust(4)} {units.bytes_(f.checkpoint_age_bytes)}"
        label = "ckpt age "
        bar_w = max(0, width - len(label) - len(tail))
        line = Text(label, style=p.dim)
        if f.checkpoint_age_pct is not None and bar_w >= 4:
            line.append_text(gauge(f.checkpoint_age_pct / 100.0, bar_w, age_style(f.checkpoint_age_pct, p), p.dim))
        line.append(tail, style=p.strong)
        lines.append(line)
        hist = [x.flush.history_list_length for x in trend]
        hll = Text.assemble((units.num(f.history_list_length), p.strong), " ", trend_arrow(hist[-30:]))
        spark_w = max(0, width - len("history ") - len(hll) - 1)
        if spark_w >= 4 and any(v is not None for v in hist):
            hll.append(" " + sparkline(hist, min(spark_w, 30)), style=p.warm)
        lines += kv_lines([("history", hll)], width, palette=p)
        if self.zoomed:
            present = [v for v in hist if v is not None]
            if present:
                lines += kv_lines([("history min", units.num(min(present))), ("max", units.num(max(present))),
                                   ("over", units.duration(trend[-1].time - trend[0].time))], width, palette=p)
            room = self.chart_room(len(lines), 2)
            lines += self.zoom_chart(trend, [Series("ckpt age %", [x.flush.checkpoint_age_pct for x in trend]),
                                             Series("dirty %", [x.flush.dirty_pct for x in trend])],
                                     "checkpoint age and dirty pages, % of max", room)
            lines += self.zoom_chart(trend, [Series("history list", hist),
                                             Series("pages flushed/s", [x.flush.pages_flushed_per_s for x in trend])],
                                     "purge lag (history list length) and flushing", room)
        return Rows(lines)
