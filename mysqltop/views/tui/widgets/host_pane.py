"""Host: run queue against cores, CPU split, context switches, mysqld's own CPU."""

from __future__ import annotations

from typing import Sequence

from rich.text import Text

from mysqltop.core.frame import Frame
from mysqltop.core import units
from mysqltop.views.charts import Series
from mysqltop.views.tui.widgets.pane import Pane, Rows
from mysqltop.views.tui.widgets.render import gauge, kv_lines, split_bar

# glyph per CPU state so the split reads without colour too; the last item names a Palette style
CPU_PARTS = (("usr", "cpu_user_pct", "█", "ok"), ("sys", "cpu_system_pct", "▓", "hot"),
             ("io", "cpu_iowait_pct", "▒", "warm"), ("st", "cpu_steal_pct", "░", "other"))


class HostPane(Pane):
    TITLE = "Host"

    def body(self, frame: Frame, trend: Sequence[Frame], width: int) -> Rows:
        h, p = frame.host, self.palette
        if h is None:
            return Rows([Text("no host metrics (server on another host, or the recording has none)", style=p.dim)])
        lines: list[Text | str] = []
        ratio = None if h.run_queue is None or not h.cpus else h.run_queue / h.cpus
        rq = f"{units.num(h.run_queue)}/{units.num(h.cpus)} cores"
        tail = "" if ratio is None else f" {ratio:.1f}×"
        head = Text.assemble(("run queue ", p.dim), (rq, p.strong), " ")
        bar_w = max(0, min(20, width - len(head) - len(tail)))
        if ratio is not None and bar_w >= 4:
            head.append_text(gauge(min(1.0, ratio / 2.0), bar_w, p.hot if ratio > 1 else p.ok, p.dim))
        head.append(tail, style=p.hot if ratio and ratio > 1 else p.strong)
        lines.append(head)
        labels = kv_lines([(label, units.pct(getattr(h, attr))) for label, attr, _, _ in CPU_PARTS], width, palette=p)
        bar_w = max(0, min(40, width - 5))
        if bar_w >= 8:
            parts = [(getattr(h, attr), glyph, getattr(p, style)) for _, attr, glyph, style in CPU_PARTS]
            lines.append(Text.assemble(("cpu  ", p.dim), split_bar(parts, bar_w, p.dim)))
        lines += labels
        lines += kv_lines([("load1", units.num(h.load1)), ("ctx/s", units.num(h.ctx_switches_per_s)),
                           ("mysqld cpu", f"{units.pct(h.mysqld_pct_of_host())} of all cores"
                            if h.mysqld_pct_of_host() is not None else "not local")], width, palette=p)
        if self.zoomed:
            def busy(x: Frame) -> float | None:
                hx = x.host
                if hx is None or hx.cpu_user_pct is None:
                    return None
                return (hx.cpu_user_pct or 0) + (hx.cpu_system_pct or 0) + (hx.cpu_iowait_pct or 0)
            room = self.chart_room(len(lines), 2)
            lines += self.zoom_chart(trend, [Series("run queue", [x.host.run_queue if x.host else None for x in trend]),
                                             Series("cores", [float(x.host.cpus) if x.host and x.host.cpus else None
                                                              for x in trend])], "run queue against cores", room)
            lines += self.zoom_chart(trend, [Series("cpu busy % (usr+sys+io)", [busy(x) for x in trend])],
                                     "host CPU, % of all cores", room)
        return Rows(lines)
