"""TPS / QPS: current rates and block charts of the recent past (newest on the right), with the
pressure counters' rates after the throughput's (widgets/pressure_rates.py).

A text chart rather than plotext: it is a few string joins per frame, well inside the CPU
budget at 1 s, and it stays legible over ssh and with NO_COLOR.
"""

from __future__ import annotations

from typing import Sequence

from rich.text import Text

from mysqltop.core.frame import COMMITTED_LABEL, Frame
from mysqltop.core import units
from mysqltop.views.charts import Series
from mysqltop.views.tui.widgets import pressure_rates
from mysqltop.views.tui.widgets.pane import Pane, Rows
from mysqltop.views.tui.widgets.render import DIM, StyleType, block_chart, kv_lines

GUTTER = 6


def chart(label: str, values: list[float | None], width: int, height: int, style: StyleType,
          gutter_style: StyleType = DIM) -> list[Text]:
    """Rows of a block chart with a gutter: the scale (max) on top, the label at the bottom."""
    present = [v for v in values if v is not None]
    top = max(present, default=0.0)
    rows = block_chart(values, max(1, width - GUTTER), height, top)
    out = []
    for n, row in enumerate(rows):
        gutter = units.num(top) if n == 0 and height > 1 else label if n == height - 1 else ""
        out.append(Text.assemble((gutter.rjust(GUTTER - 1) + " ", gutter_style), (row, style)))
    return out


class ThroughputPane(Pane):
    TITLE = "TPS / QPS"
    DRAWS_STALE = True          # its charts show the gap
    first_gap = 1.0             # when the second sample (the first rates) is due; the App sets it

    def body(self, frame: Frame, trend: Sequence[Frame], width: int) -> Rows:
        t, p = frame.throughput, self.palette
        pairs: list[tuple[str, str | Text]] = [
            (COMMITTED_LABEL, units.num(t.committed_per_s)),   # Handler_commit, autocommit included: the headline
            ("tps", units.num(t.tps)), ("qps", units.num(t.qps)), ("running", units.num(t.threads_running)),
            ("wtrx/s", units.num(t.write_trx_per_s)), ("rb/s", units.num(t.rollbacks_per_s)),
            ("rows r/s", units.num(t.rows_read_per_s)), ("rows w/s", units.num(t.rows_changed_per_s)),
            *pressure_rates.pairs(frame.pressure, p),
        ]
        refused = pressure_rates.refused(frame.pressure, p)
        if refused is not None:
            pairs.insert(0, refused)            # clients get errors: on the line a small pane keeps
        if frame.elapsed is None and not frame.stale:
            # The first poll's gauges are on screen at once; rates need the next sample.
            pairs.insert(0, ("rates in", Text(units.duration(self.first_gap), style=p.warm)))
        lines: list[Text | str] = list(kv_lines(pairs, width, palette=p))
        # the first chart is committed transactions where the server counts them (autocommit
        # included), else COMMIT/ROLLBACK statements: an autocommit load never charts as an outage
        committed = [f.throughput.committed_per_s for f in trend]
        first_name, first = ("commits/s", committed) if any(v is not None for v in committed) else \
            ("tps", [f.throughput.tps for f in trend])
        if self.zoomed:
            series = [Series(first_name, first), Series("qps", [f.throughput.qps for f in trend])]
            lines += self.zoom_chart(trend, series, "TPS / QPS", self.chart_room(len(lines)))
            return Rows(lines)
        lines = lines[: max(1, self.rows // 3)] if self.rows < 8 else lines
        room = max(0, self.rows - len(lines))
        n = max(0, width - GUTTER)
        if room >= 2:
            tps_h = (room + 1) // 2
            lines += chart(first_name, first[-n:], width, tps_h, p.ok, p.dim)
            lines += chart("qps", [f.throughput.qps for f in trend][-n:], width, room - tps_h, p.warm, p.dim)
        elif room == 1:
            lines += chart(first_name, first[-n:], width, 1, p.ok, p.dim)
        return Rows(lines)
