"""IO threads: pending and completed reads, writes, fsyncs and what each IO thread is doing."""

from __future__ import annotations

from collections import OrderedDict
from typing import Sequence

from rich.text import Text

from mysqltop.core.frame import Frame, IoThread
from mysqltop.core import units
from mysqltop.views.tui.widgets.pane import Pane, Rows
from mysqltop.core.safe_text import visible
from mysqltop.views.charts import Series
from mysqltop.views.tui.widgets.render import DEFAULT_PALETTE, Palette, clip


def group_threads(threads: Sequence[IoThread]) -> list[tuple[str, list[int], str]]:
    """(role, ids, state) per distinct role+state, in first-seen order: 4 idle read threads
    are one line, not four."""
    groups: OrderedDict[tuple[str, str], list[int]] = OrderedDict()
    for t in threads:
        groups.setdefault((t.role, t.state), []).append(t.id)
    return [(role, ids, state) for (role, state), ids in groups.items()]


def _pending(v: float | None, p: Palette = DEFAULT_PALETTE) -> Text:
    return Text(units.num(v), style=p.hot if v else p.strong)


class IoPane(Pane):
    TITLE = "IO threads"

    def body(self, frame: Frame, trend: Sequence[Frame], width: int) -> Rows:
        io, p = frame.io, self.palette
        lines: list[Text | str] = [Text(" " * 8 + "".join(" " + h.rjust(6) for h in ("reads", "writes", "fsyncs")),
                                        style=p.header)]
        pending = Text("pending ", style=p.dim)
        for v in (io.pending_reads, io.pending_writes, io.pending_fsyncs):
            cell = _pending(v, p)
            pending.append(" " * (7 - len(cell))).append_text(cell)
        lines.append(pending)
        lines.append(Text.assemble(("per s   ", p.dim), *(" " + units.num(v).rjust(6)
                                                       for v in (io.reads_per_s, io.writes_per_s, io.fsyncs_per_s))))
        if self.zoomed:
            # every thread on its own line, then the history of pending and completed IO
            lines.append(Text("thread  role             state", style=p.header))
            for t in io.threads:
                lines.append(Text.assemble((f"#{t.id}".ljust(8), p.strong), clip(visible(t.role), 16).ljust(17),
                                           clip(visible(t.state), max(1, width - 25))))
            if not io.threads:
                lines.append(Text("no per-thread states from this server", style=p.dim))
            room = self.chart_room(len(lines), 2)
            lines += self.zoom_chart(trend, [Series("pending reads", [f.io.pending_reads for f in trend]),
                                             Series("pending writes", [f.io.pending_writes for f in trend]),
                                             Series("pending fsyncs", [f.io.pending_fsyncs for f in trend])],
                                     "pending IO", room)
            lines += self.zoom_chart(trend, [Series("reads/s", [f.io.reads_per_s for f in trend]),
                                             Series("writes/s", [f.io.writes_per_s for f in trend]),
                                             Series("fsyncs/s", [f.io.fsyncs_per_s for f in trend])],
                                     "completed IO per second", room)
            return Rows(lines)
        groups = group_threads(io.threads)
        if not groups:
            lines.append(Text("no per-thread states from this server", style=p.dim))
        for role, ids, state in groups:
            role, state = visible(role), visible(state)
            who = f"{role} ×{len(ids)}" if len(ids) > 1 else f"{role} #{ids[0]}"
            who = clip(who, max(8, width // 3)).ljust(max(8, min(18, width // 3)))
            lines.append(Text.assemble((who, p.strong), " ", clip(state, max(1, width - len(who) - 1))))
        return Rows(lines)
