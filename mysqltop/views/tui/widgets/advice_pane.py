"""Advice: the diagnosis for this moment, each finding with the evidence it rests on."""

from __future__ import annotations

from typing import Sequence

from rich.text import Text

from mysqltop.core.frame import Advice, Frame, severity_rank
from mysqltop.core.rules.instruments import SETUP_FINDINGS
from mysqltop.views.tui.widgets.pane import Pane, Rows
from mysqltop.views.tui.widgets.render import one_line
from mysqltop.core.safe_text import visible

# mark and Palette style per severity
SEVERITY = {"critical": ("!!", "hot"), "warning": ("! ", "warm"), "info": ("i ", "ok")}


class AdvicePane(Pane):
    TITLE = "Advice"
    WRAPS = True
    judging = False       # the findings of the frame shown are still being judged (Position.judging)

    def body(self, frame: Frame, trend: Sequence[Frame], width: int) -> Text | Rows:
        p = self.palette
        if self.judging:
            return Text("judging findings: reading the minutes before this moment…", style=p.dim)
        if not frame.advice:
            return Text("no findings: nothing stands out in this window", style=p.dim)
        lines: list[Text | str] = []
        ranked = sorted(frame.advice, key=lambda a: -severity_rank(a.severity))
        for a in (a for a in ranked if a.id not in SETUP_FINDINGS):
            lines.append(self._mark(a) + Text.assemble(" ", (visible(a.message), p.strong)))
            if a.evidence:
                lines.append(Text("   " + visible(a.evidence), style=p.dim))
        for a in (a for a in ranked if a.id in SETUP_FINDINGS):
            lines.append(self._mark(a) + Text(" " + one_line(visible(a.message), max(20, width - 4)), style=p.dim))
        return Rows(lines)    # prose: the pane wraps each row rather than cut it (WRAPS)

    def _mark(self, a: Advice) -> Text:
        mark, style = SEVERITY.get(a.severity, ("· ", "strong"))
        return Text(mark, style=getattr(self.palette, style))
