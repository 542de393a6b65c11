"""IO threads: pending and completed reads, writes, fsyncs and what each IO thread is doing."""

from __future__ import annotations

from collections import OrderedDict
from typing import Sequence

from rich.text import Text

from mysqltop.core.frame import Frame, IoThread
from mysqltop.core import units
from mysqltop.views.tui.widgets.pane import Pane, join
from mysqltop.views.tui.widgets.render import DIM, HEADER, HOT, clip


def group_threads(threads: Sequence[IoThread]) -> list[tuple[str, list[int], str]]:
    """(role, ids, state) per distinct role+state, in first-seen order: 4 idle read threads
    are one line, not four."""
    groups: OrderedDict[tuple[str, str], list[int]] = OrderedDict()
    for t in threads:
        groups.setdefault((t.role, t.state), []).append(t.id)
    return [(role, ids, state) for (role, state), ids in groups.items()]


def _pending(v: float | None) -> Text:
    return Text(units.num(v), style=HOT if v else "bold")


class IoPane(Pane):
    TITLE = "IO threads"

    def body(self, frame: Frame, trend: Sequence[Frame], width: int) -> Text:
        io = frame.io
        lines: list[Text | str] = [Text(" " * 8 + "".join(" " + h.rjust(6) for h in ("reads", "writes", "fsyncs")),
                                        style=HEADER)]
        pending = Text("pending ", style=DIM)
        for v in (io.pending_reads, io.pending_writes, io.pending_fsyncs):
            cell = _pending(v)
            pending.append(" " * (7 - len(cell))).append_text(cell)
        lines.append(pending)
        lines.append(Text.assemble(("per s   ", DIM), *(" " + units.num(v).rjust(6)
                                                       for v in (io.reads_per_s, io.writes_per_s, io.fsyncs_per_s))))
        groups = group_threads(io.threads)
        if not groups:
            lines.append(Text("no per-thread states from this server", style=DIM))
        for role, ids, state in groups:
            who = f"{role} ×{len(ids)}" if len(ids) > 1 else f"{role} #{ids[0]}"
            who = clip(who, max(8, width // 3)).ljust(max(8, min(18, width // 3)))
            lines.append(Text.assemble((who, "bold"), " ", clip(state, max(1, width - len(who) - 1))))
        return join(lines)
