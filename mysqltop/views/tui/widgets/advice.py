"""Advice: the diagnosis for this moment, each finding with the evidence it rests on."""

from __future__ import annotations

from typing import Sequence

from rich.text import Text

from mysqltop.core.frame import Frame
from mysqltop.views.tui.widgets.pane import Pane, join
from mysqltop.views.tui.widgets.render import DIM, HOT, OK, WARM

SEVERITY = {"critical": ("!!", HOT), "warning": ("! ", WARM), "info": ("i ", OK)}
ORDER = {"critical": 0, "warning": 1, "info": 2}


class AdvicePane(Pane):
    TITLE = "Advice"

    def body(self, frame: Frame, trend: Sequence[Frame], width: int) -> Text:
        if not frame.advice:
            return Text("no findings: nothing stands out in this window", style=DIM)
        lines: list[Text | str] = []
        for a in sorted(frame.advice, key=lambda a: ORDER.get(a.severity, 3)):
            mark, style = SEVERITY.get(a.severity, ("· ", ""))
            msg = Text.assemble((mark, style), " ", (a.message, "bold"))
            lines.append(msg)
            if a.evidence:
                lines.append(Text("   " + a.evidence, style=DIM))
        out = join(lines)
        out.no_wrap = False   # advice is prose: wrap it rather than cut it
        return out
